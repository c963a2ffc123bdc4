/**
 * Training the bundled model from scratch (`npm run train:model`, cli.ts), as a configuration of the one loop:
 *
 * 1. tokenizer: byte-level BPE learned on the training split (cached in <work>/tokenizer.json)
 * 2. model: GPT-2 with the induction circuit constructed (construct.ts), or random init (--init random)
 * 3. data: the mixture of data.ts (its shares follow MIXTURE_SCHEDULE by step); AdamW with warmup and cosine decay,
 *    the constructed weights at --protect × the learning rate
 * 4. loop.ts: log, probes every --eval-every steps, checkpoint <work>/checkpoint.bin every --ckpt-every steps
 *    (--resume continues it exactly); stop at --steps or after --minutes
 * 5. finish.ts: <work>/train-record.json, export to --out (ONNX + tokenizer + train-record.json + model card)
 */
import { whileLocked } from '../io/dir-lock.ts';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { READ_CAPS, readBoundedJson } from '../io/bounded-read.ts';
import { join } from 'node:path';
import { AdamW } from './adamw.ts';
import { CHECKPOINT_FILE } from './checkpoint.ts';
import { constructInduction, constructedLrScale } from './construct.ts';
import { capitalFacts, splitFacts } from './data-synthetic.ts';
import { Batcher, MIXTURE_SCHEDULE, mixtureAt, readJsonl, splitDocs, validationBatch, type BatcherState } from './data.ts';
import { finishRun } from './finish.ts';
import { Gpt2, type Gpt2Config } from './gpt2.ts';
import { TrainingLoop } from './loop.ts';
import { parseThreads } from './matmul-threads.ts';
import { runProbes } from './probes.ts';
import { RunLog } from './run-log.ts';
import { BpeTokenizer, trainBpe } from './tokenizer.ts';

/**
 * The options as `npm run train:model` parses them (pipeline/train/cli.ts has the defaults): numbers arrive as the
 * strings typed and are recorded verbatim in the log and train-record.json, as the bundled model's record shows.
 */
export interface TrainModelOptions {
  corpus: string[];
  work: string;
  out: string;
  vocab: string;
  digitPairs: boolean;
  layers: string;
  embd: string;
  heads: string;
  seq: string;
  batch: string;
  steps: string;
  minutes: string;
  lr: string;
  warmup: string;
  protect: string;
  /** construct | random */
  init: string;
  seed: string;
  evalEvery: string;
  ckptEvery: string;
  /** Threads for the large matmuls: a count or auto (matmul-threads.ts); the run's bytes are the same for any. @default 1 */
  threads?: string;
  resume: boolean;
  export: boolean;
}

export interface TrainModelHooks {
  /** Print each log line (default: stdout). */
  echo?: (line: string) => void;
  /** After each step (tests stop a run here to resume it). */
  onStep?: (step: number) => void;
}

/** `started`: the process's start, in ms (--minutes counts from it). */
export async function trainModel(o: TrainModelOptions, hooks: TrainModelHooks = {}, started = Date.now()): Promise<void> {
  // One trainer per --work (io/dir-lock.ts): a second one given the same folder would interleave checkpoints and log lines.
  return whileLocked(o.work, 'training run', 'train.lock', () => trainModelHeld(o, hooks, started));
}

async function trainModelHeld(o: TrainModelOptions, hooks: TrainModelHooks = {}, started = Date.now()): Promise<void> {
  const num = (k: keyof TrainModelOptions): number => {
    const x = Number(o[k]);
    if (!Number.isFinite(x)) throw new Error(`train:model: --${k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())} must be a number, got ${o[k]}`);
    return x;
  };
  if (o.init !== 'construct' && o.init !== 'random') throw new Error(`train:model: --init must be construct or random, got ${o.init}`);
  mkdirSync(o.work, { recursive: true });
  const echo = hooks.echo ?? ((line: string) => console.log(line));
  const log = new RunLog(join(o.work, 'log.jsonl'), (line) => echo(line));

  const docs = o.corpus.flatMap((path) => readJsonl(path));
  const { train, val } = splitDocs(docs);
  const tokPath = join(o.work, 'tokenizer.json');
  let tok: BpeTokenizer;
  if (existsSync(tokPath)) tok = BpeTokenizer.fromJSON(readBoundedJson(tokPath, tokPath, READ_CAPS.modelJson) as never);
  else {
    tok = trainBpe(train.filter((_, i) => i % 3 === 0).map((d) => d.text), { vocabSize: num('vocab'), digitPairs: o.digitPairs });
    writeFileSync(tokPath, JSON.stringify(tok.toJSON()));
  }
  const T = num('seq');
  const B = num('batch');
  const config: Gpt2Config = {
    vocabSize: tok.vocabSize, nPositions: T, nEmbd: num('embd'), nLayer: num('layers'), nHead: num('heads'),
    layerNormEpsilon: 1e-5,
  };
  const facts = splitFacts(capitalFacts());
  const model = new Gpt2(config, B * T, T, parseThreads(o.threads));
  const optimizer = new AdamW(model, {
    lr: num('lr'), warmupSteps: num('warmup'), totalSteps: num('steps'),
    lrScale: o.init === 'construct' ? constructedLrScale(model, num('protect')) : undefined,
  });
  const batcher = new Batcher(tok, train, facts.train, T, mixtureAt(0), num('seed') * 100_003);
  const probeData = { val, valBatch: validationBatch(tok, val, 32, T), heldOut: facts.heldOut };
  const loop = new TrainingLoop({
    model, optimizer, rows: B, steps: num('steps'), evalEvery: num('evalEvery'), ckptEvery: num('ckptEvery'),
    data: {
      next: (rows, step) => {
        batcher.mixture = mixtureAt(step);
        return batcher.next(rows);
      },
      save: () => batcher.saveState(),
      restore: (s) => batcher.restoreState(s as BatcherState),
    },
    evaluate: () => runProbes(model, tok, probeData),
    checkpointPath: join(o.work, CHECKPOINT_FILE),
    options: o, log, deadline: started + num('minutes') * 60_000,
    onStep: hooks.onStep,
  });
  if (o.resume && loop.resume()) log.write({ event: 'resume', step: loop.state.step });
  else {
    if (o.resume) log.write({ event: 'resume', note: 'no checkpoint: starting from scratch' });
    model.init(num('seed'));
    if (o.init === 'construct') constructInduction(model, tok.eosId);
  }

  log.write({ event: 'start', config, params: model.numParams, threads: model.arena.threads, mixture: MIXTURE_SCHEDULE, options: o, step: loop.state.step,
    trainDocs: train.length, valDocs: val.length });
  const { state, final } = loop.runAndRelease();
  const record = {
    ...state, config, params: model.numParams, mixture: MIXTURE_SCHEDULE, rowsDrawn: batcher.drawn, options: o, ...final,
  };
  await finishRun({
    work: o.work, out: o.out, export: o.export, log, record,
    model: { config, weights: model.weights(), tokenizer: tok.toJSON() as Record<string, unknown> },
  });
}
