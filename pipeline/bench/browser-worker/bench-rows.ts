/**
 * The browser bench's workload, identical in Node (../web.ts) and the bench build's worker (worker-bench.ts): `batch`
 * rows of `length` token ids cut from a fixed English text (repeated as needed), each row starting at a different
 * token. Scored teacher-forced, all positions.
 */
import type { CausalLM, ScoreRequest } from '../../core/lm/lm.ts';

const TEXT =
  'Out of 1400 participants, 400 (or 29%) passed the test. The capital of Pennsylvania is Harrisburg. ' +
  'In 1950 the population was 2,071,605; by 1990 it had grown to 2,783,726, an increase of 712,121. ' +
  'Today is Monday, January 30, 2023, and the budget for the year is 4,800 dollars. ';

export function benchRows(lm: CausalLM, batch: number, length: number): ScoreRequest[] {
  let ids = lm.encode(TEXT);
  while (ids.length < length + batch * 7) ids = ids.concat(ids);
  return Array.from({ length: batch }, (_, b) => ({ ids: ids.slice(b * 7, b * 7 + length) }));
}

/** Tokens/s of `repeats` calls of lm.score(rows) after one warm-up call (kernel compilation, buffer set-up). */
export async function scoreThroughput(lm: CausalLM, rows: readonly ScoreRequest[], repeats: number): Promise<number> {
  await lm.score(rows);
  const t0 = performance.now();
  for (let r = 0; r < repeats; r++) await lm.score(rows);
  const tokens = rows.reduce((s, r) => s + r.ids.length, 0) * repeats;
  return tokens / ((performance.now() - t0) / 1000);
}

/** Wall seconds of each of `repeats` lm.score(rows) calls (no warm-up: call once before to exclude set-up). */
export async function scoreTimes(lm: CausalLM, rows: readonly ScoreRequest[], repeats: number): Promise<number[]> {
  const seconds: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    await lm.score(rows);
    seconds.push((performance.now() - t0) / 1000);
  }
  return seconds;
}
