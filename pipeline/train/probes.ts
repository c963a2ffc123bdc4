/**
 * Quality probes on held-out text, computed with the trainer's own forward pass.
 *
 * - valLoss: mean next-token loss (nats) on held-out corpus windows.
 * - copyProbe: a random 5-digit number stated in held-out text and restated later ("… The number is 48213. …
 *   The number is 48213."); mean log-prob per token of the number at its second occurrence minus at its first.
 * - toolProbe: held-out sentences whose next tokens contain a tool result (held-out capitals, fresh calculations
 *   and dates); the paper's weighted loss over the next 5 tokens (weights 1, .8, .6, .4, .2, normalised) without a
 *   call, with `[call -> result] ` as prefix, with an unrelated call (another item of another kind, its own result),
 *   and with this call but another same-kind item's (wrong) result. Sequences are built as the
 *   scorer builds them: [bos] + encode(call + " ") + encode(prefix) + encode(continuation)[0:5].
 */
import { mulberry32, type Random } from '../random/mulberry32.ts';
import type { Gpt2 } from './gpt2.ts';
import type { BpeTokenizer } from './tokenizer.ts';
import type { Batch, Doc } from './data.ts';
import { inventedName, randomNumber, type Fact } from './data-synthetic.ts';
import { median } from '../core/median.ts';
import { PAPER_TOOLS } from '../core/tools/registry.ts';

const { calculator, qa } = PAPER_TOOLS;

export const PAPER_WEIGHTS = [1, 0.8, 0.6, 0.4, 0.2].map((w) => w / 3);

/** log p(ids[t] | ids[<t]) for t ≥ 1 (index 0 is 0), for each sequence. */
export function tokenLogProbs(model: Gpt2, seqs: number[][], padId: number): Float32Array[] {
  const V = model.config.vocabSize;
  const T = Math.max(...seqs.map((s) => s.length));
  if (T > model.maxT) throw new Error(`probe sequence of ${T} tokens exceeds ${model.maxT}`);
  const rows = Math.max(1, Math.floor(model.maxRows / T));
  const out: Float32Array[] = [];
  for (let s0 = 0; s0 < seqs.length; s0 += rows) {
    const chunk = seqs.slice(s0, s0 + rows);
    const x = new Int32Array(chunk.length * T).fill(padId);
    chunk.forEach((s, b) => x.set(s, b * T));
    model.forward(x, chunk.length, T);
    const lp = model.logSoftmaxInPlace(chunk.length * T);
    chunk.forEach((s, b) => {
      const r = new Float32Array(s.length);
      for (let t = 1; t < s.length; t++) r[t] = lp[(b * T + t - 1) * V + s[t]];
      out.push(r);
    });
  }
  return out;
}

export function valLoss(model: Gpt2, batch: Batch, T: number): number {
  const rows = batch.x.length / T;
  const per = Math.max(1, Math.floor(model.maxRows / T));
  let sum = 0;
  let n = 0;
  for (let b = 0; b < rows; b += per) {
    const k = Math.min(per, rows - b);
    sum += model.forward(batch.x.subarray(b * T, (b + k) * T), k, T, batch.y.subarray(b * T, (b + k) * T)) * k;
    n += k;
  }
  return sum / n;
}

function snippet(rng: Random, docs: Doc[], chars: number): string {
  const d = docs[Math.floor(rng.next() * docs.length)].text;
  let from = Math.floor(rng.next() * Math.max(1, d.length - chars));
  from = d.indexOf(' ', from) + 1;
  const end = d.lastIndexOf(' ', from + chars);
  return d.slice(from, end > from ? end : from + chars).trim();
}

export interface CopyProbe {
  first: number;
  second: number;
  /** second − first, nats/token. */
  gain: number;
  n: number;
}

export function copyProbe(model: Gpt2, tok: BpeTokenizer, val: Doc[], n = 48, seed = 5): CopyProbe {
  const rng = mulberry32(seed);
  const seqs: number[][] = [];
  const spans: [number, number, number][] = []; // [start1, start2, length]
  for (let i = 0; i < n; i++) {
    const num = tok.encode(' ' + randomNumber(rng));
    const b = tok.encode('. ' + snippet(rng, val, 100) + ' The number is');
    let a = tok.encode(snippet(rng, val, 100) + ' The number is');
    a = a.slice(Math.max(0, a.length - (model.maxT - 2 - 2 * num.length - b.length)));
    const ids = [tok.eosId, ...a, ...num, ...b, ...num, ...tok.encode('.')];
    seqs.push(ids);
    spans.push([1 + a.length, 1 + a.length + num.length + b.length, num.length]);
  }
  const lps = tokenLogProbs(model, seqs, tok.eosId);
  let first = 0;
  let second = 0;
  let count = 0;
  lps.forEach((lp, i) => {
    const [s1, s2, len] = spans[i];
    for (let j = 0; j < len; j++) {
      first += lp[s1 + j];
      second += lp[s2 + j];
      count++;
    }
  });
  return { first: first / count, second: second / count, gain: (second - first) / count, n };
}

interface ToolItem {
  call: string;
  unrelatedCall: string;
  wrongResultCall: string;
  prefix: string;
  next: string;
}

