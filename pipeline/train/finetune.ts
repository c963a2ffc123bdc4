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
 * 4. The loop (loop.ts) checkpoints <work>/checkpoint.bin every --ckpt-every steps (--resume continues it exactly),
 *    then finish.ts writes the Hugging Face export (ONNX with KV cache, tokenizer, config, train-record.json, README.md
 *    model card).
 */
import { whileLocked } from '../io/dir-lock.ts';
import { mkdirSync } from 'node:fs';
import { READ_CAPS, readBoundedFile, readBoundedJson } from '../io/bounded-read.ts';
import { join, relative } from 'node:path';
import cliProgress from 'cli-progress';
import { mulberry32, type SeekableRandom } from '../random/mulberry32.ts';
import { readGpt2Onnx } from '../onnx-export/onnx-weights.ts';
import { AdamW } from './adamw.ts';
import { CHECKPOINT_FILE } from './checkpoint.ts';
import { constructedLrScale } from './construct.ts';
import { badLineReporter } from '../io/jsonl.ts';
import { CallWindows, countCalls, readCStar } from './cstar.ts';
import { capitalFacts, splitFacts } from './data-synthetic.ts';
import { Batcher, MIXTURE_SCHEDULE, readJsonl, splitDocs, validationBatch, type BatcherState } from './data.ts';
import { finishRun } from './finish.ts';
import { Gpt2 } from './gpt2.ts';
import { TrainingLoop, type RowSource } from './loop.ts';
import { parseThreads } from './matmul-threads.ts';
import { runProbes } from './probes.ts';
import { RunLog, type LogRecord } from './run-log.ts';
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
  /** Threads for the large matmuls: a count or auto (matmul-threads.ts); the run's bytes are the same for any. @default 1 */
  threads?: string | number;
  resume: boolean;
  export: boolean;
  quiet: boolean;
  /** The command that rebuilds this model, for the card. */
  rebuild: string;
}

export interface FinetuneHooks {
  /** Print a log line (default: stderr). */
  echo?: (line: string) => void;
  /** After each step (tests stop a run here to resume it). */
  onStep?: (step: number) => void;
}

/** Where the finetuning rows are in their sequences, saved in each checkpoint. */
interface FinetuneDataState {
  batcher: BatcherState;
  rng: number;
  drawn: { cstar: number; base: number };
}

export async function finetune(o: FinetuneOptions, hooks: FinetuneHooks = {}): Promise<void> {
  // One trainer per --work (io/dir-lock.ts): a second one given the same folder would interleave checkpoints and log lines.
  return whileLocked(o.work, 'training run', 'train.lock', () => finetuneHeld(o, hooks));
}

async function finetuneHeld(o: FinetuneOptions, hooks: FinetuneHooks = {}): Promise<void> {
  const t0 = Date.now();
  mkdirSync(o.work, { recursive: true });
  // stderr: with --quiet every line; else a progress bar, and every line but the periodic train and eval records.
  const echo = hooks.echo ?? ((line: string) => console.error(line));
  const log = new RunLog(join(o.work, 'log.jsonl'), (line, r) => {
    const periodic = r.event === 'train' || (r.event === 'eval' && r.step !== 0);
    if (o.quiet || !periodic) echo(line);
  });

  const { tokenizerJson, tok, config, weights } = readBase(o.base);
  const T = config.nPositions;

  // Bad records (not JSON, null, [], no id, a text that is not a string) are named on stderr and skipped.
  const { records, train: cTrain, val: cVal, badRecords } = readCStar(o.data, echo);
  const upsampled = Array.from({ length: Math.max(1, o.upsample) }, () => cTrain).flat();

  const badDocs = badLineReporter('finetune', echo);
  const docs = o.corpus.flatMap((path) => readJsonl(path, badDocs.report));
  badDocs.done();
  const { train, val } = splitDocs(docs);
  const facts = splitFacts(capitalFacts());
  const model = new Gpt2(config, o.batch * T, T, parseThreads(o.threads));
  model.loadWeights(weights);
  const optimizer = new AdamW(model, {
    lr: o.lr, warmupSteps: o.warmup, totalSteps: o.steps, lrScale: constructedLrScale(model, o.protect),
  });

  const baseMix = MIXTURE_SCHEDULE.at(-1)!.mixture;
  const seed = o.seed * 100_003;
  const batcher = new Batcher(tok, train, facts.train, T, baseMix, seed);
  // One RNG decides each row's kind and draws the C* windows.
  const rng = mulberry32(seed ^ 0x5bd1e995);
  const naturalFiller = (): Int32Array => batcher.row().subarray(1);
  const windows = new CallWindows(tok, upsampled, T, rng, naturalFiller);
  if (windows.size === 0) throw new Error('finetune: no C* record with a call (or anchors) in --data');
  const valWindows = new CallWindows(tok, cVal.length > 0 ? cVal : cTrain.slice(0, 8), T, mulberry32(7), naturalFiller);
  const cstarValRows = valWindows.batch(32, 77);
  const probeData = { val, valBatch: validationBatch(tok, val, 32, T), heldOut: facts.heldOut };
  const rows = mixedRows(T, o.mix, rng, windows, batcher);
  const progress = stepProgress(o.quiet, o.steps, hooks.onStep);
  const loop = new TrainingLoop({
    model, optimizer, rows: o.batch, steps: o.steps, evalEvery: o.evalEvery, ckptEvery: o.ckptEvery, data: rows,
    evaluate: () => runProbes(model, tok, probeData, { cstarValLoss: cstarValRows }),
    checkpointPath: join(o.work, CHECKPOINT_FILE),
    options: o, log, deadline: t0 + o.minutes * 60_000, onStep: progress.onStep,
  });
  if (o.resume && loop.resume()) log.write({ event: 'resume', step: loop.state.step });
  else if (o.resume) log.write({ event: 'resume', note: 'no checkpoint: starting from the base model' });

  const data = { files: o.data, records: records.length, trainRecords: cTrain.length, valRecords: cVal.length,
    trainWindows: windows.size, calls: countCalls(cTrain), ...(badRecords + badDocs.count > 0 && { badRecords: { data: badRecords, corpus: badDocs.count } }) };
  log.write({ event: 'start', config, params: model.numParams, threads: model.arena.threads, options: o, step: loop.state.step, data });
  const { state, final } = loop.runAndRelease();
  progress.stop();
  const record = { base: relative(process.cwd(), o.base) || o.base, ...state, config, params: model.numParams, data,
    rowsDrawn: rows.drawn(), baseMixture: baseMix, options: o, ...final };
  await finishRun({
    work: o.work, out: o.out, export: o.export, log, record, baseDir: o.base,
    model: { config, weights: model.weights(), tokenizer: tokenizerJson },
  });
}

