import type { Doc } from '../document.ts';
import type { ToolPrompt } from './prompts.ts';
import type { ToolContext, ToolResult } from './tool.ts';

/**
 * A tool is one folder, `pipeline/core/tools/<name>/`, whose `index.ts` exports one `ToolSpec`: everything the
 * pipeline knows about the tool. The registry (registry.ts) lists the specs; stages, config, CLI, stats and the web
 * app loop over them and never name a tool.
 *
 * Required: what a call is (name, description, JSON Schema, call syntax), how it runs, how the LM is asked for it
 * (prompt) and the paper's thresholds. Optional: the pre-filter, heuristic positions, leakage rule and programmatic
 * proposer — each with a stated default when absent (no pre-filter: every document passes; no positions: only the
 * LM's; no leakage rule: every word of the argument must appear before the call; no proposer: only LM samples).
 */
export interface ToolSpec {
  /** As written in call text, `[Calculator(2 + 3) -> 5]`: letters, digits, "_", starting with a letter. */
  readonly name: string;
  /** One line, for prompts, `toolformer tools`, the README and the web app. */
  readonly description: string;
  /**
   * JSON Schema of the arguments object (an object schema, as OpenAI function calling and MCP `inputSchema` want).
   * The call syntax has one positional argument, which fills `argument.property`; a call is validated against this
   * schema before dispatch, and a failure is the candidate's reason `schema_error: …`.
   */
  readonly parameters: ObjectSchema;
  /** How the argument is written in call text. */
  readonly argument: ArgumentSyntax;
  /**
   * The runnable tool, built once per pipeline from what the platform passes in (`resources`: the Node CLI and the
   * web app pass `kb`, `translationEngine`, `languageDetector`; a tool reads only its own keys). `run` must not throw
   * for bad input (return `{ ok: false, error }`), must not touch files, network or `eval`, and should honour
   * `context.signal`.
   */
  create(resources: ToolResources): ToolRunner;
  /**
   * The result as the text around the call would write it, from the text before the call only (`prefix`): the
   * Calculator's `82487.3` becomes `$82,487.30` after "$343,697 … $261,209.70" — a result helps predict the next
   * tokens only in the text's own form. Applied to each candidate after its call ran (results are cached per
   * document, styles are per position). @default the result as is
   */
  styleResult?(result: string, input: string, prefix: string): string;
  /**
   * Other writings of a result worth scoring when the text before the call cannot tell which one the text uses
   * (QA: "Dublin" and "DUBLIN"; the Factbook writes capitals in upper case in some fields). Each becomes a candidate
   * of its own beside the first; the loss filter keeps the writing that helps. @default none
   */
  resultForms?(result: string): string[];
  /**
   * Whether `result` states the same answer as `expected`, a hand label's result (pipeline/eval/data-quality/): the
   * Calculator compares numbers at the label's precision, QA accepts an answer that begins with the label's.
   * @default equal after folding case, accents and punctuation (text/compare.ts `foldText`)
   */
  sameResult?(result: string, expected: string): boolean;
  /** How a result is written into call text, `[Tool(args) -> <here>]` (before escaping). @default the result as is */
  formatResult?(result: string): string;
  /** P(x): the prompt variants the LM is asked with (tools/prompts.ts `paperPrompt`). */
  readonly prompt: ToolPrompt;
  /** The paper's per-tool τ_s, τ_f, k, m (App. A). */
  readonly thresholds: ToolThresholds;
  /** Document pre-filter (paper App. A.1). The verdict's `kind` is the short reason counted in stats.json. */
  prefilter?(doc: Doc): PrefilterVerdict;
  /** Heuristic positions (character offsets) where this tool's result would plausibly help. */
  positions?(text: string): number[];
  /** The reason `input` uses text after its position (`prefix` is the text before it), or null. */
  leaks?(input: string, prefix: string): string | null;
  /** Arguments to call with at `at`, from `prefix = doc.text.slice(0, at)` only; at most MAX_PROPOSALS. */
  propose?(prefix: string, doc: Doc, at: number): string[];
  /** Worked examples (text, position, call, result): README, golden losses, `toolformer tools`. */
  readonly examples?: readonly ToolExample[];
  /**
   * A catalog tool's documentation beyond its description (mathjs's own: category, syntax, examples, see-also): what
   * the tool retriever indexes (pipeline/core/retrieval/). @default none
   */
  readonly documentation?: ToolDocumentation;
  /** Where the tool runs when it is not one of the project's own: the `--mcp` command or URL of its MCP server. */
  readonly server?: string;
}

