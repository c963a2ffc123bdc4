import type { Doc } from '../document.ts';

export interface ToolContext {
  /** The document the call was made in (the Calendar reads its date). */
  doc: Pick<Doc, 'id' | 'date'>;
  signal?: AbortSignal;
}

export type ToolResult =
  | { ok: true; value: string }
  /** `schemaError`: set by the executor (never by a tool) when the arguments failed the tool's JSON Schema and the call was not dispatched. */
  | { ok: false; error: string; schemaError?: string };

/** A call as proposed, before execution. `input` is the argument's value (unquoted). */
export interface ToolCall {
  tool: string;
  input: string;
}
