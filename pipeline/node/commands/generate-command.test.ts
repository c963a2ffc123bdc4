import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../testing/cli-child.ts';

/** `toolformer generate` as a user runs it, on the shipped finetuned model (greedy, so the outputs are fixed). */
const MODEL = resolve(ROOT, 'models/toolformer');
const tmp = mkdtempSync(join(tmpdir(), 'generate-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('toolformer generate', () => {
  it('--json, default model: a held-out capital makes a QA call whose result is inserted; --no-tools makes none', async () => {
    // No --model: the default is the model that writes calls (issue 33: it was models/default, which never calls).
    const on = await runCli(['generate', 'The capital of Peru is', '--json'], tmp);
    expect(on.code).toBe(0);
    const r = JSON.parse(on.stdout);
    expect(r.calls).toEqual([{ tool: 'QA', input: 'What is the capital of Peru?', result: 'Lima' }]);
    expect(r.text.startsWith(' [QA("What is the capital of Peru?") -> Lima] Lima')).toBe(true);
    const off = await runCli(['generate', 'The capital of Peru is', '--model', MODEL, '--json', '--no-tools'], tmp);
    expect(JSON.parse(off.stdout).calls).toEqual([]);
    expect(JSON.parse(off.stdout).text).not.toContain('[');
  }, 120_000);

  it('--model <.gguf>: the same weights through llama.cpp generate the same greedy text and call', async () => {
    const gguf = join(tmp, 'toolformer.gguf');
    const converted = await runCli(['convert', MODEL, '--to', 'gguf', '--out', gguf], tmp);
    expect(converted.code, converted.stderr).toBe(0);
    const prompt = 'The capital of Peru is';
    const [onnx, llama] = [await runCli(['generate', prompt, '--json'], tmp), await runCli(['generate', prompt, '--json', '--model', gguf], tmp)];
    expect(llama.code, llama.stderr).toBe(0);
    expect(JSON.parse(llama.stdout)).toEqual(JSON.parse(onnx.stdout));
    expect(JSON.parse(llama.stdout).calls).toEqual([{ tool: 'QA', input: 'What is the capital of Peru?', result: 'Lima' }]);
  }, 240_000);

  it('--input/--out: results in input order, bad lines on stderr with their line numbers, the rest still run', async () => {
    writeFileSync(join(tmp, 'p.jsonl'), [
      '{"id":"a","prompt":"The capital of Peru is"}',
      'not json',
      '{"id":"b"}',
      // The record's date is the Calendar's "today": the call's result must be that date.
      '{"id":"c","prompt":"The letter is dated March 14,","date":"2019-03-14"}',
    ].join('\n') + '\n');
    const res = await runCli(['generate', '--input', 'p.jsonl', '--out', 'r.jsonl', '--model', MODEL], tmp);
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/p\.jsonl:2: not JSON/);
    expect(res.stderr).toMatch(/p\.jsonl:3: expected \{"id"/);
    const out = readFileSync(join(tmp, 'r.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(out.map((o) => o.id)).toEqual(['a', 'c']);
    expect(out[1].calls).toEqual([{ tool: 'Calendar', input: '', result: 'Today is Thursday, March 14, 2019.' }]);
  }, 120_000);
});