export interface ToolDocumentation {
  readonly category: string;
  /** Call shapes: `gcd(a, b)`, `gcd(a, b, c, ...)`. */
  readonly syntax: readonly string[];
  /** Calls or lines as the library's docs give them: `gcd(8, 12)`. */
  readonly examples: readonly string[];
  /** Names of related tools. */
  readonly seeAlso: readonly string[];
}

export interface ArgumentSyntax {
  /** `quoted`: `QA("…")`; `raw`: `Calculator(1 + 2)`; `none`: `Calendar()`. */
  readonly syntax: 'quoted' | 'raw' | 'none';
  /** The schema property the call's one argument fills (absent for `none`). */
  readonly property?: string;
}

/** The part of JSON Schema the specs use: an object of string properties. */
export interface ObjectSchema {
  type: 'object';
  properties: Record<string, { type: 'string'; description?: string; minLength?: number; maxLength?: number; pattern?: string }>;
  required?: string[];
  additionalProperties: false;
}

export interface ToolRunner {
  run(input: string, context: ToolContext): Promise<ToolResult>;
  /**
   * Loads what the tool computes with (mathjs, a language detector's data) once per process; the executor awaits it
   * before a call's time limit starts, so the limit is for the call, not for importing an engine. @default nothing
   */
  load?(): Promise<void>;
}

/**
 * A tool as the registry hands it out: its spec and the runner built from it. Dispatch goes only through the
 * registry (registry.ts); results and errors are plain values, never exceptions through the pipeline.
 */
export interface Tool extends ToolSpec, ToolRunner {}

/** What a platform hands the tools (a tool reads only its own keys, e.g. QA reads `kb`). */
export type ToolResources = Readonly<Record<string, unknown>>;

export interface ToolExample {
  text: string;
  /** Character offset of the call. */
  at: number;
  input: string;
  result: string;
  date?: string;
}

export interface PrefilterVerdict {
  pass: boolean;
  /** Short, fixed reason (e.g. "few_numbers"): what stats.json counts drops by. */
  kind?: string;
  /** Human-readable detail. */
  reason?: string;
}

/** Per-tool thresholds (paper App. A). A CLI flag such as --tau-f overrides one for every tool. */
export interface ToolThresholds {
  /** τ_s: minimum p_i(" [") for an LM-chosen position. */
  tauS: number;
  /** τ_f: minimum usefulness min(L_a, L_b) − L_c, nats, to keep a call. */
  tauF: number;
  /** k: most LM-chosen positions per document and tool. */
  k: number;
  /** m: calls sampled from the LM per position. */
  m: number;
  /**
   * The counterfactual control's margin for this tool, nats (distractor.ts), when the run uses the control; absent:
   * the run's `controlMargin`. Measured per tool on the labelled dev split (pipeline/eval/data-quality/).
   */
  controlMargin?: number;
}

/** The paper's defaults (App. A): τ_s 0.05, τ_f 1.0, k 5, m 5. */
export const PAPER_DEFAULTS: ToolThresholds = { tauS: 0.05, tauF: 1.0, k: 5, m: 5 };

/** Upper bound on the calls one proposer returns for one position. */
export const MAX_PROPOSALS = 10;

/** Longest argument a spec's schema allows, characters (0 for a tool without argument). */
export function maxArgumentLength(spec: Pick<ToolSpec, 'parameters' | 'argument'>): number {
  const property = spec.argument.property;
  if (property === undefined) return 0;
  return spec.parameters.properties[property]?.maxLength ?? Number.POSITIVE_INFINITY;
}

/** The arguments object a call's one positional argument stands for: `Calculator(1 + 2)` → `{expression: "1 + 2"}`. */
export function argumentsOf(spec: Pick<ToolSpec, 'argument'>, input: string): Record<string, string> {
  const property = spec.argument.property;
  if (property !== undefined) return { [property]: input };
  // A tool without argument: an empty call is `{}`; anything written inside the parentheses is an extra argument.
  return input.trim() === '' ? {} : { argument: input };
}
