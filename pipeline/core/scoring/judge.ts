import { type ControlLoss, hasCallOnly, type StoredLosses, usefulnessBound } from '../candidates.ts';
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
  /** The candidate's outcome (candidates.ts): "kept", "below_tau_f" or "below_control". */
  outcome: 'kept' | 'below_tau_f' | 'below_control';
}

/**
 * The counterfactual control on top of τ_f (distractor.ts): `measured` is the call's stored margin over its
 * distractor, `margin` the nats it must reach (null: the run has no control). A call without a measurement is judged
 * by τ_f alone.
 */
export interface Control {
  measured?: ControlLoss;
  margin: number | null;
}

export function judge(losses: Losses, tauF: number, control?: Control): Verdict {
  const u = usefulness(losses);
  if (u < tauF) return { kept: false, usefulness: u, outcome: 'below_tau_f' };
  if (control?.measured && control.margin !== null && control.measured.margin < control.margin) {
    return { kept: false, usefulness: u, outcome: 'below_control' };
  }
  return { kept: true, usefulness: u, outcome: 'kept' };
}

/**
 * The verdict from stored losses, which may lack L_b (two-pass scoring): without it a call whose bound
 * L_a − L_c is below τ_f is below_tau_f exactly (usefulness ≤ bound < τ_f); one whose bound reaches τ_f cannot be
 * judged without L_b — `needsCallOnly` (a threshold below the run's τ_min; the web explorer scores L_b then).
 */
export type StoredVerdict =
  | Verdict
  | { kept: false; usefulnessAtMost: number; outcome: 'below_tau_f' }
  | { kept: false; usefulnessAtMost: number; outcome: 'needs_call_only' };

export function judgeStored(losses: StoredLosses, tauF: number, control?: Control): StoredVerdict {
  if (hasCallOnly(losses)) return judge(losses, tauF, control);
  const bound = usefulnessBound(losses);
  if (bound < tauF) return { kept: false, usefulnessAtMost: bound, outcome: 'below_tau_f' };
  return { kept: false, usefulnessAtMost: bound, outcome: 'needs_call_only' };
}

/** How many of the given usefulness values survive each threshold (the survival curve). */
export function survival(usefulnessValues: readonly number[], thresholds: readonly number[]): { tauF: number; kept: number }[] {
  return thresholds.map((tauF) => ({ tauF, kept: usefulnessValues.filter((u) => u >= tauF).length }));
}
