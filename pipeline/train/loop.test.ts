import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mulberry32 } from '../random/mulberry32.ts';
import { AdamW } from './adamw.ts';
import { CHECKPOINT_FILE, readCheckpoint } from './checkpoint.ts';
import { Gpt2 } from './gpt2.ts';
import { TrainingLoop, type RowSource } from './loop.ts';
import { readRunLog, RunLog } from './run-log.ts';

const config = { vocabSize: 40, nPositions: 16, nEmbd: 16, nLayer: 2, nHead: 2, layerNormEpsilon: 1e-5 };
const ROWS = 3;

/** Rows of a repeating pattern with random offsets (learnable, so losses fall), from a seekable RNG. */
function patternSource(): RowSource & { drawn: () => number } {
  const rng = mulberry32(11);
  let drawn = 0;
  return {
    next(rows) {
      const T = config.nPositions;
      const x = new Int32Array(rows * T);
      const y = new Int32Array(rows * T);
      for (let b = 0; b < rows; b++) {
        const off = Math.floor(rng.next() * 30);
        for (let t = 0; t < T; t++) {
          x[b * T + t] = (off + 3 * t) % 40;
          y[b * T + t] = (off + 3 * t + 3) % 40;
        }
        drawn++;
      }
      return { x, y };
    },
    save: () => ({ rng: rng.getState(), drawn }),
    restore(s) {
      const state = s as { rng: number; drawn: number };
      rng.setState(state.rng);
      drawn = state.drawn;
    },
    drawn: () => drawn,
  };
}

/** A run in `work`; `stopAt`: throw after that step, as a kill would stop it (its later state is lost). */
function run(work: string, opts: { resume?: boolean; stopAt?: number } = {}) {
  const model = new Gpt2(config, ROWS * config.nPositions);
  model.init(5);
  const optimizer = new AdamW(model, { lr: 1e-2, warmupSteps: 3, totalSteps: 24 });
  const data = patternSource();
  let evals = 0;
  const loop = new TrainingLoop({
    model, optimizer, data, rows: ROWS, steps: 24, evalEvery: 8, ckptEvery: 5,
    evaluate: () => ({ probe: ++evals }),
    checkpointPath: join(work, CHECKPOINT_FILE), options: { seed: 5 }, log: new RunLog(join(work, 'log.jsonl')),
    onStep: (step) => {
      if (step === opts.stopAt) throw new Error('killed');
    },
  });
  const resumed = opts.resume ? loop.resume() : false;
  const result = loop.run();
  return { model, optimizer, data, result, resumed };
}

/** Of the array's own bytes (params is a view into the WASM arena's memory). */
const sha256 = (t: Float32Array): string => createHash('sha256').update(new Uint8Array(t.buffer, t.byteOffset, t.byteLength)).digest('hex');

const trainLosses = (work: string) => readRunLog(join(work, 'log.jsonl')).filter((r) => r.event === 'train').map((r) => [r.step, r.loss, r.lr, r.gradNorm]);

describe('the training loop', () => {
  it('logs every 10 steps, probes at 0 and every evalEvery, checkpoints every ckptEvery and at the end', () => {
    const work = mkdtempSync(join(tmpdir(), 'loop-'));
    try {
      const { result, model } = run(work);
      const log = readRunLog(join(work, 'log.jsonl'));
      expect(log.filter((r) => r.event === 'train').map((r) => r.step)).toEqual([10, 20]);
      expect(log.filter((r) => r.event === 'eval').map((r) => [r.step, r.probe])).toEqual([[0, 1], [8, 2], [16, 3], [24, 4]]);
      expect(result.final).toEqual({ probe: 5 });
      expect(result.state).toMatchObject({ step: 24, tokensSeen: 24 * ROWS * 16 });
      const losses = log.filter((r) => r.event === 'train').map((r) => r.loss as number);
      expect(losses[1]).toBeLessThan(losses[0]);
      const ckpt = readCheckpoint(join(work, CHECKPOINT_FILE))!;
      expect(ckpt.header.step).toBe(24);
      expect([...ckpt.tensors.params]).toEqual([...model.params]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('stops at the deadline of its clock and still writes the final checkpoint', () => {
    const work = mkdtempSync(join(tmpdir(), 'loop-'));
    try {
      let ticks = 0;
      const model = new Gpt2(config, ROWS * 16);
      model.init(5);
      const loop = new TrainingLoop({
        model, optimizer: new AdamW(model, { lr: 1e-2, warmupSteps: 3, totalSteps: 24 }), data: patternSource(),
        rows: ROWS, steps: 24, evalEvery: 100, ckptEvery: 100, evaluate: () => ({}), options: {},
        checkpointPath: join(work, CHECKPOINT_FILE), log: new RunLog(join(work, 'log.jsonl')),
        now: () => ticks++, deadline: 20, // the loop reads the clock 3 times per step (4 on a logging step)
      });
      const { state } = loop.run();
      expect(state.step).toBe(7);
      expect(readCheckpoint(join(work, CHECKPOINT_FILE))!.header.step).toBe(7);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('a run killed after a checkpoint and resumed ends with the same bytes and log as one never stopped', () => {
    const a = mkdtempSync(join(tmpdir(), 'loop-a-'));
    const b = mkdtempSync(join(tmpdir(), 'loop-b-'));
    try {
      const whole = run(a);
      // Killed at step 13: the checkpoint of step 10 survives; steps 11–13 are lost and taken again.
      expect(() => run(b, { stopAt: 13 })).toThrow('killed');
      expect(readCheckpoint(join(b, CHECKPOINT_FILE))!.header.step).toBe(10);
      const resumed = run(b, { resume: true });
      expect(resumed.resumed).toBe(true);
      expect(resumed.result.state.step).toBe(24);
      expect(sha256(resumed.model.params)).toBe(sha256(whole.model.params));
      expect(sha256(resumed.optimizer.m)).toBe(sha256(whole.optimizer.m));
      expect(sha256(resumed.optimizer.v)).toBe(sha256(whole.optimizer.v));
      expect(resumed.data.drawn()).toBe(whole.data.drawn());
      // The resumed log repeats the lost steps' records; the records per step are the uninterrupted run's.
      expect(new Map(trainLosses(b).map((r) => [r[0], r]))).toEqual(new Map(trainLosses(a).map((r) => [r[0], r])));
    } finally {
      rmSync(a, { recursive: true, force: true });
      rmSync(b, { recursive: true, force: true });
    }
  });

  it('refuses to resume a checkpoint of another model', () => {
    const work = mkdtempSync(join(tmpdir(), 'loop-'));
    try {
      run(work);
      const model = new Gpt2({ ...config, nLayer: 1 }, ROWS * 16);
      const loop = new TrainingLoop({
        model, optimizer: new AdamW(model, { lr: 1e-2, warmupSteps: 3, totalSteps: 24 }), data: patternSource(),
        rows: ROWS, steps: 24, evalEvery: 8, ckptEvery: 5, evaluate: () => ({}), options: {},
        checkpointPath: join(work, CHECKPOINT_FILE), log: new RunLog(join(work, 'log.jsonl')),
      });
      expect(() => loop.resume()).toThrow(/is of another model/);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
