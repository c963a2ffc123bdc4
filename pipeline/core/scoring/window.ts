import type { CausalLM } from '../lm/lm.ts';
import { PAPER_WEIGHTS } from './losses.ts';
import { makeWindow, type ScoringWindow } from './scoring.ts';

/**
 * The one scoring-window plan, used by every caller (the score stage, `toolformer score`, the web golden cases, the
 * bench workload): how much text before position i fits beside the longest call, so that every scored sequence
 * `[bos] e(c, r) x_{i−c…i−1} | x_i … x_{i+span−1}` fits the model's positions. L_a, L_b and L_c of a position share
 * the context, so they stay comparable.
 *
 *   context = min(contextTokens, maxLength − 1 ([bos]) − (longest e(c, r) + 1 for the separator) − span)
 */
export interface WindowPlanOptions {
  /** Most text tokens kept before the position (the run's `contextTokens`). */
  contextTokens: number;
  /** Tokens scored after the position. @default 5, the paper's non-zero weights */
  span?: number;
}

export interface WindowPlan {
  window: ScoringWindow;
  /** Text tokens of context the window was cut to. */
  contextTokens: number;
}

/** Tokens the longest call text takes in front of the window: its own tokens and one for the separator. */
export function callTokens(lm: CausalLM, callTexts: readonly string[]): number {
  return Math.max(0, ...callTexts.map((t) => lm.encode(t).length + 1));
}

/** Context tokens left beside calls of `callTokens` tokens (< 1: no room to score). */
export function contextRoom(lm: CausalLM, callTokensNeeded: number, options: WindowPlanOptions): number {
  const span = options.span ?? PAPER_WEIGHTS.length;
  // One position for [bos], reserved even for a model without one.
  return Math.min(options.contextTokens, lm.maxLength - 1 - span - callTokensNeeded);
}

/**
 * The window at character offset `at` of `text` for calls whose longest text e(c, r) is among `calls` (or takes
 * `calls` tokens, from `callTokens`); null when the calls leave no room for context.
 */
export function planWindow(
  lm: CausalLM,
  text: string,
  at: number,
  calls: readonly string[] | number,
  options: WindowPlanOptions,
): WindowPlan | null {
  const longest = typeof calls === 'number' ? calls : callTokens(lm, calls);
  const contextTokens = contextRoom(lm, longest, options);
  if (contextTokens < 1) return null;
  const span = options.span ?? PAPER_WEIGHTS.length;
  return { window: makeWindow(lm, text, at, { contextTokens, span }), contextTokens };
}
