/**
 * Training data: the bundled corpus (corpus/*.jsonl: SOTU addresses and Factbook prose, public domain) mixed with
 * synthetic copying texts (data-synthetic.ts). Every row of a batch is T+1 tokens starting with `<|endoftext|>`
 * (the beginning-of-sequence token the scorer also puts first); shorter texts are packed with corpus text.
 *
 * Mixture (share of rows), MIXTURE_SCHEDULE: steps 0–399 / from step 400 (more copying once the measured copy
 * gain started to fall as the corpus LM improved; see models/default/README.md):
 *   natural 0.45 / 0.35  a random window of the corpus
 *   tool    0.25 / 0.30  `[Tool(args) -> result] ` + corpus text restating the result (¼ unrelated, not restated)
 *   restate 0.20 / 0.25  numbers, invented names, dates, key–value pairs restated later in the row
 *   repeat  0.10 / 0.10  a corpus span of 8–48 tokens repeated after a gap (plain induction)
 * Documents are split train/validation by a hash of their id (1 in 50 is validation).
 */
import { type BadLine, readJsonl as readJsonlValues, textRecordProblem } from '../io/jsonl.ts';
import { mulberry32, type SeekableRandom } from '../random/mulberry32.ts';
import type { BpeTokenizer } from './tokenizer.ts';
import { restateText, toolText, type Fact } from './data-synthetic.ts';
import { fnv1a } from '../core/text/hash.ts';

export interface Doc {
  id: string;
  text: string;
}

export interface Mixture {
  natural: number;
  tool: number;
  restate: number;
  repeat: number;
}

export const MIXTURE_SCHEDULE: { fromStep: number; mixture: Mixture }[] = [
  { fromStep: 0, mixture: { natural: 0.45, tool: 0.25, restate: 0.2, repeat: 0.1 } },
  { fromStep: 400, mixture: { natural: 0.35, tool: 0.3, restate: 0.25, repeat: 0.1 } },
];

export function mixtureAt(step: number): Mixture {
  return MIXTURE_SCHEDULE.filter((p) => p.fromStep <= step).at(-1)!.mixture;
}

/**
 * The corpus documents of a .jsonl file: records with a string `text` (and an optional string `id`). A line that is
 * not such a record throws naming `file:line`, unless `onBadLine` is given: then it is reported and skipped.
 */
export function readJsonl(path: string, onBadLine?: (bad: BadLine) => void): Doc[] {
  return readJsonlValues<{ id?: string; text: string }>(path, onBadLine, (v) => textRecordProblem(v, false)).map((o) => ({ id: o.id ?? '', text: o.text }));
}

/**
 * Documents split train/validation by a hash of their id (1 in 50 is validation). A corpus too small for the hash
 * to pick one (under ~50 documents) gives its last document to validation, so that both parts are non-empty; fewer
 * than two documents is a one-line error.
 */
export function splitDocs(docs: Doc[]): { train: Doc[]; val: Doc[] } {
  if (docs.length < 2) throw new Error(`the corpus has ${docs.length} usable document${docs.length === 1 ? '' : 's'}: at least 2 are needed (one is held out for the validation loss and the probes)`);
  const isVal = (d: Doc): boolean => fnv1a(d.id || d.text.slice(0, 200)) % 50 === 0;
  const [train, val] = [docs.filter((d) => !isVal(d)), docs.filter(isVal)];
  if (val.length === 0) val.push(train.pop()!);
  if (train.length === 0) train.push(val.pop()!);
  return { train, val };
}

