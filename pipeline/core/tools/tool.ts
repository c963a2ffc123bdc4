import type { Doc } from '../document.ts';
import type { ToolRunner, ToolSpec } from './spec.ts';

/**
 * A tool as the registry hands it out: its spec (spec.ts) and the runner built from it. Dispatch goes only through
 * the registry (registry.ts); results and errors are plain values, never exceptions through the pipeline.
 */
export interface Tool extends ToolSpec, ToolRunner {}

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
