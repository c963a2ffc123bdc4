/** FNV-1a offset basis (32-bit). */
export const FNV_OFFSET = 0x811c9dc5;

/**
 * 32-bit FNV-1a over UTF-16 code units: a stable, platform-independent hash (the Calculator pre-filter's random 1%,
 * per-position sampling seeds). `basis` lets a caller mix a seed in.
 */
export function fnv1a(s: string, basis: number = FNV_OFFSET): number {
  let h = basis >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
