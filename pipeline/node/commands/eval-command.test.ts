/**
 * `toolformer eval` and `toolformer loss` on the model as people hold it: the shipped finetuned model converted to a
 * .gguf runs through llama.cpp and gives what its ONNX folder gives (greedy trials identical; the held-out loss over
 * the same windows within llama.cpp's float16 GELU table), and --toolkens, which needs an ONNX model's hidden states,
 * refuses a .gguf in one line before anything loads.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../testing/cli-child.ts';
import { startServe } from '../testing/serving-url.ts';

const MODEL = resolve(ROOT, 'models/toolformer');
const tmp = mkdtempSync(join(tmpdir(), 'eval-any-'));
const gguf = join(tmp, 'toolformer.gguf');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

beforeAll(async () => {
  const converted = await runCli(['convert', MODEL, '--to', 'gguf', '--out', gguf], tmp);
  expect(converted.code, converted.stderr).toBe(0);
}, 240_000);

/** Held-out capitals and a date the shipped model calls tools for, and one that needs no call. */
const PROMPTS = [
  { id: 'peru', family: 'capitals', prompt: 'The capital of Peru is', answers: ['Lima'], tool: 'QA' },
  { id: 'kenya', family: 'capitals', prompt: 'The capital city of Kenya is', answers: ['Nairobi'], tool: 'QA' },
  { id: 'sum', family: 'arithmetic', prompt: 'Out of 1400 participants, 400 passed the test. That is', answers: ['29'], tool: 'Calculator' },
  { id: 'plain', family: 'relevance', prompt: 'The weather was nice and we walked to the', answers: ['park'] },
];

const trials = (dir: string) => readFileSync(join(dir, 'trials.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('eval and loss on any LM backend', () => {
  it('eval --model <.gguf>: the same greedy trials (texts, calls, verdicts) as the ONNX folder, and its own out/eval name', async () => {
    const set = join(tmp, 'set.jsonl');
    writeFileSync(set, PROMPTS.map((p) => JSON.stringify(p)).join('\n') + '\n');
    const args = ['eval', '--set', set, '--trials', '0', '--max-new-tokens', '32', '--quiet'];
    const onnx = await runCli([...args, '--model', MODEL, '--out', join(tmp, 'onnx')], tmp);
    expect(onnx.code, onnx.stderr).toBe(0);
    const llama = await runCli([...args, '--model', gguf], tmp);
    expect(llama.code, llama.stderr).toBe(0);
    const fromOnnx = trials(join(tmp, 'onnx'));
    // No --out: out/eval/<the file's name without .gguf> under the working directory.
    const fromGguf = trials(join(tmp, 'out/eval/toolformer'));
    expect(fromGguf).toHaveLength(2 * PROMPTS.length);
    expect(fromGguf).toEqual(fromOnnx);
    const peru = fromGguf.find((t) => t.id === 'peru' && t.tools) as { calls: { input: string; result: string }[]; correct: boolean };
    expect(peru.calls[0]).toMatchObject({ input: 'What is the capital of Peru?', result: 'Lima' });
    expect(peru.correct).toBe(true);
  }, 240_000);

  it('loss --model <.gguf> and a served model: the same windows as the ONNX folder; the mean within 1e-3 nats/token through llama.cpp (measured 4e-6), equal when served', async () => {
    const input = join(tmp, 'docs.jsonl');
    writeFileSync(input, readFileSync(join(ROOT, 'corpus/sample.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 8).join('\n') + '\n');
    const run = async (model: string, out: string, ...more: string[]) => {
      const r = await runCli(['loss', '--model', model, '--input', input, '--tokens', '1000', '--out', join(tmp, out), ...more], tmp);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(readFileSync(join(tmp, out), 'utf8')) as { tokens: number; windows: number; meanNll: number; perWindow: number[]; model: string };
    };
    const [onnx, llama] = [await run(MODEL, 'onnx-loss.json'), await run(gguf, 'gguf-loss.json')];
    expect(llama.model).toBe('toolformer.gguf');
    expect([llama.tokens, llama.windows]).toEqual([onnx.tokens, onnx.windows]);
    expect(llama.tokens).toBeGreaterThanOrEqual(1000);
    // A trained model, far below a uniform guess over its 1024-token vocabulary (ln 1024 ≈ 6.93).
    expect(onnx.meanNll).toBeLessThan(5);
    expect(Math.abs(llama.meanNll - onnx.meanNll)).toBeLessThan(1e-3);
    llama.perWindow.forEach((x, i) => expect(Math.abs(x - onnx.perWindow[i])).toBeLessThan(2e-3));
    // `toolformer serve` over the same ONNX folder: ids sent, prompt log-probs back; the served loss is the folder's.
    const serve = startServe(MODEL);
    try {
      const url = await serve.url;
      const served = await run(url, 'served-loss.json', '--tokenizer', MODEL);
      expect(served.model).toBe(url);
      expect(served.perWindow).toHaveLength(onnx.windows);
      served.perWindow.forEach((x, i) => expect(Math.abs(x - onnx.perWindow[i])).toBeLessThan(1e-6));
    } finally {
      serve.child.kill();
    }
  }, 240_000);

  it('eval --toolkens with a .gguf: one line naming the backend, before the model or the toolkens file is read', async () => {
    const r = await runCli(['eval', '--model', gguf, '--toolkens', join(tmp, 'none.safetensors'), '--per-family', '1', '--out', join(tmp, 'tk')], tmp);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--toolkens reads an ONNX model's hidden states in this process; .*toolformer\.gguf runs on the llama\.cpp backend/);
  }, 120_000);
});
