/**
 * The explorer's "score once, judge many times": from a stored Analysis, decide every candidate for the current
 * τ_s and τ_f without the model. Pure; uses the pipeline's own position selection and judge.
 *
 * Positions were chosen in the worker with τ_s = 0 (top k by p_i). For τ_s ≥ 0 the top k of {p_i > τ_s} is the
 * top k of all positions filtered by p_i > τ_s, so raising τ_s only removes positions: the stored candidates suffice.
 * Heuristic positions do not depend on τ_s (as in the pipeline).
 */
import type { Candidate, Outcome, RejectedBeforeScoring } from '../../pipeline/core/candidates.ts';
import { inlineCalls } from '../../pipeline/core/stages/inline.ts';
import { judgeStored } from '../../pipeline/core/scoring/judge.ts';
import { selectPositions, type PositionScores } from '../../pipeline/core/sampling/positions.ts';
import type { Analysis } from './analysis-types.ts';

export interface Thresholds {
  tauS: number;
  tauF: number;
  /**
   * Apply the counterfactual control (distractor.ts) with these margins per tool, nats (Analysis.controlMargins);
   * absent: no control. A call kept at τ_f whose measured margin is below its tool's is dropped as below_control.
   */
  controlMargins?: Record<string, number | null>;
}

/**
 * A candidate's fate at the page's thresholds: the pipeline's own outcomes (candidates.ts) — a rejection before
 * scoring as the run decided it, or the judge's verdict — plus the two only re-judging has: the position fell below
 * τ_s, or the call was never scored.
 */
export type DecisionOutcome =
  | RejectedBeforeScoring
  | Extract<Outcome, { kind: 'kept' | 'below_tau_f' | 'below_control' }>
  | { kind: 'below_tau_s' }
  | { kind: 'not_scored' }
  // L_b was skipped (L_a − L_c below the analysis' τ_min) and τ_f is at or below that bound: undecided until the worker
  // scores it (fillCallOnly, worker-explorer.ts).
  | { kind: 'needs_call_only' };

export interface Decision {
  candidate: Candidate;
  kept: boolean;
  outcome: DecisionOutcome;
  usefulness?: number;
  /** L_a − L_c when L_b was skipped: the usefulness is at most this. */
  usefulnessAtMost?: number;
}

/** Per tool, the character offsets of the positions chosen at τ_s (LM top-k with p_i > τ_s, plus heuristics). */
export function chosenPositions(analysis: Analysis, tauS: number): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const t of analysis.tools) {
    // selectPositions reads only p and offsets.
    const scores = { p: Float32Array.from(t.p), offsets: analysis.offsets } as unknown as PositionScores;
    const lm = selectPositions(scores, analysis.text, tauS, analysis.k).map((s) => s.at);
    out.set(t.tool, new Set([...lm, ...t.heuristic]));
  }
  return out;
}

/** Outcomes decided before scoring stay as they are: the thresholds cannot change them. */
const decidedBeforeScoring = (o: Outcome): o is RejectedBeforeScoring =>
  o.kind !== 'pending' && o.kind !== 'kept' && o.kind !== 'below_tau_f' && o.kind !== 'below_control';

export function rejudge(analysis: Analysis, thresholds: Thresholds): Decision[] {
  const chosen = chosenPositions(analysis, thresholds.tauS);
  return analysis.candidates.map((candidate) => {
    if (decidedBeforeScoring(candidate.outcome)) return { candidate, kept: false, outcome: candidate.outcome };
    // τ_s applies to the positions of the tool whose prompt chose the position, whatever tool the call names.
    const positions = chosen.get(candidate.positionTool);
    if (positions && !positions.has(candidate.at)) return { candidate, kept: false, outcome: { kind: 'below_tau_s' } };
    if (!candidate.losses) return { candidate, kept: false, outcome: { kind: 'not_scored' } };
    const v = judgeStored(candidate.losses, thresholds.tauF, { measured: candidate.control, margin: thresholds.controlMargins?.[candidate.tool] ?? null });
    if ('usefulnessAtMost' in v) return { candidate, kept: false, outcome: { kind: v.outcome }, usefulnessAtMost: v.usefulnessAtMost };
    return { candidate, kept: v.kept, outcome: { kind: v.outcome }, usefulness: v.usefulness };
  });
}

/**
 * The text with kept calls inlined, x* = x_{1:i−1} e(c, r) x_{i:n}, by the pipeline's own `inlineCalls` (the most
 * useful call per position). Returned as pieces, so the page can mark the calls. `format` renders e(c, r).
 */
export function inlineKept(
  text: string,
  decisions: readonly Decision[],
  format: (c: Candidate) => string,
): { text: string; call: boolean }[] {
  const kept = decisions.filter((d) => d.kept).map((d) => ({ ...d.candidate, usefulness: d.usefulness }));
  const inlined = inlineCalls(text, kept, format);
  const pieces: { text: string; call: boolean }[] = [];
  let from = 0;
  for (const c of inlined.calls) {
    // inlineCalls writes " " + e(c, r) at inlinedAt.
    const end = c.inlinedAt + 1 + format({ ...kept[0], tool: c.tool, input: c.input, result: c.result }).length;
    pieces.push({ text: inlined.text.slice(from, c.inlinedAt), call: false });
    pieces.push({ text: inlined.text.slice(c.inlinedAt, end), call: true });
    from = end;
  }
  pieces.push({ text: inlined.text.slice(from), call: false });
  return pieces.filter((p) => p.text !== '');
}
