import type { CausalLM, ScoreRequest } from '../lm/lm.ts';
import type { StoredLosses } from '../candidates.ts';
import { PAPER_WEIGHTS, weightedLoss } from './losses.ts';
import { type LossRequest, type Placement, type PositionToScore, type ScoredPosition, type ScoreOptions, type ScoringWindow, scorePositionsTwoPass } from './scoring.ts';

/**
 * Inline call placement (`--call-placement inline`), for a model finetuned on calls (rounds 2+, toolkens), which
 * reads a call where x* writes it rather than as a prefix (the paper's footnote 3 places it first because its model
 * has never seen one; scoring.ts does that, the default):
 *
 *   L_a  noCall      [bos] x_{1:i−1} | x_i … x_{i+4}
 *   L_b  callOnly    [bos] x_{1:i−1} e(c, ε) | x_i … x_{i+4}
 *   L_c  withResult  [bos] x_{1:i−1} e(c, r) | x_i … x_{i+4}
 *
 * e(c, ·) is written as inline.ts writes it into x*: " " + the call text. Same weights, same names, same two passes
 * (L_b only where L_a − L_c reaches the call's τ_min). [bos] x_{1:i−2} is marked as the rows' shared prefix
 * (ScoreRequest.sharedPrefix: the ONNX scorer forwards it once per position and keeps its KV cache for L_a and every
 * call there); each row then forwards x_{i−1} e(c, ·) x_i … x_{i+3} — x_{i−1} stays out of the prefix so that x_i's
 * log-prob comes from the row — so a call costs its own tokens + 5, not the whole window again. A backend that
 * ignores the hint scores the whole sequences: the same numbers at the full cost.
 */

/** The ids of e(c, ·) inline, as x* holds it: " " + the call text (inline.ts inlineCalls). */
export function inlineCallIds(lm: Pick<CausalLM, 'encode'>, callText: string): number[] {
  return lm.encode(' ' + callText);
}

/**
 * One window's rows: [bos] x_{1:i−2} is the prefix every row of the position shares (ScoreRequest.sharedPrefix: a
 * backend forwards it once and keeps its KV cache), then x_{i−1} e(c, ·) x_i … — the same shared length for L_a and
 * every call, so all rows of the position use one cache.
 */
function rowsOf(lm: CausalLM, window: ScoringWindow, calls: readonly (readonly number[])[]): (ScoreRequest & { from: number })[] {
  const context = [...(lm.bosId === undefined ? [] : [lm.bosId]), ...window.prefix];
  const shared = Math.max(0, context.length - 1);
  return calls.map((callIds) => {
    const ids = [...context, ...callIds, ...window.next];
    if (ids.length > lm.maxLength) throw new Error(`scoring sequence of ${ids.length} tokens exceeds the model's ${lm.maxLength}; lower contextTokens`);
    return { ids, from: context.length + callIds.length, ...(shared > 0 && { sharedPrefix: shared }) };
  });
}

/** The weighted loss of each call (ids of e(c, ·), [] for L_a) at `window`, nats, in order. */
async function lossesOn(lm: CausalLM, window: ScoringWindow, calls: readonly (readonly number[])[], options: Pick<ScoreOptions, 'batchSize' | 'weights'>): Promise<number[]> {
  const weights = options.weights ?? PAPER_WEIGHTS;
  const batchSize = options.batchSize ?? 16;
  const rows = rowsOf(lm, window, calls);
  const losses: number[] = [];
  for (let s = 0; s < rows.length; s += batchSize) {
    const chunk = rows.slice(s, s + batchSize);
    const results = await lm.score(chunk);
    chunk.forEach((r, j) => losses.push(weightedLoss(results[j].tokenLogProbs, r.from, weights)));
  }
  return losses;
}

/**
 * scoreLosses (scoring.ts) with the call inline: each request's `callIds` (from inlineCallIds) between its window's
 * prefix and next tokens; requests on the same window object share one prefix forward. In input order.
 */
export async function scoreLossesInline(lm: CausalLM, items: readonly LossRequest[], options: Pick<ScoreOptions, 'batchSize' | 'weights'> = {}): Promise<Float64Array> {
  const byWindow = new Map<ScoringWindow, number[]>();
  items.forEach((item, i) => byWindow.set(item.window, [...(byWindow.get(item.window) ?? []), i]));
  const losses = new Float64Array(items.length);
  for (const [window, indices] of byWindow) {
    const got = await lossesOn(lm, window, indices.map((i) => items[i].callIds), options);
    indices.forEach((i, j) => (losses[i] = got[j]));
  }
  return losses;
}

/** The call inline, as x* writes it: requests grouped by window, each window's rows on its shared prefix's cache. */
export const INLINE_PLACEMENT: Placement = { callIds: (lm, callText) => inlineCallIds(lm, callText), losses: scoreLossesInline };

/**
 * scorePositionsTwoPass (scoring.ts) with the call inline, one position at a time: its prefix forwarded once, then L_a
 * and every L_c, then L_b for the calls whose L_a − L_c reaches their `callOnlyFrom` (all calls without one), on the
 * same cache (the scorer keeps a few prefixes; all of a document's positions between the passes would evict them).
 * The records have the same shape: a skipped L_b leaves the call without `callOnly`.
 */
export async function scorePositionsInline(lm: CausalLM, positions: readonly PositionToScore[], options: ScoreOptions = {}): Promise<ScoredPosition<StoredLosses>[]> {
  const { onProgress, ...perPosition } = options;
  const callsTotal = positions.reduce((n, p) => n + p.calls.length, 0);
  let callsDone = 0;
  const scored: ScoredPosition<StoredLosses>[] = [];
  for (const p of positions) {
    scored.push(...(await scorePositionsTwoPass(lm, [p], perPosition, INLINE_PLACEMENT)));
    onProgress?.((callsDone += p.calls.length), callsTotal);
  }
  return scored;
}
