import type { Doc } from '../document.ts';

/**
 * A tool: data plus one function. Dispatch goes only through the registry (registry.ts);
 * results and errors are plain values, never exceptions through the pipeline.
 */
export interface Tool {
  /** Name as written in call text: `[Calculator(2 + 3) -> 5]`. */
  readonly name: string;
  /** One line for prompts, the README and the web app. */
  readonly description: string;
  readonly argument: ArgumentSchema;
  /**
   * Execute one call. Must not throw for bad input (return `{ ok: false, error }`), must not touch the
   * file system, the network or `eval`, and should honour `context.signal` (the executor's timeout).
   */
  run(input: string, context: ToolContext): Promise<ToolResult>;
}

export interface ArgumentSchema {
  /** `quoted`: written as `QA("…")`; `raw`: `Calculator(1 + 2)`; `none`: `Calendar()`. */
  syntax: 'quoted' | 'raw' | 'none';
  /** Inputs longer than this (characters) are rejected before running. */
  maxLength: number;
  /** What the argument is, for prompts and docs. */
  description: string;
}

export interface ToolContext {
  /** The document the call was made in (the Calendar reads its date). */
  doc: Pick<Doc, 'id' | 'date'>;
  signal?: AbortSignal;
}

export type ToolResult = { ok: true; value: string } | { ok: false; error: string };

/** A call as proposed, before execution. `input` is the argument's value (unquoted). */
export interface ToolCall {
  tool: string;
  input: string;
}
