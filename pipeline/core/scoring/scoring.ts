import type { CausalLM, ScoreRequest } from '../lm/lm.ts';
import { type Losses, PAPER_WEIGHTS, weightedLoss } from './losses.ts';
import { hasCallOnly, type StoredLosses } from '../candidates.ts';

/**
 * Scoring candidate calls with the paper's losses, batched across candidates.
 *
 * For a position i in a text x and a call c with result r, three sequences are scored (paper §2, footnote 3:
 * the call is a PREFIX of the text, not inlined, because the model is not finetuned yet):
 *
 *   L_a  noCall      [bos] x_{1:i−1} | x_i … x_{i+4}
 *   L_b  callOnly    [bos] e(c, ε) x_{1:i−1} | x_i … x_{i+4}
 *   L_c  withResult  [bos] e(c, r) x_{1:i−1} | x_i … x_{i+4}
 *
 * Only the tokens after "|" are scored, with the paper's weights, and nothing past them is forwarded.
 * L_a depends only on the position, so it is scored once per position and shared by all its calls.
 *
 * Two passes (scorePositionsTwoPass): L_a and L_c first, L_b only where L_a − L_c ≥ τ_min. Since min(L_a, L_b) ≤ L_a,
 * a call with L_a − L_c < τ_min has usefulness < τ_min whatever L_b is; on `npm start` that is most calls.
 */
export interface ScoringWindow {
  /** x_{1:i−1}: ids of the text before the position, cut on the left to the context budget. */
  prefix: number[];
  /** x_i, x_{i+1}, …: the ids the losses are computed on (at most the number of weights). */
  next: number[];
  /** Text put between a call prefix and the window: " " when the window starts mid-line without a space. */
  separator: string;
}

export interface WindowOptions {
  /** Most text tokens kept before the position. */
  contextTokens: number;
  /** Tokens scored after the position (the number of non-zero weights, 5 in the paper). */
  span: number;
}

/**
 * Cut the scoring window for a character position `at` of `text`. Prefix and continuation are encoded
 * separately, so the continuation's ids do not depend on how much prefix fits.
 */
export function makeWindow(lm: CausalLM, text: string, at: number, options: WindowOptions): ScoringWindow {
  // Characters are cheaper to cut than tokens; 8 chars per token covers byte-level BPE on English.
  const from = Math.max(0, at - options.contextTokens * 8);
  const prefixAll = lm.encode(text.slice(from, at));
  const prefix = prefixAll.slice(Math.max(0, prefixAll.length - options.contextTokens));
  const next = lm.encode(text.slice(at, at + options.span * 16)).slice(0, options.span);
  const first = text.slice(from, at)[0] ?? text[at] ?? ' ';
  return { prefix, next, separator: /\s/.test(first) ? '' : ' ' };
}

/** A call to score at one window: the texts of e(c, ε) and e(c, r) (see call-syntax.ts). */
export interface CallTexts {
  callOnly: string;
  withResult: string;
  /**
   * τ_min, nats: score L_b only when L_a − L_c ≥ this (two-pass scoring); below it the call's usefulness is at most
   * L_a − L_c < τ_min whatever L_b is, so no consumer of the run needs it. Absent: always score L_b.
   */
  callOnlyFrom?: number;
}

export interface PositionToScore {
  window: ScoringWindow;
  calls: CallTexts[];
}

export interface ScoredPosition<L extends StoredLosses = Losses> {
  /** L_a for this position, nats. */
  noCall: number;
  /** Per call, in input order. */
  losses: L[];
}

export interface ScoreOptions {
  /** Sequences per forward pass. @default 16 */
  batchSize?: number;
  weights?: readonly number[];
  /** After each batch: calls whose losses are all computed (or skipped), of all calls (the web's progress bar). */
  onProgress?: (callsDone: number, callsTotal: number) => void;
}

/** One loss to compute: `callIds` (e(c, ·) and its separator, [] for L_a) as a prefix of `window`. */
export interface LossRequest {
  window: ScoringWindow;
  callIds: readonly number[];
}

/**
 * The weighted loss of each request, nats, in input order. Requests are sorted by length before batching (length
 * bucketing: less padding), then mapped back, so results do not depend on the batch size beyond float rounding.
 * `onBatch` is told after each batch which requests (input indices) it computed.
 */
export async function scoreLosses(
  lm: CausalLM,
  items: readonly LossRequest[],
  options: Pick<ScoreOptions, 'batchSize' | 'weights'> & { onBatch?: (done: readonly number[]) => void } = {},
): Promise<Float64Array> {
  const weights = options.weights ?? PAPER_WEIGHTS;
  const batchSize = options.batchSize ?? 16;
  const bos = lm.bosId === undefined ? [] : [lm.bosId];
  // One request per loss: [bos, callIds, prefix, next]; the loss starts at `from`.
  const requests = items.map(({ window: w, callIds }) => {
    const ids = [...bos, ...callIds, ...w.prefix, ...w.next];
    if (ids.length > lm.maxLength) {
      throw new Error(`scoring sequence of ${ids.length} tokens exceeds the model's ${lm.maxLength}; lower contextTokens`);
    }
    return { ids, from: ids.length - w.next.length };
  });
  const losses = new Float64Array(requests.length);
  const order = requests.map((_, i) => i).sort((a, b) => requests[a].ids.length - requests[b].ids.length || a - b);
  for (let s = 0; s < order.length; s += batchSize) {
    const chunk = order.slice(s, s + batchSize);
    const batch: ScoreRequest[] = chunk.map((i) => ({ ids: requests[i].ids, from: requests[i].from }));
    const results = await lm.score(batch);
    chunk.forEach((i, j) => (losses[i] = weightedLoss(results[j].tokenLogProbs, requests[i].from, weights)));
    options.onBatch?.(chunk);
  }
  return losses;
}

