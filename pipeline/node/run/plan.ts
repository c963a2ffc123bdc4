/** The scale-out flags' small pieces, importable before the pipeline loads (a bad flag fails in a second). */
import type { RunStats } from '../../core/stats.ts';

/** Input items (documents and bad records) per chunk unless --chunk says otherwise. */
export const DEFAULT_CHUNK_ITEMS = 8;

/** `--shard i/N`: this process runs the chunks whose index ≡ index (mod count). */
export interface Shard {
  index: number;
  count: number;
}

/** `--shard i/N`, 0 ≤ i < N (0-based, as $JOB_COMPLETION_INDEX and a 0-based Slurm array). */
export function parseShard(value: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(value.trim());
  const [index, count] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
  if (!(count >= 1 && index < count)) {
    throw new Error(`--shard must be i/N with 0 ≤ i < N (got ${JSON.stringify(value)}): e.g. --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT`);
  }
  return { index, count };
}

/** Kept calls in a stats record (for progress lines). */
export const keptCalls = (stats: RunStats) => Object.values(stats.tools).reduce((a, t) => a + t.kept, 0);
