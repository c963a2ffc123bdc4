/**
 * `toolformer toolkens train` end to end on the bundled model and real kept calls (the first 40 records of
 * models/toolformer/finetune-data/a.jsonl, arm (a) of the experiment): the file, the card, the frozen model.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeToolkens } from '../../core/toolkens/file.ts';
import { loadModel } from '../model/load-model.ts';
import { modelDigest } from '../run/run-digest.ts';
import { ROOT, runCli, type CliResult } from '../testing/cli-child.ts';

const MODEL = resolve(ROOT, 'models/default');
const TEXT = 'The capital of France is Paris. 3 + 4 = 7';
let dir: string;
let result: CliResult;
let digestBefore: string;
let logitsBefore: Float32Array;

async function logitsOf(): Promise<Float32Array> {
  const lm = await loadModel(MODEL, { lm: { hiddenStates: true } });
  try {
    return (await lm.hiddenStates(lm.encode(TEXT))).logits;
  } finally {
    await lm.release();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolkens-'));
  const records = readFileSync(join(ROOT, 'models/toolformer/finetune-data/a.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 40);
  writeFileSync(join(dir, 'train.jsonl'), [...records.slice(0, 20), '{"no text": 1}', ...records.slice(20)].join('\n') + '\n');
  digestBefore = modelDigest(MODEL);
  logitsBefore = await logitsOf();
  result = await runCli(['toolkens', 'train', dir, '--model', MODEL, '--out', join(dir, 'tk.safetensors'), '--epochs', '4', '--seed', '2'], dir);
}, 600_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('toolformer toolkens train <run dir>', () => {
  it('writes W_τ only — one float32 row per tool — with the tool names and the model digest', () => {
    expect(result.code, result.stderr).toBe(0);
    const bytes = new Uint8Array(readFileSync(join(dir, 'tk.safetensors')));
    const t = decodeToolkens(bytes);
    expect(t.tools).toContain('QA');
    expect(t.hiddenSize).toBe(256);
    const headerBytes = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
    expect(bytes.length).toBe(8 + headerBytes + 4 * t.tools.length * 256); // no copy of W_v (1024 × 256) in it
    expect(t.meta.modelDigest).toBe(digestBefore);
    expect(JSON.parse(t.meta.data)).toEqual([join(dir, 'train.jsonl')]);
    expect(t.meta.records).toBe('40');
    expect(t.meta.badLines).toBe('1');
    expect(result.stderr).toMatch(/train\.jsonl:21: not a record \{"text": "…"\}; skipped/);
    const cpu = JSON.parse(t.meta.cpuSeconds) as { features: number; train: number };
    expect(cpu.features + cpu.train).toBeGreaterThan(0);
  });

  it('the loss falls from the initial W_τ on the validation records', () => {
    const t = decodeToolkens(new Uint8Array(readFileSync(join(dir, 'tk.safetensors'))));
    const initial = JSON.parse(t.meta.initialLoss) as { train: number; val: number };
    const history = JSON.parse(t.meta.history) as { valLoss: number; trainLoss: number }[];
    const kept = history[Number(t.meta.bestEpoch) - 1];
    expect(Number(t.meta.bestEpoch)).toBeGreaterThan(0);
    expect(kept.valLoss).toBeLessThan(initial.val);
    expect(history[history.length - 1].trainLoss).toBeLessThan(initial.train);
    expect(readFileSync(join(dir, 'tk.md'), 'utf8')).toMatch(/\| 0 \(initial W_τ\) \|/);
  });

  it('leaves the model byte-unchanged: its files digest the same and W_v gives the same logits', async () => {
    expect(modelDigest(MODEL)).toBe(digestBefore);
    expect(await logitsOf()).toEqual(logitsBefore);
  });

  it('eval --toolken-mode constrained records, per call, the proposals the model chose among (what no-model.ts scores)', async () => {
    const prompt = { id: 'p1', family: 'capitals', prompt: 'Germany: People and Society. Austria lies to the south. The capital city of Austria is', answers: ['Vienna'], tool: 'QA', date: '2020-06-15' };
    writeFileSync(join(dir, 'set.jsonl'), `${JSON.stringify(prompt)}\n`);
    const r = await runCli(['eval', '--model', MODEL, '--set', join(dir, 'set.jsonl'), '--trials', '0', '--no-without-tools', '--quiet', '--max-new-tokens', '4',
      '--toolkens', join(dir, 'tk.safetensors'), '--toolken-mode', 'constrained', '--toolken-bias', '1000', '--out', join(dir, 'ev')], dir);
    expect(r.code, r.stderr).toBe(0);
    const [trial] = readFileSync(join(dir, 'ev', 'trials.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { calls: { tool: string; input: string; proposals?: string[] }[] });
    const qa = trial.calls.find((c) => c.tool === 'QA');
    expect(qa?.proposals?.[0]).toBe('What is the capital of Germany?');
    expect(qa?.proposals).toContain(qa?.input);
  });

  it('a file without any call is refused in one line', async () => {
    writeFileSync(join(dir, 'plain.jsonl'), '{"text": "no calls here"}\n');
    const r = await runCli(['toolkens', 'train', join(dir, 'plain.jsonl'), '--model', MODEL, '--out', join(dir, 'x.safetensors')], dir);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/no call in .*plain\.jsonl \(1 records\): nothing to train/);
  });
});
