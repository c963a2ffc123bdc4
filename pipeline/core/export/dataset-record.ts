/**
 * One exported document: the run's train.jsonl record joined with the document's original text, with each inlined
 * call's arguments object (the tool's JSON Schema shape) beside its call-syntax input. What every export format
 * (Parquet, chat, text) is written from. Pure: no node:*, so the web app can export too.
 */
import { escapeBrackets } from '../stages/inline.ts';
import type { Losses } from '../scoring/losses.ts';
import { argumentsOf, type ToolSpec } from '../tools/spec.ts';

/** A train.jsonl record as annotate-run.ts writes it (`trainRecord`). */
export interface TrainRecord {
  id: string;
  /** The text with the kept calls inlined, `… [Calculator(1 + 2) -> 3] 3 …` (brackets of the text escaped). */
  text: string;
  source?: string;
  date?: string;
  calls: { tool: string; input: string; result: string; at: number; inlinedAt: number; losses: Losses; usefulness: number }[];
}

export interface ExportCall {
  tool: string;
  /** The call-syntax argument, `19978693 - 19235483` (as in calls.jsonl's `input`). */
  input: string;
  /** The arguments object it stands for, `{expression: "19978693 - 19235483"}`: valid for the tool's JSON Schema. */
  arguments: Record<string, string>;
  result: string;
  /** UTF-16 offset of the call in the original text (calls.jsonl's `at`). */
  at: number;
  /** UTF-16 offset of the call's " [" in the inlined text. */
  inlinedAt: number;
  losses: Losses;
  usefulness: number;
}

export interface ExportDoc {
  id: string;
  /** The document as read from the corpus. */
  original: string;
  /** train.jsonl's text: the original with the calls inlined. */
  inlined: string;
  source?: string;
  date?: string;
  /** The inlined calls, in text order (one per position: the most useful kept call there). */
  calls: ExportCall[];
}

/**
 * Join a train record with its original text. Throws when they disagree (the corpus changed since the run, or the
 * record is not this document's): the text between calls must be the original's, escaped.
 */
export function exportDoc(record: TrainRecord, original: string, specs: ReadonlyMap<string, Pick<ToolSpec, 'argument'>>): ExportDoc {
  let from = 0;
  for (const c of record.calls) {
    const segment = escapeBrackets(original.slice(from, c.at));
    const end = c.inlinedAt;
    if (record.text.slice(end - segment.length, end) !== segment) {
      throw new Error(`document ${JSON.stringify(record.id)}: its text before the call at ${c.at} is not the corpus's: was the corpus changed since the run?`);
    }
    from = c.at;
  }
  if (!record.text.endsWith(escapeBrackets(original.slice(from)))) {
    throw new Error(`document ${JSON.stringify(record.id)}: its text after the last call is not the corpus's: was the corpus changed since the run?`);
  }
  const calls = record.calls.map((c): ExportCall => {
    const spec = specs.get(c.tool);
    if (!spec) throw new Error(`document ${JSON.stringify(record.id)}: tool ${c.tool} is not in the registry (an --mcp tool?): its schema is unknown`);
    return { tool: c.tool, input: c.input, arguments: argumentsOf(spec, c.input), result: c.result, at: c.at, inlinedAt: c.inlinedAt, losses: c.losses, usefulness: c.usefulness };
  });
  return { id: record.id, original, inlined: record.text, source: record.source, date: record.date, calls };
}

/** Code points in `s.slice(0, utf16)`: the offset Python's `str` and DuckDB's `substring` index by. */
export function codePointOffset(s: string, utf16: number): number {
  let n = 0;
  for (let i = 0; i < utf16; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < utf16) i++; // a surrogate pair is one code point
    n++;
  }
  return n;
}
