/**
 * `npm run train:model -- [options]`: train the bundled model from scratch (or resume) and export it.
 *
 * 1. tokenizer: byte-level BPE learned on the training split (cached in <work>/tokenizer.json)
 * 2. model: GPT-2 with the induction circuit constructed (construct.ts), or random init (--init random)
 * 3. train on the mixture of data.ts with AdamW; every --eval-every steps log val loss and the probes to
 *    <work>/log.jsonl; checkpoint to <work>/ckpt.{json,bin} (resumable with --resume); stop at --steps or --minutes
 * 4. export to --out (ONNX + tokenizer + train-record.json) via pipeline/onnx/export.ts
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { Gpt2, type Gpt2Config } from './gpt2.ts';
import { AdamW } from './adamw.ts';
import { BpeTokenizer, trainBpe } from './tokenizer.ts';
import { Batcher, MIXTURE_SCHEDULE, mixtureAt, readJsonl, splitDocs, validationBatch } from './data.ts';
import { capitalFacts, splitFacts } from './data-synthetic.ts';
import { constructInduction, constructedLrScale } from './construct.ts';
import { copyProbe, toolProbe, valLoss } from './probes.ts';
import { exportGpt2 } from '../onnx/export.ts';
import { writeModelCard } from './model-card.ts';

const program = new Command()
  .option('--corpus <paths...>', 'JSONL files with a "text" field', ['corpus/sotu.jsonl', 'corpus/factbook.jsonl'])
  .option('--work <dir>', 'checkpoints, tokenizer, log', '.cache/train')
  .option('--out <dir>', 'exported model', 'models/default')
  .option('--vocab <n>', 'vocabulary size', '1024')
  .option('--no-digit-pairs', 'tokenizer: let digits merge as ordinary BPE (default: tokenizer.ts digitPairs)')
  .option('--layers <n>', '', '2').option('--embd <n>', '', '256').option('--heads <n>', '', '4')
  .option('--seq <n>', 'training sequence length (= n_positions)', '128')
  .option('--batch <n>', 'sequences per step', '16')
  .option('--steps <n>', 'total optimiser steps (sets the cosine schedule)', '1800')
  .option('--minutes <n>', 'stop (checkpoint and export) after this wall time in this process', '1e9')
  .option('--lr <x>', 'peak learning rate', '6e-4')
  .option('--warmup <n>', 'warmup steps', '100')
  .option('--protect <x>', 'learning-rate multiplier on the constructed circuit (construct.ts constructedLrScale)', '0.1')
  .option('--init <kind>', 'construct | random', 'construct')
  .option('--seed <n>', '', '1')
  .option('--eval-every <n>', '', '100')
  .option('--ckpt-every <n>', '', '25')
  .option('--resume', 'continue from <work>/ckpt', false)
  .option('--no-export', 'skip the ONNX export');
program.parse();
const o = program.opts();
const num = (k: string): number => Number(o[k]);

const t0 = Date.now();
const work = o.work as string;
mkdirSync(work, { recursive: true });
const log = (rec: object): void => {
  const line = JSON.stringify({ time: new Date().toISOString(), ...rec });
  console.log(line);
  appendFileSync(join(work, 'log.jsonl'), line + '\n');
};

const docs = (o.corpus as string[]).flatMap(readJsonl);
const { train, val } = splitDocs(docs);
const tokPath = join(work, 'tokenizer.json');
let tok: BpeTokenizer;
if (existsSync(tokPath)) tok = BpeTokenizer.fromJSON(JSON.parse(readFileSync(tokPath, 'utf8')));
else {
  tok = trainBpe(train.filter((_, i) => i % 3 === 0).map((d) => d.text), { vocabSize: num('vocab'), digitPairs: o.digitPairs as boolean });
  writeFileSync(tokPath, JSON.stringify(tok.toJSON()));
}
const T = num('seq');
const B = num('batch');
const config: Gpt2Config = {
  vocabSize: tok.vocabSize, nPositions: T, nEmbd: num('embd'), nLayer: num('layers'), nHead: num('heads'),
  layerNormEpsilon: 1e-5,
};
const facts = splitFacts(capitalFacts());
const model = new Gpt2(config, B * T);
const opt = new AdamW(model, {
  lr: Number(o.lr), warmupSteps: num('warmup'), totalSteps: num('steps'),
  lrScale: o.init === 'construct' ? constructedLrScale(model, Number(o.protect)) : undefined,
});
let step = 0;
let tokensSeen = 0;
let trainSeconds = 0;
const ckptJson = join(work, 'ckpt.json');
const ckptBin = join(work, 'ckpt.bin');
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
  log({ event: 'resume', step });
} else {
  model.init(num('seed'));
  if (o.init === 'construct') constructInduction(model, tok.eosId);
}
const batcher = new Batcher(tok, train, facts.train, T, mixtureAt(step), num('seed') * 100_003 + step);
const valBatch = validationBatch(tok, val, 32, T);

function evaluate(): Record<string, unknown> {
  const e0 = Date.now();
  const r = {
    valLoss: valLoss(model, valBatch, T),
    copy: copyProbe(model, tok, val),
    tool: toolProbe(model, tok, facts.heldOut, val),
  };
  return { ...r, evalSeconds: (Date.now() - e0) / 1000 };
}

function checkpoint(): void {
  const n = model.params.length;
  const bin = new Float32Array(3 * n);
  bin.set(model.params, 0);
  bin.set(opt.m, n);
  bin.set(opt.v, 2 * n);
  writeFileSync(ckptBin, new Uint8Array(bin.buffer));
  writeFileSync(ckptJson, JSON.stringify({ step, tokensSeen, trainSeconds, config, options: o }));
}

log({ event: 'start', config, params: model.numParams, mixture: MIXTURE_SCHEDULE, options: o, step,
  trainDocs: train.length, valDocs: val.length });
if (step === 0) log({ event: 'eval', step, ...evaluate() });
const maxMs = Number(o.minutes) * 60_000;
let windowStart = Date.now();
let windowTokens = 0;
let lossSum = 0;
let lossN = 0;
while (step < num('steps') && Date.now() - t0 < maxMs) {
  const s0 = Date.now();
  batcher.mixture = mixtureAt(step);
  const { x, y } = batcher.next(B);
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
    const tps = windowTokens / ((Date.now() - windowStart) / 1000);
    log({ event: 'train', step, loss: lossSum / lossN, lr: opt.lrAt(step - 1), gradNorm, tokensPerSecond: Math.round(tps) });
    windowStart = Date.now();
    windowTokens = 0;
    lossSum = 0;
    lossN = 0;
  }
  if (step % num('evalEvery') === 0) log({ event: 'eval', step, tokensSeen, ...evaluate() });
  if (step % num('ckptEvery') === 0) checkpoint();
}
checkpoint();
const final = evaluate();
const record = {
  step, tokensSeen, trainSeconds, config, params: model.numParams, mixture: MIXTURE_SCHEDULE, rowsDrawn: batcher.drawn,
  options: o, ...final,
};
log({ event: 'final', ...record });
writeFileSync(join(work, 'train-record.json'), JSON.stringify(record, null, 2) + '\n');
if (o.export) {
  const files = await exportGpt2(o.out as string, { config, weights: model.weights(), tokenizer: tok.toJSON() as Record<string, unknown> });
  writeFileSync(join(o.out as string, 'train-record.json'), JSON.stringify(record, null, 2) + '\n');
  writeModelCard(work, o.out as string);
  log({ event: 'export', ...files });
}