function toolItems(rng: Random, heldOut: readonly Fact[], val: Doc[], n: number): ToolItem[] {
  const raw: { call: (r: string) => string; result: string; prefix: string; next: string; kind: number }[] = [];
  for (let i = 0; i < n; i++) {
    const kind = i % 4;
    const lead = snippet(rng, val, 100);
    if (kind === 0 || kind === 3) {
      const f = heldOut[Math.floor(rng.next() * heldOut.length)];
      const where = f.question.replace('What is the capital of ', '').replace('?', '');
      raw.push({ call: (r) => `[${qa.name}("${f.question}") -> ${r}]`, result: f.answer, kind: 0,
        prefix: `${lead} In ${where}, the seat of government is`, next: ` ${f.answer}, where the officials meet.` });
    } else if (kind === 1) {
      const a = 100 + Math.floor(rng.next() * 900);
      const b = 1000 + Math.floor(rng.next() * 9000);
      const r = String(Math.round((a / b) * 100) / 100);
      raw.push({ call: (x) => `[${calculator.name}(${a} / ${b}) -> ${x}]`, result: r, kind: 1,
        prefix: `${lead} Of the ${b} members, ${a} voted in favour, a share of`, next: ` ${r} of the whole body.` });
    } else {
      const name = `${inventedName(rng)} ${inventedName(rng)}`;
      raw.push({ call: (x) => `[${qa.name}("Who led the delegation?") -> ${x}]`, result: name, kind: 2,
        prefix: `${lead} The delegation was led by`, next: ` ${name}, who spoke first.` });
    }
  }
  // The unrelated result: another item's result of the same kind.
  // Unrelated: the call (question and result) of the next item of another kind; wrong result: this item's call
  // with the result of another item of the same kind.
  return raw.map((it, i) => {
    const other = raw.find((o, j) => j > i && o.kind !== it.kind) ?? raw.find((o) => o.kind !== it.kind)!;
    const same = raw.find((o, j) => j > i && o.kind === it.kind && o.result !== it.result)
      ?? raw.find((o) => o.kind === it.kind && o.result !== it.result)!;
    return {
      call: it.call(it.result), unrelatedCall: other.call(other.result), wrongResultCall: it.call(same.result),
      prefix: it.prefix, next: it.next,
    };
  });
}

export interface ToolProbe {
  /** Median of L(no call) − L(call with its result), nats (weighted over the next 5 tokens). */
  medianDrop: number;
  /** Median of L(no call) − L(an unrelated call with its result: another item of another kind). */
  medianUnrelatedDrop: number;
  /** Median of L(no call) − L(this item's call with another same-kind item's result). */
  medianWrongResultDrop: number;
  meanNoCall: number;
  n: number;
}

export function toolProbe(model: Gpt2, tok: BpeTokenizer, heldOut: readonly Fact[], val: Doc[], n = 48, seed = 9): ToolProbe {
  const items = toolItems(mulberry32(seed), heldOut, val, n);
  const seqs: number[][] = [];
  const starts: number[] = [];
  for (const it of items) {
    const prefix = tok.encode(it.prefix);
    const next = tok.encode(it.next).slice(0, PAPER_WEIGHTS.length);
    for (const call of [null, it.call, it.unrelatedCall, it.wrongResultCall]) {
      const callIds = call === null ? [] : tok.encode(call + ' ');
      const room = model.maxT - 1 - callIds.length - next.length;
      const head = [tok.eosId, ...callIds, ...prefix.slice(Math.max(0, prefix.length - room))];
      seqs.push([...head, ...next]);
      starts.push(head.length);
    }
  }
  const lps = tokenLogProbs(model, seqs, tok.eosId);
  const loss = lps.map((lp, i) => {
    let l = 0;
    for (let j = 0; j < PAPER_WEIGHTS.length && starts[i] + j < lp.length; j++) l -= PAPER_WEIGHTS[j] * lp[starts[i] + j];
    return l;
  });
  const drops: number[] = [];
  const unrelated: number[] = [];
  const wrong: number[] = [];
  let noCall = 0;
  for (let i = 0; i < items.length; i++) {
    drops.push(loss[4 * i] - loss[4 * i + 1]);
    unrelated.push(loss[4 * i] - loss[4 * i + 2]);
    wrong.push(loss[4 * i] - loss[4 * i + 3]);
    noCall += loss[4 * i];
  }
  return {
    medianDrop: median(drops), medianUnrelatedDrop: median(unrelated), medianWrongResultDrop: median(wrong),
    meanNoCall: noCall / items.length, n: items.length,
  };
}

/** What the probes read: held-out corpus documents, fixed rows of them, held-out facts. */
export interface ProbeData {
  val: Doc[];
  valBatch: Batch;
  heldOut: readonly Fact[];
}

/**
 * One evaluation, as logged: `{ valLoss, ...extraLosses (each a val loss on its rows), copy, tool, evalSeconds }`
 * (finetune adds `cstarValLoss` on held-out C* windows).
 */
export function runProbes(model: Gpt2, tok: BpeTokenizer, data: ProbeData, extraLosses: Record<string, Batch> = {}): Record<string, unknown> {
  const e0 = Date.now();
  const T = model.config.nPositions;
  const r = {
    valLoss: valLoss(model, data.valBatch, T),
    ...Object.fromEntries(Object.entries(extraLosses).map(([k, b]) => [k, valLoss(model, b, T)])),
    copy: copyProbe(model, tok, data.val),
    tool: toolProbe(model, tok, data.heldOut, data.val),
  };
  return { ...r, evalSeconds: (Date.now() - e0) / 1000 };
}
