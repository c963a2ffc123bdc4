/** The paper's three losses of one call (scoring/losses.ts computes them; its header maps L_a, L_b, L_c to these names). */
export interface Losses {
  /** L_a, nats: the text alone. */
  noCall: number;
  /** L_b, nats: the call without its result as a prefix. */
  callOnly: number;
  /** L_c, nats: the call with its result as a prefix. */
  withResult: number;
}

/**
 * L_a and L_c of a call whose L_b two-pass scoring skipped (scoring.ts): L_a − L_c was below τ_min, the lowest
 * threshold any consumer of the run asked for, and since min(L_a, L_b) ≤ L_a the usefulness is at most L_a − L_c
 * (`usefulnessBound`), below every such threshold whatever L_b is. calls.jsonl writes it without `callOnly`.
 */
export interface LossesWithoutCallOnly {
  noCall: number;
  callOnly?: undefined;
  withResult: number;
}

/** What scoring stores on a candidate: all three losses, or L_a and L_c when L_b could not matter. */
export type StoredLosses = Losses | LossesWithoutCallOnly;

/** Whether L_b was scored (the exact usefulness is known). */
export const hasCallOnly = (l: StoredLosses): l is Losses => l.callOnly !== undefined;

/** An upper bound on min(L_a, L_b) − L_c from L_a and L_c alone, nats: exact when L_b ≥ L_a. */
export const usefulnessBound = (l: StoredLosses): number => l.noCall - l.withResult;

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
  losses?: StoredLosses;
  /** min(L_a, L_b) − L_c, nats, when all three losses were scored. */
  usefulness?: number;
  /** L_a − L_c, nats, when L_b was skipped (LossesWithoutCallOnly): the usefulness is at most this, below τ_min. */
  usefulnessAtMost?: number;
  /** The counterfactual control's measurement (distractor.ts), when the run used one and the call reached τ_f. */
  control?: ControlLoss;
  /** Its fate so far: `pending` until a stage rejects it or the judge decides (calls.jsonl writes it as `kept`, `reason`). */
  outcome: Outcome;
}

/**
 * A candidate's fate, one discriminated union shared by the stages that decide it, the stats that count it, the web
 * explorer's re-judging and the run files (which write it as `reasonText(outcome)`). `detail` is free text for the
 * reader (the tool's error, the schema's complaint), never read back: every decision goes by `kind`.
 */
export type Outcome =
  | { kind: 'pending' }
  | { kind: 'kept' }
  | { kind: 'below_tau_f' }
  | { kind: 'below_control' }
  | { kind: 'unclosed_call' }
  | { kind: 'parse_error'; detail: string }
  | { kind: 'unknown_tool'; detail: string }
  | { kind: 'schema_error'; detail: string }
  | { kind: 'leakage'; detail: string }
  | { kind: 'duplicate' }
  | { kind: 'tool_error'; detail: string }
  | { kind: 'call_too_long' };

export type OutcomeKind = Outcome['kind'];

/** The outcomes decided before scoring: no threshold can change them. */
export type RejectedBeforeScoring = Exclude<Outcome, { kind: 'pending' | 'kept' | 'below_tau_f' | 'below_control' }>;

/** How calls.jsonl writes an outcome: its kind, then ": " and the detail when it has one ("tool_error: division by zero"). */
export function reasonText(outcome: { kind: string; detail?: string }): string {
  return outcome.detail === undefined ? outcome.kind : `${outcome.kind}: ${outcome.detail}`;
}

/** Whether the judge kept the candidate. */
export const isKept = (c: Pick<Candidate, 'outcome'>) => c.outcome.kind === 'kept';

/** Whether no stage has decided the candidate yet. */
export const isPending = (c: Pick<Candidate, 'outcome'>) => c.outcome.kind === 'pending';
