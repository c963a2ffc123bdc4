/**
 * Kill and resume through both entry points (`npm run train:model`'s trainModel and `toolformer finetune`'s
 * finetune): a run stopped after a checkpoint and resumed with --resume ends with the same checkpoint bytes and the
 * same record as a run never stopped; and `npm run train:model` killed with SIGKILL in a real process. (loop.test.ts
 * covers the loop itself on a synthetic source.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHECKPOINT_FILE, readCheckpoint } from './checkpoint.ts';
import { finetune, type FinetuneOptions } from './finetune.ts';
import { trainModel, type TrainModelOptions } from './from-scratch.ts';
import { readRunLog } from './run-log.ts';

const dir = mkdtempSync(join(tmpdir(), 'resume-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// 150 Factbook documents: 3 held out by the id split, enough for the validation rows and probes.
const corpus = join(dir, 'corpus.jsonl');
writeFileSync(corpus, readFileSync('corpus/factbook.jsonl', 'utf8').split('\n').slice(0, 150).join('\n') + '\n');

const digest = (work: string): Record<string, string> => {
  const c = readCheckpoint(join(work, CHECKPOINT_FILE))!;
  return Object.fromEntries(Object.entries(c.tensors).map(([k, t]) =>
    [k, createHash('sha256').update(new Uint8Array(t.buffer, t.byteOffset, t.byteLength)).digest('hex')]));
};
/** train-record.json without what depends on the clock or on the work directory. */
const record = (work: string): Record<string, unknown> => {
  const { trainSeconds: _t, evalSeconds: _e, options: _o, ...r } = JSON.parse(readFileSync(join(work, 'train-record.json'), 'utf8'));
  return r;
};
const killAt = (at: number) => (step: number): void => {
  if (step === at) throw new Error(`killed at step ${at}`);
};
const quiet = (): void => {};

const trainOptions = (work: string): TrainModelOptions => ({
  corpus: [corpus], work, out: join(work, 'model'), vocab: '300', digitPairs: true, layers: '2', embd: '32', heads: '2',
  seq: '128', batch: '2', steps: '12', minutes: '1e9', lr: '3e-3', warmup: '2', protect: '0.1', init: 'random',
  seed: '4', evalEvery: '100', ckptEvery: '3', resume: false, export: false,
});
/** The uninterrupted train:model run; its export is the finetune test's (small, cheap to probe) base model. */
const trainA = join(dir, 'train-a');
beforeAll(() => trainModel({ ...trainOptions(trainA), export: true }, { echo: quiet }), 300_000);

describe('kill and resume through the entry points', () => {
  it('train:model: stopped at step 7 (checkpoint at 6), resumed, equals the uninterrupted run', async () => {
    const b = join(dir, 'train-b');
    await expect(trainModel(trainOptions(b), { echo: quiet, onStep: killAt(7) })).rejects.toThrow('killed at step 7');
    expect(readCheckpoint(join(b, CHECKPOINT_FILE))!.header.step).toBe(6);
    // Resumed on two threads (the head's matmuls, 256 × 32 × 300, are split): the same bytes as one thread throughout.
    await trainModel({ ...trainOptions(b), threads: '2', resume: true }, { echo: quiet });
    expect(digest(b)).toEqual(digest(trainA));
    expect(record(b)).toEqual(record(trainA));
    const log = readRunLog(join(b, 'log.jsonl'));
    expect(log.find((r) => r.event === 'resume')).toMatchObject({ step: 6 });
    expect(log.filter((r) => r.event === 'start').map((r) => r.threads)).toEqual([1, 2]);
  }, 300_000);

  it('toolformer finetune: stopped at step 5 (checkpoint at 4), resumed, equals the uninterrupted run', async () => {
    const options = (work: string): FinetuneOptions => ({
      data: ['models/toolformer/finetune-data/a.jsonl'], base: join(trainA, 'model'), out: join(work, 'model'),
      corpus: [corpus], work, mix: 0.4, upsample: 1, steps: 6, batch: 1, lr: 3e-4, warmup: 2, protect: 0.1, seed: 3,
      evalEvery: 100, ckptEvery: 2, minutes: 1e9, resume: false, export: false, quiet: true, rebuild: 'test',
    });
    const a = join(dir, 'ft-a');
    const b = join(dir, 'ft-b');
    await finetune(options(a), { echo: quiet });
    await expect(finetune(options(b), { echo: quiet, onStep: killAt(5) })).rejects.toThrow('killed at step 5');
    expect(readCheckpoint(join(b, CHECKPOINT_FILE))!.header.step).toBe(4);
    await finetune({ ...options(b), resume: true }, { echo: quiet });
    expect(digest(b)).toEqual(digest(a));
    expect(record(b)).toEqual(record(a)); // rowsDrawn included: the resumed run continues the counts
  }, 300_000);

  it('npm run train:model killed with SIGKILL as soon as its first checkpoint lands, then resumed, equals the uninterrupted run', async () => {
    const steps = '60'; // the first checkpoint is at step 3: the kill lands long before the end
    const a = join(dir, 'kill-a');
    const b = join(dir, 'kill-b');
    await trainModel({ ...trainOptions(a), steps }, { echo: quiet });
    mkdirSync(b);
    const o = { ...trainOptions(b), steps };
    const flags = ['--corpus', corpus, '--work', b, '--vocab', o.vocab, '--layers', o.layers, '--embd', o.embd, '--heads',
      o.heads, '--seq', o.seq, '--batch', o.batch, '--steps', steps, '--lr', o.lr, '--warmup', o.warmup, '--init', o.init,
      '--seed', o.seed, '--eval-every', o.evalEvery, '--ckpt-every', o.ckptEvery, '--no-export'];
    const child = spawn(process.execPath, ['--import', 'tsx', 'pipeline/train/cli.ts', ...flags], { stdio: 'ignore' });
    const watcher = watch(b, (_, name) => {
      if (name === CHECKPOINT_FILE) child.kill('SIGKILL');
    });
    const signal = await new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_, sig) => done(sig)));
    watcher.close();
    expect(signal).toBe('SIGKILL');
    const killedAt = readCheckpoint(join(b, CHECKPOINT_FILE))!.header.step;
    expect(killedAt).toBeLessThan(60);
    await trainModel({ ...o, resume: true }, { echo: quiet });
    expect(digest(b)).toEqual(digest(a));
    expect(record(b)).toEqual(record(a));
  }, 300_000);
});
