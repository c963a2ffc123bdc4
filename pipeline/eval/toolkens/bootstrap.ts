/** Intervals for the toolkens comparison: 95 % percentile bootstrap over prompts (seeded), pure. */
import { mulberry32 } from '../../random/mulberry32.ts';

export const RESAMPLES = 2000;

export interface Share {
  p: number;
  lo: number;
  hi: number;
  prompts: number;
  trials: number;
}

/** Σk / Σn over prompts, each prompt a cluster of n trials (seeds, draws) with k successes; resampled by prompt. */
export function clusteredShare(per: readonly { k: number; n: number }[], seed: number): Share | null {
  if (per.length === 0) return null;
  const total = (cs: readonly { k: number; n: number }[]) => {
    const n = cs.reduce((s, c) => s + c.n, 0);
    return n ? cs.reduce((s, c) => s + c.k, 0) / n : NaN;
  };
  const rng = mulberry32(seed);
  const stats: number[] = [];
  for (let b = 0; b < RESAMPLES; b++) stats.push(total(per.map(() => per[Math.floor(rng.next() * per.length)])));
  stats.sort((a, b) => a - b);
  return { p: total(per), lo: stats[Math.floor(0.025 * RESAMPLES)], hi: stats[Math.ceil(0.975 * RESAMPLES) - 1], prompts: per.length, trials: per.reduce((s, c) => s + c.n, 0) };
}

/** The mean of per-prompt paired differences, resampled by prompt. */
export function meanDifference(diffs: readonly number[], seed: number): { diff: number; lo: number; hi: number; prompts: number } | null {
  if (diffs.length === 0) return null;
  const mean = (ds: readonly number[]) => ds.reduce((a, b) => a + b, 0) / ds.length;
  const rng = mulberry32(seed);
  const stats = Array.from({ length: RESAMPLES }, () => mean(diffs.map(() => diffs[Math.floor(rng.next() * diffs.length)]))).sort((a, b) => a - b);
  return { diff: mean(diffs), lo: stats[Math.floor(0.025 * RESAMPLES)], hi: stats[Math.ceil(0.975 * RESAMPLES) - 1], prompts: diffs.length };
}
