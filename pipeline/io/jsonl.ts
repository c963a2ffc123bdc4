/**
 * JSONL files written by this project (runs' calls.jsonl / train.jsonl, training logs, C* data, eval inputs):
 * one JSON value per line, blank lines ignored, read through io/bounded-read.ts (a regular file, lines capped). For the corpus, which may hold anything, `node/corpus/read-corpus.ts` is the
 * reader (byte caps, encodings, one error record per bad record).
 */
import { readLinesSync, unreadLineReason } from './bounded-read.ts';

/** Longest line read from the project's own JSONL files (the corpus reader's record cap is 4 MiB; texts with calls grow). */
export const MAX_JSONL_LINE_BYTES = 16 << 20;

export interface BadLine {
  file: string;
  /** 1-based. */
  line: number;
  reason: string;
}

/** The JSON text of one line, parsed, or the reason it is not JSON. */
function parseLine(text: string): { value: unknown } | { reason: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { reason: `not JSON (${(e as Error).message.split('\n')[0]})` };
  }
}

/**
 * Each non-blank line of `file`, parsed, streamed through io/bounded-read.ts (a regular file; a line over
 * MAX_JSONL_LINE_BYTES or a NUL run is a reason, never a string): `{line, value}` or `{line, reason}`; `what` names
 * the file in a refusal of the file itself ("--input x.jsonl").
 */
export function* jsonLinesSync<T = unknown>(file: string, what = file): Generator<{ line: number; value: T } | { line: number; reason: string }> {
  for (const line of readLinesSync(file, what, MAX_JSONL_LINE_BYTES)) {
    if (line.kind !== 'line') {
      yield { line: line.line, reason: unreadLineReason(line, MAX_JSONL_LINE_BYTES) };
      continue;
    }
    const text = line.bytes.toString('utf8');
    if (!text.trim()) continue;
    const parsed = parseLine(text);
    yield 'value' in parsed ? { line: line.line, value: parsed.value as T } : { line: line.line, reason: parsed.reason };
  }
}

/**
 * Every record of the file, in order. A line that is not JSON — or, with `recordProblem`, a value it finds wrong
 * (`null`, `[]`, a record without a field the reader needs) — throws an Error naming `file:line`, unless `onBadLine`
 * is given: then it is reported there and skipped, and the rest is read.
 */
export function readJsonl<T = unknown>(file: string, onBadLine?: (bad: BadLine) => void, recordProblem?: (value: unknown) => string | null): T[] {
  const records: T[] = [];
  for (const item of jsonLinesSync<T>(file)) {
    const reason = 'value' in item ? recordProblem?.(item.value) ?? null : item.reason;
    if (reason === null) records.push((item as { value: T }).value);
    else if (onBadLine) onBadLine({ file, line: item.line, reason });
    else throw new Error(`${file}:${item.line}: ${reason}`);
  }
  return records;
}

/** What a value is, for a bad-record reason: `null`, `a list`, `a number`, … */
export const kindOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `a ${typeof value}`);

/**
 * Why `value` is not a record with a string `text` (and, when `idRequired`, a non-empty string `id`; otherwise an
 * `id` that is absent or a string), or null.
 */
export function textRecordProblem(value: unknown, idRequired: boolean): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `not a record (${kindOf(value)})`;
  const r = value as Record<string, unknown>;
  const idOk = typeof r.id === 'string' ? r.id !== '' || !idRequired : r.id === undefined && !idRequired;
  if (!idOk) return r.id === undefined ? 'no "id"' : `"id" is ${r.id === '' ? 'empty' : kindOf(r.id)}, not a non-empty string`;
  if (typeof r.text !== 'string') return `"text" is ${r.text === undefined ? 'missing' : kindOf(r.text)}, not a string`;
  return null;
}

/**
 * A `BadLine` reporter for a command's stderr: one line per bad record for the first `shown`, then one line for
 * the rest when `done()` is called. `count` says how many were reported.
 */
export function badLineReporter(prefix: string, write: (line: string) => void, shown = 20) {
  let count = 0;
  return {
    report: (bad: BadLine) => {
      if (++count <= shown) write(`${prefix}: ${bad.file}:${bad.line}: ${bad.reason}; record skipped`);
    },
    done: () => {
      if (count > shown) write(`${prefix}: ${count - shown} more bad records skipped (${count} in all)`);
    },
    get count() {
      return count;
    },
  };
}
