/**
 * The median of `xs`: the middle value once sorted, or the mean of the two middle values for an even count; NaN
 * for none. One definition for every report (benchmark rates, trainer throughput, probes).
 */
export function median(xs: readonly number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
