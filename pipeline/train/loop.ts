/**
 * The one training loop, used by `npm run train:model` (from-scratch.ts) and `toolformer finetune` (finetune.ts);
 * each passes in its model, optimiser (which holds the lr schedule), data source, probes and log.
 *
 * Before the first step: an `eval` record (the probes at step 0). Each step: a batch of `rows` sequences from the data source → forward → backward → AdamW step. Every 10 steps a
 * `train` log record (mean loss since the previous one, lr, gradient norm, tokens/s); every `evalEvery` steps an
 * `eval` record; every `ckptEvery` steps and at the end a checkpoint (checkpoint.ts). The loop stops at `steps` or
 * at the deadline, whichever comes first; then the probes once more (the `final` record's, written by the caller).
 *
 * Resume is exact: a checkpoint holds the weights, AdamW's moments and step, the counters, the data source's RNG
 * state and the open loss window, so a run killed after a checkpoint and resumed takes the same steps on the same
 * rows as one that was never stopped, and ends with the same bytes.
 */
import type { AdamW } from './adamw.ts';
import { readCheckpoint, writeCheckpoint } from './checkpoint.ts';
import type { Batch } from './data.ts';
import type { Gpt2, Gpt2Config } from './gpt2.ts';
import type { LogRecord, RunLog } from './run-log.ts';

/** Where training rows come from. */
export interface RowSource {
  /** `rows` sequences of T inputs and their T next tokens, for optimiser step `step` (0-based). */
  next(rows: number, step: number): Batch;
  /** The source's position (RNG states, counters) as JSON, stored in each checkpoint. */
  save(): unknown;
  /** Continue from a position `save()` returned. */
  restore(state: unknown): void;
}

export interface LoopSpec {
  model: Gpt2;
  /** Its lr schedule (warmup, cosine to totalSteps) is the run's. */
  optimizer: AdamW;
  data: RowSource;
  /** Sequences per step; each is model.config.nPositions tokens. */
  rows: number;
  /** Stop after this many optimiser steps in all. */
  steps: number;
  evalEvery: number;
  ckptEvery: number;
  /** The probes: their record is logged as `{ event: 'eval', step, tokensSeen, ...evaluate() }`. */
  evaluate: () => Record<string, unknown>;
  checkpointPath: string;
  /** Stored in the checkpoint for the record (the run's options as given). */
  options: unknown;
  log: RunLog;
  /** Stop (after the final checkpoint) once now() reaches this, in ms. @default Infinity */
  deadline?: number;
  /** @default Date.now */
  now?: () => number;
  /** After each step, with the `train` record when one was logged (a progress bar; tests stop a run here). */
  onStep?: (step: number, train: LogRecord | undefined) => void;
}

/** A run's counters, kept across resumes. */
export interface LoopState {
  step: number;
  tokensSeen: number;
  /** Seconds in optimiser steps (evaluations and start-up not counted). */
  trainSeconds: number;
}

const LOG_EVERY = 10;

export class TrainingLoop {
  readonly state: LoopState = { step: 0, tokensSeen: 0, trainSeconds: 0 };
  /** Losses since the last `train` record: a resumed run continues the window, so its log matches too. */
  private window = { lossSum: 0, lossN: 0 };
  private readonly now: () => number;

  constructor(private readonly spec: LoopSpec) {
    this.now = spec.now ?? Date.now;
  }

  private get config(): Gpt2Config {
    return this.spec.model.config;
  }

  /**
   * Continue from the checkpoint at spec.checkpointPath: weights, optimiser, counters, data source. Returns false
   * (and changes nothing) when there is none; throws on a damaged one or one of another model.
   */
  resume(): boolean {
    const { model, optimizer, data, checkpointPath } = this.spec;
    const ckpt = readCheckpoint(checkpointPath);
    if (!ckpt) return false;
    const h = ckpt.header;
    if (JSON.stringify(h.config) !== JSON.stringify(this.config)) {
      throw new Error(`checkpoint ${checkpointPath} is of another model (${JSON.stringify(h.config)}); this run builds ` +
        `${JSON.stringify(this.config)}`);
    }
    const { params, 'adam.m': m, 'adam.v': v } = ckpt.tensors;
    for (const t of [params, m, v]) {
      if (t?.length !== model.params.length) {
        throw new Error(`checkpoint ${checkpointPath}: tensors do not match the model's ${model.params.length} parameters`);
      }
    }
    model.params.set(params);
    optimizer.m.set(m);
    optimizer.v.set(v);
    optimizer.step_ = h.step;
    Object.assign(this.state, { step: h.step, tokensSeen: h.tokensSeen, trainSeconds: h.trainSeconds });
    this.window = { ...(h.lossWindow as { lossSum: number; lossN: number }) };
    data.restore(h.data);
    return true;
  }

  checkpoint(): void {
    const { model, optimizer, data, options, checkpointPath } = this.spec;
    writeCheckpoint(checkpointPath, {
      header: { ...this.state, config: this.config, options, data: data.save(), lossWindow: this.window },
      tensors: { params: model.params, 'adam.m': optimizer.m, 'adam.v': optimizer.v },
    });
  }

  /**
   * Train to spec.steps or the deadline (probes first when at step 0), write the final checkpoint, and return the
   * counters with the final probes.
   */
  run(): { state: LoopState; final: Record<string, unknown> } {
    const { model, optimizer, data, rows, steps, evalEvery, ckptEvery, log, evaluate, onStep } = this.spec;
    const { now, state } = this;
    if (state.step === 0) log.write({ event: 'eval', step: 0, ...evaluate() });
    const deadline = this.spec.deadline ?? Infinity;
    const T = this.config.nPositions;
    let windowStart = now();
    let windowTokens = 0;
    while (state.step < steps && now() < deadline) {
      const s0 = now();
      const { x, y } = data.next(rows, state.step);
      model.zeroGrad();
      const loss = model.forward(x, rows, T, y);
      model.backward();
      const gradNorm = optimizer.step();
      const step = ++state.step;
      state.tokensSeen += rows * T;
      windowTokens += rows * T;
      state.trainSeconds += (now() - s0) / 1000;
      this.window.lossSum += loss;
      this.window.lossN++;
      let train: LogRecord | undefined;
      if (step % LOG_EVERY === 0) {
        const tokensPerSecond = Math.round(windowTokens / ((now() - windowStart) / 1000));
        const { lossSum, lossN } = this.window;
        train = { event: 'train', step, loss: lossSum / lossN, lr: optimizer.lrAt(step - 1), gradNorm, tokensPerSecond };
        log.write(train);
        windowStart = now();
        windowTokens = 0;
        this.window = { lossSum: 0, lossN: 0 };
      }
      onStep?.(step, train);
      if (step % evalEvery === 0) log.write({ event: 'eval', step, tokensSeen: state.tokensSeen, ...evaluate() });
      if (step % ckptEvery === 0) this.checkpoint();
    }
    this.checkpoint();
    return { state: { ...state }, final: evaluate() };
  }

  /** run(), then stop the model's matmul threads (Gpt2.close) however it ends: what the entry points call. */
  runAndRelease(): { state: LoopState; final: Record<string, unknown> } {
    try {
      return this.run();
    } finally {
      this.spec.model.close();
    }
  }
}
