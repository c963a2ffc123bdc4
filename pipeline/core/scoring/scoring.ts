import type { CausalLM, ScoreRequest } from '../lm/lm.ts';
import { type Losses, PAPER_WEIGHTS, weightedLoss } from './losses.ts';

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
}

export interface PositionToScore {
  window: ScoringWindow;
  calls: CallTexts[];
}

export interface ScoredPosition {
  /** L_a for this position, nats. */
  noCall: number;
  /** Per call, in input order. */
  losses: Losses[];
}

export interface ScoreOptions {
  /** Sequences per forward pass. @default 16 */
  batchSize?: number;
  weights?: readonly number[];
  /** After each batch: calls whose three losses are all computed, of all calls (the web's progress bar). */
  onProgress?: (callsDone: number, callsTotal: number) => void;
}

/**
 * Score every call at every position. Requests are sorted by length before batching (length bucketing:
 * less padding), then mapped back, so results do not depend on the batch size beyond float rounding.
 */
export async function scorePositions(
  lm: CausalLM,
  positions: readonly PositionToScore[],
  options: ScoreOptions = {},
): Promise<ScoredPosition[]> {
  const weights = options.weights ?? PAPER_WEIGHTS;
  const batchSize = options.batchSize ?? 16;
  const bos = lm.bosId === undefined ? [] : [lm.bosId];

  // One request per loss: [bos, callIds, prefix, next]; the loss starts at `from`.
  const requests: { ids: number[]; from: number }[] = [];
  const index: { noCall: number; calls: { callOnly: number; withResult: number }[] }[] = [];
  const add = (callIds: readonly number[], w: ScoringWindow): number => {
    const ids = [...bos, ...callIds, ...w.prefix, ...w.next];
    if (ids.length > lm.maxLength) {
      throw new Error(`scoring sequence of ${ids.length} tokens exceeds the model's ${lm.maxLength}; lower contextTokens`);
    }
    requests.push({ ids, from: ids.length - w.next.length });
    return requests.length - 1;
  };
  for (const p of positions) {
    index.push({
      noCall: add([], p.window),
      calls: p.calls.map((c) => ({
        callOnly: add(lm.encode(c.callOnly + p.window.separator), p.window),
        withResult: add(lm.encode(c.withResult + p.window.separator), p.window),
      })),
    });
  }

  const losses = new Float64Array(requests.length);
  const computed = new Uint8Array(requests.length);
  const callsTotal = index.reduce((n, p) => n + p.calls.length, 0);
  const callsDone = () => index.reduce((n, p) => n + (computed[p.noCall] ? p.calls.filter((c) => computed[c.callOnly] && computed[c.withResult]).length : 0), 0);
  const order = requests.map((_, i) => i).sort((a, b) => requests[a].ids.length - requests[b].ids.length || a - b);
  for (let s = 0; s < order.length; s += batchSize) {
    const chunk = order.slice(s, s + batchSize);
    const batch: ScoreRequest[] = chunk.map((i) => ({ ids: requests[i].ids, from: requests[i].from }));
    const results = await lm.score(batch);
    chunk.forEach((i, j) => {
      losses[i] = weightedLoss(results[j].tokenLogProbs, requests[i].from, weights);
      computed[i] = 1;
    });
    options.onProgress?.(callsDone(), callsTotal);
  }

  return index.map((p) => ({
    noCall: losses[p.noCall],
    losses: p.calls.map((c) => ({ noCall: losses[p.noCall], callOnly: losses[c.callOnly], withResult: losses[c.withResult] })),
  }));
}
