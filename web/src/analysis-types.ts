/** Shapes exchanged between the explorer and the worker. Losses are nats; positions are token indices into `tokens`. */
import type { Losses } from '../../pipeline/core/losses.ts';

export interface AnalyzeParams {
  text: string;
  /** Tool names as in the registry, e.g. ["Calculator", "QA"]. */
  tools: string[];
  /** Positions kept per tool (top k by p_i; τ_s is applied on the page). */
  k: number;
  /** Calls sampled from the LM per position. */
  m: number;
  seed: number;
  /** ISO date for the Calendar tool's "today". */
  date?: string;
}

export interface Token {
  text: string;
  /** Character offset of the token's first character in the text. */
  start: number;
}

export interface ToolPositions {
  tool: string;
  /** [tokens.length] p_i = p(" [" | P(x), x_{<i}), the probability of starting a call before token i. */
  p: number[];
  /** Token indices of the top-k positions by p_i, highest first (before τ_s). */
  top: number[];
}

export interface Candidate {
  tool: string;
  input: string;
  /** Token index i: the call sits before tokens[i]. */
  position: number;
  /** p_i at that position, for the τ_s check on the page. */
  p: number;
  /** Where the call came from: sampled from the LM or enumerated by the tool's proposer. */
  source: 'lm' | 'proposer';
  result?: string;
  error?: string;
  /** Absent when the tool gave no result (nothing to score). */
  losses?: Losses;
}

export interface Analysis {
  tokens: Token[];
  positions: ToolPositions[];
  candidates: Candidate[];
  /** Calls sampled that never closed with "]" (dropped, as in the paper). */
  unclosed: number;
  ms: number;
}

export interface GoldenCase {
  text: string;
  /** Formatted call text without result, e.g. `[Calculator(400 / 1400)]`'s tool and input. */
  tool: string;
  input: string;
  result: string;
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
