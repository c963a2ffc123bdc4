/** Shapes exchanged between the explorer and the worker. Losses are nats; positions are token indices into `tokens`. */
import type { Candidate } from '../../pipeline/core/candidates.ts';
import type { Losses } from '../../pipeline/core/scoring/losses.ts';

/**
 * The τ_f slider's lowest value, nats; an analysis asked for without a τ_min is scored down to it (every call the slider
 * can keep has its exact L_b).
 */
export const TAU_F_SLIDER_MIN = -5;

export interface AnalyzeParams {
  text: string;
  /** Tool names as in the registry, e.g. Calculator, QA. */
  tools: string[];
  /** Positions kept per tool (top k by p_i; τ_s is applied on the page). */
  k: number;
  /** Calls sampled from the LM per position. */
  m: number;
  seed: number;
  /** ISO date for the Calendar tool's "today". */
  date?: string;
  /** The user's own call, proposed at its character offset beside the pipeline's proposals. */
  own?: { tool: string; input: string; at: number };
  /**
   * What the LM's positions and samples condition on (core/sampling/lm-context.ts): each tool's prompt P(x), or the
   * bare text before the position, for a model finetuned on calls (a round's model). @default "prompt"
   */
  lmContext?: 'prompt' | 'bare';
  /** Heuristic positions and programmatic proposers; false: every call is the LM's own. @default true */
  programmatic?: boolean;
  /**
   * τ_min, nats: two-pass scoring (pipeline/core/scoring/scoring.ts) scores L_b only where L_a − L_c ≥ τ_min; below it a
   * call's usefulness is only bounded (the own call's excepted: it is scored in full), and a τ_f below τ_min needs a
   * `fillCallOnly` job first. The page sends its τ_f slider's value. @default TAU_F_SLIDER_MIN
   */
  tauMin?: number;
  /**
   * Stop each LM sample once it can no longer parse as a call (config stopUnparsableSamples): the same calls, and the
   * same rejections sooner (an unparsable sample shows its text up to the cut, as unclosed_call). @default true
   */
  stopUnparsable?: boolean;
}

/** Lower a stored analysis' τ_min (the worker scores the missing L_b, then the control and judge for those calls). */
export interface FillParams {
  analysis: Analysis;
  /** The new τ_min, nats, below `analysis.tauMin`. */
  tauMin: number;
}

export interface FillResult {
  tauMin: number;
  /** The candidates whose losses, control or verdict changed, by index in `analysis.candidates`. */
  updates: { index: number; candidate: Candidate }[];
  /** How many L_b were scored: the calls whose bound L_a − L_c reaches the new τ_min and had none. */
  callOnlyScored: number;
  ms: number;
}


/** p_i for one tool over the text's tokens, and the tool's heuristic positions (not subject to τ_s). */
export interface ToolScores {
  tool: string;
  /** [tokens.length] p_i = p(" [" | P(x), x_{<i}): probability of starting a call before token i. */
  p: number[];
  /** Character offsets of heuristic positions (before numbers, dates, entities). */
  heuristic: number[];
}

/**
 * One explorer run: everything the page needs to re-judge for any τ_s ≤ the positions' p and any τ_f ≥ τ_min without
 * the model. Candidates come from the pipeline's own stages (pipeline/core/stages/stages.ts) run with τ_s = 0 and τ_f = τ_min.
 */
export interface Analysis {
  text: string;
  /** Decoded tokens of the text and where each starts; offsets has one more entry (the text length). */
  tokens: string[];
  offsets: number[];
  tools: ToolScores[];
  /** Each tool's argument syntax, to format calls on the page as the pipeline does. */
  syntax: Record<string, 'quoted' | 'raw' | 'none'>;
  candidates: Candidate[];
  /** Tools whose document pre-filter (paper App. A.1) rejected the text, with the reason. */
  skipped: Record<string, string>;
  /** Index in `candidates` of the user's own call, −1 when none. */
  ownIndex: number;
  /** The k the positions were chosen with (top k by p_i per tool). */
  k: number;
  /**
   * Per tool, the counterfactual control's margin in nats that the pipeline's defaults use (distractor.ts; QA has
   * its own); each scored call's measured margin is on the candidate (`control`).
   */
  controlMargins: Record<string, number | null>;
  /** The τ_min the candidates are scored down to (AnalyzeParams.tauMin, lowered by fillCallOnly jobs), nats. */
  tauMin: number;
  ms: number;
}

export interface GoldenCase {
  text: string;
  /** Formatted call text without result, e.g. `[Calculator(400 / 1400)]`'s tool and input. */
  tool: string;
  input: string;
  result: string;
  /** The tool's argument syntax is quoted (QA("…")). */
  quoted: boolean;
  /** Character offset in `text` where the call is placed. */
  at: number;
}

export interface GoldenResult {
  losses: Losses;
}

export interface BenchResult {
  backend: string;
  /** Teacher-forced scoring throughput (CausalLM.score), tokens/s. */
  scoreTokensPerSecond: number;
  /** Raw forward pass throughput of the session, tokens/s. */
  forwardTokensPerSecond: number;
  batch: number;
  length: number;
  repeats: number;
}
