/**
 * `toolformer finetune --data <train.jsonl>… --base models/default --out models/<name>`: the paper's step 3 —
 * finetune the LM on C* (the annotated texts with their calls inlined) with the ordinary LM objective.
 *
 * 1. The base model's weights are read back from its ONNX file (initializers `transformer.*`, onnx-weights.ts) and
 *    its tokenizer from tokenizer.json (the trainer's BpeTokenizer reads the HF format it wrote).
 * 2. Each row of a batch is, with probability 1 − mix, a window of a C* text that contains a call (the call's
 *    " [" at a random offset, so the model sees calls with and without long left context); otherwise a row of the
 *    base model's own training mixture (corpus text plus its copying exercises, data.ts), which keeps the copy
 *    ability the filter and the inserted results depend on and teaches that most text has no call.
 * 3. AdamW with warmup and cosine decay; the constructed induction heads keep their reduced learning rate
 *    (construct.ts constructedLrScale). A held-out slice of C* (1 record in 10, by id hash) gives a C* validation
 *    loss; the corpus validation loss, the copy probe and the tool probe are the base trainer's.
 * 4. Checkpoints every --ckpt-every steps (resumable with --resume), then the Hugging Face export (ONNX with KV
 *    cache, tokenizer, config, train-record.json, README.md model card).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import cliProgress from 'cli-progress';
import { mulberry32, type Random } from '../onnx/random.ts';
import { exportGpt2 } from '../onnx/export.ts';
import { readGpt2Onnx } from '../onnx/onnx-weights.ts';
import { AdamW } from './adamw.ts';
import { constructedLrScale } from './construct.ts';
import { Batcher, MIXTURE_SCHEDULE, readJsonl, splitDocs, validationBatch, type Batch } from './data.ts';
import { capitalFacts, splitFacts } from './data-synthetic.ts';
import { Gpt2 } from './gpt2.ts';
import { copyProbe, toolProbe, valLoss } from './probes.ts';
import { BpeTokenizer } from './tokenizer.ts';

export interface FinetuneOptions {
  data: string[];
  base: string;
  out: string;
  corpus: string[];
  work: string;
  /** Share of rows from the base mixture (plain corpus + copy exercises); the rest are C* windows. */
  mix: number;
  /** Copies of each C* record (1 = as annotated). */
  upsample: number;
  steps: number;
  batch: number;
  lr: number;
  warmup: number;
  protect: number;
  seed: number;
  evalEvery: number;
  ckptEvery: number;
  minutes: number;
  resume: boolean;
  export: boolean;
  quiet: boolean;
  /** The command that rebuilds this model, for the card. */
  rebuild: string;
}

interface CStarRecord {
  id: string;
  text: string;
  calls?: { tool: string }[];
}

function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
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