/** All documents' tokens in one stream, separated by `<|endoftext|>`. */
export function tokenStream(tok: BpeTokenizer, docs: Doc[]): Int32Array {
  const parts: number[][] = docs.map((d) => [...tok.encode(d.text), tok.eosId]);
  const out = new Int32Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export interface Batch {
  x: Int32Array; // [B,T] inputs
  y: Int32Array; // [B,T] next tokens
}

/** Where a Batcher is in its sequence: enough to continue it exactly after a resume. */
export interface BatcherState {
  rng: number;
  drawn: Record<keyof Mixture, number>;
}

export class Batcher {
  private readonly rng: SeekableRandom;
  private readonly stream: Int32Array;
  /** Rows drawn so far, by kind (for the run record). */
  readonly drawn: Record<keyof Mixture, number> = { natural: 0, tool: 0, restate: 0, repeat: 0 };

  constructor(
    private readonly tok: BpeTokenizer,
    private readonly docs: Doc[],
    private readonly facts: readonly Fact[],
    private readonly T: number,
    /** Set by the training loop as the schedule advances. */
    public mixture: Mixture = MIXTURE_SCHEDULE[0].mixture,
    seed = 1,
  ) {
    this.rng = mulberry32(seed);
    this.stream = tokenStream(tok, docs);
  }

  saveState(): BatcherState {
    return { rng: this.rng.getState(), drawn: { ...this.drawn } };
  }

  restoreState(state: BatcherState): void {
    this.rng.setState(state.rng);
    Object.assign(this.drawn, state.drawn);
  }

  /** A snippet of 60–250 characters of corpus text cut at spaces. */
  filler = (): string => {
    const d = this.docs[Math.floor(this.rng.next() * this.docs.length)].text;
    const len = 60 + Math.floor(this.rng.next() * 190);
    let from = Math.floor(this.rng.next() * Math.max(1, d.length - len));
    const sp = d.indexOf(' ', from);
    from = sp < 0 ? 0 : sp + 1;
    const end = d.lastIndexOf(' ', from + len);
    return d.slice(from, end > from ? end : from + len).trim();
  };

  private naturalTokens(n: number): Int32Array {
    const off = Math.floor(this.rng.next() * (this.stream.length - n - 1));
    return this.stream.subarray(off, off + n);
  }

  /** One row of T+1 tokens: <|endoftext|>, then the text, packed with corpus tokens. */
  row(): Int32Array {
    const { T, tok } = this;
    const r = this.rng.next();
    const m = this.mixture;
    const ids: number[] = [tok.eosId];
    let kind: keyof Mixture;
    if (r < m.natural) {
      kind = 'natural';
    } else if (r < m.natural + m.tool) {
      kind = 'tool';
      const { call, text } = toolText(this.rng, this.facts, this.filler);
      ids.push(...tok.encode(call + ' '), ...tok.encode(text)); // encoded apart, as the scorer does
    } else if (r < m.natural + m.tool + m.restate) {
      kind = 'restate';
      ids.push(...tok.encode(restateText(this.rng, this.filler)));
    } else {
      kind = 'repeat';
      const span = [...this.naturalTokens(8 + Math.floor(this.rng.next() * 40))];
      const gap = [...this.naturalTokens(Math.floor(this.rng.next() * 40))];
      ids.push(...span, ...gap, ...span);
    }
    this.drawn[kind]++;
    if (ids.length < T + 1) {
      if (ids.length > 1) ids.push(tok.eosId);
      ids.push(...this.naturalTokens(T + 1 - ids.length));
    }
    return Int32Array.from(ids.slice(0, T + 1));
  }

  next(B: number): Batch {
    const { T } = this;
    const x = new Int32Array(B * T);
    const y = new Int32Array(B * T);
    for (let b = 0; b < B; b++) {
      const r = this.row();
      x.set(r.subarray(0, T), b * T);
      y.set(r.subarray(1, T + 1), b * T);
    }
    return { x, y };
  }
}

/** Fixed validation rows: <|endoftext|> + a window of held-out corpus text, deterministic. */
export function validationBatch(tok: BpeTokenizer, val: Doc[], rows: number, T: number, seed = 123): Batch {
  const stream = tokenStream(tok, val);
  const rng = mulberry32(seed);
  const x = new Int32Array(rows * T);
  const y = new Int32Array(rows * T);
  for (let b = 0; b < rows; b++) {
    const off = Math.floor(rng.next() * (stream.length - T - 1));
    const r = [tok.eosId, ...stream.subarray(off, off + T)];
    x.set(r.slice(0, T), b * T);
    y.set(r.slice(1, T + 1), b * T);
  }
  return { x, y };
}
