/**
 * Held-out corpus loss without calls (issue 20: the paper's perplexity check, Table 8): mean negative log-likelihood
 * in nats/token of held-out documents, scored in windows of the model's context (`<|endoftext|>` first, as in
 * training), every window's mean kept so that two models can be compared window by window (paired).
 */
import type { CausalLM } from '../../core/lm/lm.ts';
import { mulberry32 } from '../../random/mulberry32.ts';

/** Token windows of at most maxLength − 1 text tokens, cut from the texts, seeded-shuffled, ≥ `tokens` in all. */
export function lossWindows(lm: Pick<CausalLM, 'encode' | 'maxLength'>, texts: readonly string[], tokens: number, seed = 5): number[][] {
  const len = lm.maxLength - 1;
  const all: number[][] = [];
  for (const t of texts) {
    const ids = lm.encode(t);
    for (let i = 0; i + 16 <= ids.length; i += len) all.push(ids.slice(i, i + len));
  }
  const rng = mulberry32(seed);
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [all[i], all[j]] = [all[j], all[i]];
  }
  const out: number[][] = [];
  let n = 0;
  for (const w of all) {
    if (n >= tokens) break;
    out.push(w);
    n += w.length;
  }
  if (n < tokens) throw new Error(`held-out loss: only ${n} tokens in the held-out texts, ${tokens} wanted`);
  return out;
}

export interface LossResult {
  tokens: number;
  windows: number;
  /** Mean NLL over all scored tokens (nats/token). */
  meanNll: number;
  /** Per window: mean NLL of its tokens. */
  perWindow: number[];
}

export async function heldOutLoss(lm: CausalLM, windows: readonly number[][], batch = 16): Promise<LossResult> {
  const bos = lm.bosId;
  const perWindow: number[] = [];
  let sum = 0;
  let n = 0;
  for (let i = 0; i < windows.length; i += batch) {
    const reqs = windows.slice(i, i + batch).map((w) => ({ ids: bos === undefined ? w : [bos, ...w] }));
    const res = await lm.score(reqs);
    res.forEach((r, j) => {
      const from = 1; // index 0 (bos, or the first token when there is none) has no prediction
      let s = 0;
      for (let t = from; t < reqs[j].ids.length; t++) s -= r.tokenLogProbs[t];
      const k = reqs[j].ids.length - from;
      perWindow.push(s / k);
      sum += s;
      n += k;
    });
  }
  return { tokens: n, windows: windows.length, meanNll: sum / n, perWindow };
}