export async function finetune(o: FinetuneOptions): Promise<void> {
  const t0 = Date.now();
  mkdirSync(o.work, { recursive: true });
  const logFile = join(o.work, 'log.jsonl');
  const log = (rec: object, echo = false): void => {
    const line = JSON.stringify({ time: new Date().toISOString(), ...rec });
    if (echo || o.quiet) console.error(line);
    appendFileSync(logFile, line + '\n');
  };

  const tokenizerJson = JSON.parse(readFileSync(join(o.base, 'tokenizer.json'), 'utf8'));
  const tok = BpeTokenizer.fromJSON(tokenizerJson);
  const { config, weights } = readGpt2Onnx(readFileSync(join(o.base, 'onnx/model.onnx')), JSON.parse(readFileSync(join(o.base, 'config.json'), 'utf8')));
  if (config.vocabSize !== tok.vocabSize) throw new Error(`finetune: tokenizer has ${tok.vocabSize} tokens, the model ${config.vocabSize}`);
  const T = config.nPositions;
  const B = o.batch;

  // C*: every record of every --data file; 1 in 10 (by id) held out for the C* validation loss.
  const records: CStarRecord[] = o.data.flatMap((path) =>
    readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as CStarRecord));
  const isVal = (r: CStarRecord) => hash(r.id) % 10 === 0;
  const cTrain = records.filter((r) => !isVal(r));
  const cVal = records.filter(isVal);
  const upsampled = Array.from({ length: Math.max(1, o.upsample) }, () => cTrain).flat();

  const docs = o.corpus.flatMap(readJsonl);
  const { train, val } = splitDocs(docs);
  const facts = splitFacts(capitalFacts());
  const model = new Gpt2(config, B * T);
  model.loadWeights(weights);
  const opt = new AdamW(model, {
    lr: o.lr, warmupSteps: o.warmup, totalSteps: o.steps, lrScale: constructedLrScale(model, o.protect),
  });
  let step = 0;
  let tokensSeen = 0;
  let trainSeconds = 0;
  const ckptJson = join(o.work, 'ckpt.json');
  const ckptBin = join(o.work, 'ckpt.bin');
  if (o.resume && existsSync(ckptJson)) {
    const meta = JSON.parse(readFileSync(ckptJson, 'utf8'));
    const bin = new Float32Array(readFileSync(ckptBin).buffer.slice(0));
    const n = model.params.length;
    model.params.set(bin.subarray(0, n));
    opt.m.set(bin.subarray(n, 2 * n));
    opt.v.set(bin.subarray(2 * n, 3 * n));
    step = opt.step_ = meta.step;
    tokensSeen = meta.tokensSeen;
    trainSeconds = meta.trainSeconds;
    log({ event: 'resume', step }, true);
  } else if (o.resume) {
    log({ event: 'resume', note: 'no checkpoint: starting from the base model' }, true);
  }

  const baseMix = MIXTURE_SCHEDULE.at(-1)!.mixture;
  const seed = o.seed * 100_003 + step;
  const batcher = new Batcher(tok, train, facts.train, T, baseMix, seed);
  const rng = mulberry32(seed ^ 0x5bd1e995);
  const naturalFiller = (): Int32Array => {
    const r = batcher.row();
    return r.subarray(1);
  };
  const windows = new CallWindows(tok, upsampled, T, rng, naturalFiller);
  if (windows.size === 0) throw new Error('finetune: no C* record with a call in --data');
  const valWindows = new CallWindows(tok, cVal.length > 0 ? cVal : cTrain.slice(0, 8), T, mulberry32(7), naturalFiller);
  const cValBatch = valWindows.batch(32, 77);
  const valBatch = validationBatch(tok, val, 32, T);
  const drawn = { cstar: 0, base: 0 };

  const evaluate = (): Record<string, unknown> => {
    const e0 = Date.now();
    return {
      valLoss: valLoss(model, valBatch, T),
      cstarValLoss: valLoss(model, cValBatch, T),
      copy: copyProbe(model, tok, val),
      tool: toolProbe(model, tok, facts.heldOut, val),
      evalSeconds: (Date.now() - e0) / 1000,
    };
  };
  const checkpoint = (): void => {
    const n = model.params.length;
    const bin = new Float32Array(3 * n);
    bin.set(model.params, 0);
    bin.set(opt.m, n);
    bin.set(opt.v, 2 * n);
    writeFileSync(ckptBin + '.tmp', new Uint8Array(bin.buffer));
    writeFileSync(ckptJson + '.tmp', JSON.stringify({ step, tokensSeen, trainSeconds, config, options: o }));
    // Weights first, then the step: a kill between the renames leaves weights one checkpoint ahead of ckpt.json's
    // step at worst (the resumed run repeats those steps on the newer weights), never a torn file.
    renameSync(ckptBin + '.tmp', ckptBin);
    renameSync(ckptJson + '.tmp', ckptJson);
  };

  const data = { files: o.data, records: records.length, trainRecords: cTrain.length, valRecords: cVal.length,
    trainWindows: windows.size, calls: countCalls(cTrain) };
  log({ event: 'start', config, params: model.numParams, options: o, step, data }, true);
  const evals: Record<string, unknown>[] = [];
  if (step === 0) {
    const e = { step, ...evaluate() };
    evals.push(e);
    log({ event: 'eval', ...e }, true);
  }
  const bar = o.quiet ? null : new cliProgress.SingleBar({
    format: 'finetune [{bar}] {value}/{total} steps | loss {loss} | {tps} tok/s | ETA {eta_formatted}',
    etaBuffer: 20, stream: process.stderr,
  }, cliProgress.Presets.shades_classic);
  bar?.start(o.steps, step, { loss: '-', tps: '-' });
  const maxMs = o.minutes * 60_000;
  let windowStart = Date.now();
  let windowTokens = 0;
  let lossSum = 0;
  let lossN = 0;
  while (step < o.steps && Date.now() - t0 < maxMs) {
    const s0 = Date.now();
    const x = new Int32Array(B * T);
    const y = new Int32Array(B * T);
    for (let b = 0; b < B; b++) {
      const cstar = rng.next() >= o.mix;
      const r = cstar ? windows.row() : batcher.row();
      drawn[cstar ? 'cstar' : 'base']++;
      x.set(r.subarray(0, T), b * T);
      y.set(r.subarray(1, T + 1), b * T);
    }
    model.zeroGrad();
    const loss = model.forward(x, B, T, y);
    model.backward();
    const gradNorm = opt.step();
    step++;
    tokensSeen += B * T;
    windowTokens += B * T;
    trainSeconds += (Date.now() - s0) / 1000;
    lossSum += loss;
    lossN++;
    if (step % 10 === 0) {
      const tps = Math.round(windowTokens / ((Date.now() - windowStart) / 1000));
      log({ event: 'train', step, loss: lossSum / lossN, lr: opt.lrAt(step - 1), gradNorm, tokensPerSecond: tps });
      bar?.update(step, { loss: (lossSum / lossN).toFixed(3), tps });
      windowStart = Date.now();
      windowTokens = 0;
      lossSum = 0;
      lossN = 0;
    } else bar?.update(step);
    if (step % o.evalEvery === 0) {
      const e = { step, tokensSeen, ...evaluate() };
      evals.push(e);
      log({ event: 'eval', ...e }, bar === null);
    }
    if (step % o.ckptEvery === 0) checkpoint();
  }
  bar?.stop();
  checkpoint();
  const final = evaluate();
  const record = { base: relative(process.cwd(), o.base) || o.base, step, tokensSeen, trainSeconds, config, params: model.numParams, data, rowsDrawn: drawn,
    baseMixture: baseMix, options: o, ...final };
  log({ event: 'final', ...record }, true);
  writeFileSync(join(o.work, 'train-record.json'), JSON.stringify(record, null, 2) + '\n');
  if (!o.export) return;
  const files = await exportGpt2(o.out, { config, weights: model.weights(), tokenizer: tokenizerJson });
  writeFileSync(join(o.out, 'train-record.json'), JSON.stringify(record, null, 2) + '\n');
  const baseRecord = existsSync(join(o.base, 'train-record.json')) ? JSON.parse(readFileSync(join(o.base, 'train-record.json'), 'utf8')) : null;
  writeFileSync(join(o.out, 'README.md'), modelCard(record, baseRecord, readLog(logFile)));
  log({ event: 'export', ...files }, true);
}

