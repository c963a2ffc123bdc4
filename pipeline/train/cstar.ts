/**
 * C*: the annotated texts with their calls inlined (annotate's train.jsonl), as finetuning rows. Records are split
 * train/validation by a hash of their id (1 in 10 held out); a row is a window of a text around one of its calls.
 */
import { mulberry32, type Random } from '../random/mulberry32.ts';
import type { Batch } from './data.ts';
import type { BpeTokenizer } from './tokenizer.ts';
import { badLineReporter, readJsonl, textRecordProblem } from '../io/jsonl.ts';
import { fnv1a } from '../core/text/hash.ts';

export interface CStarRecord {
  id: string;
  text: string;
  calls?: { tool: string }[];
  /**
   * Character offsets to place windows at when the text holds no call: the same texts with their calls removed
   * (the paper's CC baseline, pipeline/eval/experiment) train on the same windows as the texts with calls.
   */
  anchors?: number[];
}

/** Windows of C* texts, each holding at least one call (its " [" token somewhere in the window). */
export class CallWindows {
  private readonly items: { ids: number[]; starts: number[] }[] = [];

  constructor(
    private readonly tok: BpeTokenizer,
    records: readonly CStarRecord[],
    private readonly T: number,
    private rng: Random,
    private readonly filler: () => Int32Array,
  ) {
    const open = tok.encode(' [');
    if (open.length !== 1) throw new Error('finetune: " [" is not one token in this tokenizer');
    for (const r of records) {
      const ids = tok.encode(r.text);
      const starts = ids.flatMap((id, i) => (id === open[0] ? [i] : []));
      if (starts.length === 0 && r.anchors) starts.push(...r.anchors.map((at) => Math.min(ids.length - 1, tok.encode(r.text.slice(0, at)).length)));
      if (starts.length > 0) this.items.push({ ids, starts });
    }
  }

  get size(): number {
    return this.items.length;
  }

  /** T+1 tokens: the window (with <|endoftext|> first when it starts at the text's start), packed with corpus. */
  row(): Int32Array {
    const { T, tok, rng } = this;
    const it = this.items[Math.floor(rng.next() * this.items.length)];
    const at = it.starts[Math.floor(rng.next() * it.starts.length)];
    // Left context of 0..T−40 tokens before the call, so the call and its result fit after it.
    const left = Math.floor(rng.next() * Math.max(1, T - 40));
    const start = Math.max(0, at - left);
    const ids: number[] = start === 0 ? [tok.eosId] : [];
    ids.push(...it.ids.slice(start, start + T + 1 - ids.length));
    if (ids.length < T + 1) {
      ids.push(tok.eosId);
      ids.push(...this.filler().subarray(0, T + 1 - ids.length));
    }
    return Int32Array.from(ids.slice(0, T + 1));
  }

  batch(rows: number, seed: number): Batch {
    const saved = this.rng;
    this.rng = mulberry32(seed);
    const x = new Int32Array(rows * this.T);
    const y = new Int32Array(rows * this.T);
    for (let b = 0; b < rows; b++) {
      const r = this.row();
      x.set(r.subarray(0, this.T), b * this.T);
      y.set(r.subarray(1), b * this.T);
    }
    this.rng = saved;
    return { x, y };
  }
}

/** Why a parsed line is not a C* record, or null: an id, a text, and `calls` / `anchors` of the right shape. */
export function cstarRecordProblem(value: unknown): string | null {
  const problem = textRecordProblem(value, true);
  if (problem) return problem;
  const r = value as Record<string, unknown>;
  if (r.calls !== undefined && !(Array.isArray(r.calls) && r.calls.every((c) => typeof (c as { tool?: unknown } | null)?.tool === 'string'))) return '"calls" is not a list of {tool}';
  if (r.anchors !== undefined && !(Array.isArray(r.anchors) && r.anchors.every((a) => Number.isInteger(a) && a >= 0))) return '"anchors" is not a list of offsets';
  return null;
}

/**
 * Every record of every file, split train/validation by id (1 in 10 held out for the C* validation loss). A line
 * that is not JSON or not a C* record (`null`, `[]`, no id, a text that is not a string) is reported on stderr
 * (file:line: reason) and skipped; the rest is read. `badRecords`: how many were skipped.
 */
export function readCStar(files: readonly string[], write: (line: string) => void = (line) => console.error(line)): { records: CStarRecord[]; train: CStarRecord[]; val: CStarRecord[]; badRecords: number } {
  const bad = badLineReporter('finetune', write);
  const records = files.flatMap((path) => readJsonl<CStarRecord>(path, bad.report, cstarRecordProblem));
  bad.done();
  const isVal = (r: CStarRecord): boolean => fnv1a(r.id) % 10 === 0;
  return { records, train: records.filter((r) => !isVal(r)), val: records.filter(isVal), badRecords: bad.count };
}

/** Calls by tool in `records`. */
export function countCalls(records: readonly CStarRecord[]): Record<string, number> {
  const c: Record<string, number> = {};
  for (const r of records) for (const call of r.calls ?? []) c[call.tool] = (c[call.tool] ?? 0) + 1;
  return c;
}
