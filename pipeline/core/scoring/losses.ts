/**
 * The paper's weighted losses (Schick et al., 2023, §2 "Filtering API Calls").
 *
 *   L_i(z) = −Σ_{j=i..n} w_{j−i} · log p_M(x_j | z, x_{1:j−1})
 *
 * with w_t = w̃_t / Σ_s w̃_s and w̃_t = max(0, 1 − 0.2·t): five non-zero weights 1, .8, .6, .4, .2 → /3 →
 * .333 .267 .2 .133 .067, so a loss is in nats of a weighted average over the next five tokens.
 *
 * This file is the ONE place where the paper's L_a, L_b, L_c are mapped to names:
 *   L_a = L_i(ε)          → `noCall`      (no API call at all)
 *   L_b = L_i(e(c, ε))    → `callOnly`    (the call, with an empty result)
 *   L_c = L_i(e(c, r))    → `withResult`  (the call and its result; the paper's L⁺)
 */
// The record (three numbers per candidate) lives with the candidate it is stored on, on core's lowest floor.
import type { Losses } from '../candidates.ts';
export type { Losses };

/** Paper-style losses, named as the paper writes them, for display and docs. */
export const paperNames: Record<keyof Losses, string> = { noCall: 'L_a', callOnly: 'L_b', withResult: 'L_c' };

/**
 * Normalised weights w_t, t = 0..n−1, for w̃_t = max(0, 1 − decay·t).
 * Only the non-zero prefix is returned (5 weights for the paper's decay 0.2).
 */
export function lossWeights(decay = 0.2): number[] {
  const raw: number[] = [];
  for (let t = 0; 1 - decay * t > 1e-12; t++) raw.push(1 - decay * t);
  const sum = raw.reduce((a, b) => a + b, 0);
  return raw.map((w) => w / sum);
}

/** The paper's weights (decay 0.2), computed once. */
export const PAPER_WEIGHTS: readonly number[] = Object.freeze(lossWeights(0.2));

/**
 * L_i for one scored sequence: −Σ_t w_t · logp[from + t], over the tokens that exist.
 * A text that ends before all weights are used simply contributes fewer terms, as in the paper's
 * sum up to n (the weights are not renormalised, so L_a, L_b, L_c of one position stay comparable).
 *
 * @param tokenLogProbs [len] log p(ids[t] | ids[<t]), nats (CausalLM.score's `tokenLogProbs`).
 * @param from index of x_i, the first token after the call position, in that sequence.
 */
export function weightedLoss(
  tokenLogProbs: ArrayLike<number>,
  from: number,
  weights: readonly number[] = PAPER_WEIGHTS,
): number {
  let loss = 0;
  for (let t = 0; t < weights.length && from + t < tokenLogProbs.length; t++) {
    loss -= weights[t] * tokenLogProbs[from + t];
  }
  return loss;
}
