import type { ScoreResult } from '../lm/lm.ts';

/**
 * The largest gap, in nats, between two scorings of the same requests: over every position's token log-prob and
 * probe log-prob. For parity tests (two runtimes, two graphs for one computation) that hold it under a tolerance; a
 * result missing on one side, a length that differs or a probe scored on one side only gives NaN, which no bound passes.
 */
export function largestScoreGap(a: readonly ScoreResult[], b: readonly ScoreResult[]): number {
  if (a.length !== b.length) return NaN;
  let gap = 0;
  for (const [i, r] of a.entries()) {
    const other = b[i];
    if (r.tokenLogProbs.length !== other.tokenLogProbs.length || !r.probeLogProbs !== !other.probeLogProbs) return NaN;
    for (let t = 0; t < r.tokenLogProbs.length; t++) {
      gap = Math.max(gap, Math.abs(r.tokenLogProbs[t] - other.tokenLogProbs[t]));
      if (r.probeLogProbs) gap = Math.max(gap, Math.abs(r.probeLogProbs[t] - other.probeLogProbs![t]));
    }
  }
  return gap;
}
