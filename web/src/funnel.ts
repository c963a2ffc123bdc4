/**
 * The explorer's one count story, from the candidates of an analysis re-judged at the current settings:
 * proposed (every candidate call) → executed (its tool ran: a result or a tool error) → scored (L_a and L_c; L_b
 * too unless two-pass scoring could skip it) → kept (at τ_s, τ_f and the control). The status line, the scatter's
 * legend and the tables' headings all count with it, so one run has one set of denominators.
 */
import type { Decision } from './rejudge.ts';

export interface Funnel {
  proposed: number;
  executed: number;
  scored: number;
  kept: number;
}

export const isExecuted = (d: Decision): boolean => d.candidate.losses !== undefined || d.candidate.error !== undefined;

export function funnel(decisions: readonly Decision[]): Funnel {
  return {
    proposed: decisions.length,
    executed: decisions.filter(isExecuted).length,
    scored: decisions.filter((d) => d.candidate.losses !== undefined).length,
    kept: decisions.filter((d) => d.kept).length,
  };
}

/** "80 proposed → 50 executed → 50 scored → 2 kept" */
export const funnelText = (f: Funnel): string => `${f.proposed} proposed → ${f.executed} executed → ${f.scored} scored → ${f.kept} kept`;