function countCalls(records: readonly CStarRecord[]): Record<string, number> {
  const c: Record<string, number> = {};
  for (const r of records) for (const call of r.calls ?? []) c[call.tool] = (c[call.tool] ?? 0) + 1;
  return c;
}

function readLog(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

const f2 = (x: unknown): string => (typeof x === 'number' ? x.toFixed(2) : '–');

/** README.md for the finetuned model: data, steps, probes over training. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function modelCard(record: any, base: any, log: any[]): string {
  const evals = log.filter((l) => l.event === 'eval');
  const byStep = new Map<number, any>(); // eslint-disable-line @typescript-eslint/no-explicit-any
  for (const e of evals) byStep.set(e.step, e);
  byStep.set(record.step, record);
  const rows = [...byStep.values()].sort((a, b) => a.step - b.step);
  const o = record.options;
  const c = record.config;
  return `# ${o.out} — finetuned on C* (Toolformer step 3)

${(record.params / 1e6).toFixed(2)}M-parameter GPT-2 (${c.nLayer} layers × ${c.nEmbd}, ${c.nHead} heads, ${c.nPositions} positions,
${c.vocabSize}-token BPE), finetuned from \`${record.base}\` with \`toolformer finetune\` (pipeline/train/finetune.ts) on
the annotated texts with their calls inlined, in the Hugging Face ONNX layout with KV cache (same files as the base).

## Data

- C* files: ${o.data.map((d: string) => `\`${d}\``).join(', ')} — ${record.data.records} records
  (${record.data.trainRecords} train, ${record.data.valRecords} held out by id for the C* validation loss), calls by
  tool in the train records: ${Object.entries(record.data.calls).map(([k, v]) => `${k} ${v}`).join(', ')}.
  Upsampling: each train record ${o.upsample}×.
- Rows: ${Math.round((1 - o.mix) * 100)} % a window of a C* text holding a call (the call at a random offset), ${Math.round(o.mix * 100)} %
  the base model's own training mixture (corpus text ${record.baseMixture.natural}, synthetic tool texts ${record.baseMixture.tool},
  restated facts ${record.baseMixture.restate}, repeated spans ${record.baseMixture.repeat}; pipeline/train/data.ts), which keeps
  the copy ability and teaches that most text has no call. Rows drawn: C* ${record.rowsDrawn.cstar}, base mixture ${record.rowsDrawn.base}.

## Training

${record.step} steps × ${o.batch} rows × ${c.nPositions} tokens (${(record.tokensSeen / 1e6).toFixed(2)}M tokens), AdamW, peak lr ${o.lr}
(warmup ${o.warmup}, cosine), the constructed induction heads at ×${o.protect}; ${Math.round(record.trainSeconds / 60)} minutes of training
on one CPU core of a shared 2-core machine.

## Probes (held-out; the base model's probes, plus the C* validation loss)

| step | corpus val loss | C* val loss | copy gain (nats/token) | tool-result drop (median) |
|---:|---:|---:|---:|---:|
${rows.map((r) => `| ${r.step} | ${f2(r.valLoss)} | ${f2(r.cstarValLoss)} | ${f2(r.copy?.gain)} | ${f2(r.tool?.medianDrop)} |`).join('\n')}
${base ? `\nBase model at export: val loss ${f2(base.valLoss)}, copy gain ${f2(base.copy?.gain)}, tool drop ${f2(base.tool?.medianDrop)}.\n` : ''}
Copy gain = mean log-prob per token of a random 5-digit number at its second occurrence minus its first
(held-out corpus text); the filter and the inserted results need it (≥ 3 nats/token).

## Rebuild

\`\`\`
${o.rebuild}
\`\`\`
`;
}
