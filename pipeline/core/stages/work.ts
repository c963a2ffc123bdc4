import type { RankedTool } from '../retrieval/retriever.ts';
import type { SearchSpan } from './search-budget.ts';
import type { Candidate } from '../candidates.ts';
import type { Doc } from '../document.ts';
import type { CausalLM } from '../lm/lm.ts';
import type { PositionScores, SelectedPosition } from '../sampling/positions.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { ToolCall, ToolResult } from '../tools/tool.ts';

/**
 * The pipeline as a list of stages, each a function from an async stream of documents to a stream
 * (datatrove-style). A document's work travels as a `DocWork`; every candidate keeps a reason.
 *
 *   prefilter → propose (positions + LM samples + programmatic) → guard (registry, leakage, duplicates)
 *   → execute → score → judge
 */
export interface DocWork {
  doc: Doc;
  /**
   * The part of the text the search looks at (config.maxDocTokens, search-budget.ts): pre-filters, p_i, heuristic
   * positions and proposals see `doc.text.slice(0, searched.end)`; everything written out has the whole text.
   */
  searched: SearchSpan;
  /** Tools whose pre-filter passed, in config order. */
  tools: string[];
  /** Per tool, why the pre-filter dropped the document (absent when it passed). */
  skipped: Record<string, string>;
  /** Per tool, the pre-filter's short reason for the drop (what stats.json counts). */
  skippedKind: Record<string, string>;
  /** With tool retrieval (config.toolRetrieval): the tools retrieved for the searched text, best first, and scores. */
  retrieved?: RankedTool[];
  /** Per tool that passed its pre-filter: p_i over the text and the positions chosen (for display and re-judging). */
  positions: Record<string, ToolPositions>;
  candidates: Candidate[];
}

export interface ToolPositions {
  scores: PositionScores;
  /** Top-k positions with p_i > τ_s. */
  lm: SelectedPosition[];
  /** Heuristic positions (char offsets), spread over the document. */
  heuristic: number[];
}

export type Stage = (input: AsyncIterable<DocWork>) => AsyncIterable<DocWork>;

/**
 * Everything the stages need from outside, passed in (the core never constructs platform pieces). The stages know
 * tools only through the registry's specs: prompt, pre-filter, positions, proposer, leakage rule, schema, runner.
 */
export interface PipelineParts {
  lm: CausalLM;
  /** The tools; dispatch only through it: a name it does not know is rejected, arguments are schema-checked. */
  registry: ToolRegistry;
  /** Runs calls with bounded concurrency and a timeout; results in input order, never throws. */
  execute(calls: readonly { call: ToolCall; doc: Doc }[]): Promise<ToolResult[]>;
  /** Positions always considered for a tool, beside the capped heuristic ones (the web explorer's own call). */
  pinnedPositions?(tool: string): number[];
  /**
   * Tool retrieval (config.toolRetrieval): the k tools to try on a text, ranked. A tool without a pre-filter that is
   * not among them skips the document (`not_retrieved`); a tool with a pre-filter keeps its own verdict.
   */
  retrieveTools?(text: string): Promise<RankedTool[]>;
  /** Told as a document's work goes on (the web explorer's progress line); never changes what the stages do. */
  progress?(step: StageProgress): void;
}

/**
 * How far one document is: `done` of `total` units of a stage — tools whose p_i is computed (positions), LM-sampled
 * positions (sampling), tool calls (executing), calls with all three losses (scoring), calls checked against a
 * distractor (control).
 */
export interface StageProgress {
  stage: 'positions' | 'sampling' | 'executing' | 'scoring' | 'control';
  done: number;
  total: number;
  /** The tool whose positions or samples these are (positions, sampling). */
  tool?: string;
}

