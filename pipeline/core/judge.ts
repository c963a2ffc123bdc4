import type { Losses } from './losses.ts';

/**
 * The filter: keep a call when L⁻ − L⁺ ≥ τ_f, with L⁻ = min(L_a, L_b) and L⁺ = L_c.
 * Pure: a function of stored losses and a threshold, so the CLI's stats and the web sliders re-judge
 * without running the model ("score once, judge many times").
 */
export function usefulness(losses: Losses): number {
  return Math.min(losses.noCall, losses.callOnly) - losses.withResult;
}

export interface Verdict {
  kept: boolean;
  /** min(L_a, L_b) − L_c, nats. */
  usefulness: number;
  /** Machine-readable: "kept" or "below_tau_f". */
  reason: 'kept' | 'below_tau_f';
}

export function judge(losses: Losses, tauF: number): Verdict {
  const u = usefulness(losses);
  const kept = u >= tauF;
  return { kept, usefulness: u, reason: kept ? 'kept' : 'below_tau_f' };
}

/** How many of the given usefulness values survive each threshold (the survival curve). */
export function survival(usefulnessValues: readonly number[], thresholds: readonly number[]): { tauF: number; kept: number }[] {
  return thresholds.map((tauF) => ({ tauF, kept: usefulnessValues.filter((u) => u >= tauF).length }));
}