/** The base model as finetuning starts from it: its tokenizer (the JSON, for the export, and the trainer's) and its weights. */
function readBase(base: string) {
  const tokenizerJson = readBoundedJson(join(base, 'tokenizer.json'), join(base, 'tokenizer.json'), READ_CAPS.modelJson) as never;
  const tok = BpeTokenizer.fromJSON(tokenizerJson);
  const { config, weights } = readGpt2Onnx(readBoundedFile(join(base, 'onnx/model.onnx'), join(base, 'onnx/model.onnx'), READ_CAPS.onnx), readBoundedJson(join(base, 'config.json'), join(base, 'config.json'), READ_CAPS.modelJson) as never);
  if (config.vocabSize !== tok.vocabSize) throw new Error(`finetune: tokenizer has ${tok.vocabSize} tokens, the model ${config.vocabSize}`);
  return { tokenizerJson, tok, config, weights };
}

/**
 * The batches' rows of T + 1 tokens: each, with probability 1 − `mix`, a C* window (`windows`), else a row of the
 * base mixture (`batcher`); `rng` decides. Its position (the batcher's, the rng's and the counts drawn) goes in each
 * checkpoint.
 */
function mixedRows(
  T: number, mix: number, rng: SeekableRandom, windows: CallWindows, batcher: Batcher,
): RowSource & { drawn(): FinetuneDataState['drawn'] } {
  let drawn = { cstar: 0, base: 0 };
  return {
    drawn: () => drawn,
    next: (rows) => {
      const x = new Int32Array(rows * T);
      const y = new Int32Array(rows * T);
      for (let b = 0; b < rows; b++) {
        const cstar = rng.next() >= mix;
        const r = cstar ? windows.row() : batcher.row();
        drawn[cstar ? 'cstar' : 'base']++;
        x.set(r.subarray(0, T), b * T);
        y.set(r.subarray(1, T + 1), b * T);
      }
      return { x, y };
    },
    save: (): FinetuneDataState => ({ batcher: batcher.saveState(), rng: rng.getState(), drawn: { ...drawn } }),
    restore: (s) => {
      const state = s as FinetuneDataState;
      batcher.restoreState(state.batcher);
      rng.setState(state.rng);
      drawn = { ...state.drawn };
    },
  };
}

/** The progress bar on stderr (none when `quiet`), moved after each step; `after` is called after each step too. */
function stepProgress(quiet: boolean, steps: number, after?: (step: number) => void) {
  let barStarted = false;
  const bar = quiet ? null : new cliProgress.SingleBar({
    format: 'finetune [{bar}] {value}/{total} steps | loss {loss} | {tps} tok/s | ETA {eta_formatted}',
    etaBuffer: 20, stream: process.stderr,
  }, cliProgress.Presets.shades_classic);
  return {
    onStep: (step: number, train: LogRecord | undefined) => {
      if (bar && !barStarted) {
        bar.start(steps, step - 1, { loss: '-', tps: '-' });
        barStarted = true;
      }
      if (train) bar?.update(step, { loss: (train.loss as number).toFixed(3), tps: train.tokensPerSecond });
      else bar?.update(step);
      after?.(step);
    },
    stop: () => bar?.stop(),
  };
}
