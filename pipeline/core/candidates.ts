import type { Losses } from './scoring/losses.ts';

/**
 * The counterfactual control's measurement for one call (scoring/distractor.ts measures it), stored on the candidate
 * (calls.jsonl) so judging stays pure.
 */
export interface ControlLoss {
  /** The distractor result scored in place of the true one. */
  distractor: string;
  /** L_c(distractor) − L_c(true result), nats, both in one window: how much better the true result predicts. */
  margin: number;
}

/**
 * One candidate call, from proposal to verdict: a line of calls.jsonl. Rejected candidates keep their
 * reason, so nothing a run considered is lost.
 */
export interface Candidate {
  docId: string;
  /** The tool the call names (for an LM sample: whatever the LM wrote, known or not). */
  tool: string;
  /** The tool whose prompt (p_i, LM samples) or proposer chose the position; stats and τ_s re-judging go by it. */
  positionTool: string;
  /** The argument, unquoted (see call-syntax.ts). */
  input: string;
  /** Character offset in the document where the call is inserted. */
  at: number;
  /** Who proposed the call: sampled by the LM from the tool's prompt, or enumerated by a programmatic proposer. */
  proposer: 'lm' | 'programmatic';
  /** p_i(" [") at the position under the tool's prompt, when the LM scored it. */
  positionP?: number;
  /** The LM's sampled text between " [" and "]", for LM proposals. */
  raw?: string;
  result?: string;
  error?: string;
  losses?: Losses;
  usefulness?: number;
  /** The counterfactual control's measurement (distractor.ts), when the run used one and the call reached τ_f. */
  control?: ControlLoss;
  kept: boolean;
  reason: Reason;
}

/**
 * Why a candidate was kept or dropped: "kept", "below_tau_f", or a rejection before scoring.
 * Free text after ": " gives detail (e.g. "tool_error: division by zero").
 */
export type Reason =
  | 'kept'
  | 'below_tau_f'
  | 'below_control'
  | 'pending'
  | `unclosed_call`
  | `parse_error: ${string}`
  | `unknown_tool: ${string}`
  | `schema_error: ${string}`
  | `leakage: ${string}`
  | 'duplicate'
  | `tool_error: ${string}`
  | `call_too_long`;

/** The reason's category (the part before ": "), for counters. */
export function reasonKind(reason: Reason): string {
  const i = reason.indexOf(':');
  return i < 0 ? reason : reason.slice(0, i);
}
