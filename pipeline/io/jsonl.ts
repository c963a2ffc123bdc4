/**
 * JSONL files written by this project (runs' calls.jsonl / train.jsonl, training logs, C* data, eval inputs):
 * one JSON value per line, blank lines ignored. For the corpus, which may hold anything, `node/read-corpus.ts` is the
 * reader (byte caps, encodings, one error record per bad record).
 */
import { readFileSync } from 'node:fs';

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
 * Every record of the file, in order. A line that is not JSON throws an Error naming `file:line`, unless
 * `onBadLine` is given: then it is reported there and skipped, and the rest is read.
 */
export function readJsonl<T = unknown>(file: string, onBadLine?: (bad: BadLine) => void): T[] {
  const records: T[] = [];
  readFileSync(file, 'utf8').split('\n').forEach((text, i) => {
    if (!text.trim()) return;
    const parsed = parseLine(text);
    if ('value' in parsed) records.push(parsed.value as T);
    else if (onBadLine) onBadLine({ file, line: i + 1, reason: parsed.reason });
    else throw new Error(`${file}:${i + 1}: ${parsed.reason}`);
  });
  return records;
}