/**
 * Where a call sits when scored: the ids of a call text e(c, ·) scored with a window, and how loss requests of those
 * ids are scored. PREFIX_PLACEMENT is the paper's (this file's header); inline-scoring.ts has the inline one.
 */
export interface Placement {
  callIds(lm: CausalLM, callText: string, window: ScoringWindow): number[];
  losses(lm: CausalLM, items: readonly LossRequest[], options: Pick<ScoreOptions, 'batchSize' | 'weights'> & { onBatch?: (done: readonly number[]) => void }): Promise<Float64Array>;
}

/** The ids of a call text e(c, ·) as a prefix of `window`: the call, then the window's separator. */
const callPrefixIds = (lm: CausalLM, callText: string, window: ScoringWindow) => lm.encode(callText + window.separator);

/** The call as a prefix of the whole text (the paper's footnote 3): requests of any windows, length-bucketed. */
export const PREFIX_PLACEMENT: Placement = { callIds: callPrefixIds, losses: scoreLosses };

/**
 * Score every call at every position, in two passes: L_a (once per position) and each call's L_c first, then L_b
 * only for the calls whose L_a − L_c reaches their `callOnlyFrom` (all calls without one). A skipped L_b leaves the
 * call's losses without `callOnly` (LossesWithoutCallOnly); L_a and L_c are the same numbers either way.
 */
export async function scorePositionsTwoPass(
  lm: CausalLM,
  positions: readonly PositionToScore[],
  options: ScoreOptions = {},
  placement: Placement = PREFIX_PLACEMENT,
): Promise<ScoredPosition<StoredLosses>[]> {
  const encoded = positions.map((p) => ({
    window: p.window,
    calls: p.calls.map((c) => ({ ...c, ids: (text: string) => placement.callIds(lm, text, p.window) })),
  }));
  const callsTotal = positions.reduce((n, p) => n + p.calls.length, 0);
  let callsDone = 0;
  // Pass 1: [L_a, L_c of each call] per position, flattened.
  const first: LossRequest[] = [];
  const firstAt: { noCall: number; withResult: number[] }[] = [];
  for (const p of encoded) {
    firstAt.push({ noCall: first.push({ window: p.window, callIds: [] }) - 1, withResult: [] });
    for (const c of p.calls) firstAt.at(-1)!.withResult.push(first.push({ window: p.window, callIds: c.ids(c.withResult) }) - 1);
  }
  // Which requests complete which calls: a call is done when its L_a and L_c are (and, later, its L_b).
  const needsCallOnly = (noCall: number, withResult: number, c: CallTexts) => c.callOnlyFrom === undefined || noCall - withResult >= c.callOnlyFrom;
  const pass1 = await placement.losses(lm, first, {
    ...options,
    onBatch: () => options.onProgress?.(callsDone, callsTotal),
  });
  // Pass 2: L_b where some consumer may need it.
  const second: LossRequest[] = [];
  const secondAt = encoded.map((p, i) =>
    p.calls.map((c, j) => (needsCallOnly(pass1[firstAt[i].noCall], pass1[firstAt[i].withResult[j]], c) ? second.push({ window: p.window, callIds: c.ids(c.callOnly) }) - 1 : -1)),
  );
  callsDone = secondAt.flat().filter((k) => k < 0).length;
  options.onProgress?.(callsDone, callsTotal);
  const pass2 = await placement.losses(lm, second, {
    ...options,
    onBatch: (done) => options.onProgress?.((callsDone += done.length), callsTotal),
  });
  return encoded.map((p, i) => {
    const noCall = pass1[firstAt[i].noCall];
    return {
      noCall,
      losses: p.calls.map((_, j): StoredLosses => {
        const withResult = pass1[firstAt[i].withResult[j]];
        const k = secondAt[i][j];
        return k < 0 ? { noCall, withResult } : { noCall, callOnly: pass2[k], withResult };
      }),
    };
  });
}

/**
 * L_b of calls whose L_b two-pass scoring skipped, each e(c, ε) in its position's window (`window` as the first scoring
 * planned it): the requests pass 2 would have made for them, so the losses equal a full scoring's up to float
 * rounding of other batch shapes. The web explorer asks for them when its τ_f slider goes below the run's τ_min, and
 * for the user's own call, which it always scores in full.
 */
export function scoreCallOnly(
  lm: CausalLM,
  calls: readonly { window: ScoringWindow; callOnly: string }[],
  options: Pick<ScoreOptions, 'batchSize' | 'weights'> & { onBatch?: (done: readonly number[]) => void } = {},
): Promise<Float64Array> {
  return scoreLosses(lm, calls.map((c) => ({ window: c.window, callIds: callPrefixIds(lm, c.callOnly, c.window) })), options);
}

/** Score L_a, L_b and L_c of every call at every position (scorePositionsTwoPass with no call skipping L_b). */
export async function scorePositions(lm: CausalLM, positions: readonly PositionToScore[], options: ScoreOptions = {}): Promise<ScoredPosition[]> {
  const all = positions.map((p) => ({ window: p.window, calls: p.calls.map(({ callOnly, withResult }) => ({ callOnly, withResult })) }));
  const scored = await scorePositionsTwoPass(lm, all, options);
  return scored.map((p) => ({ noCall: p.noCall, losses: p.losses.filter(hasCallOnly) }));
}
