import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TINY_MODEL, runCli } from '../testing/cli-child.ts';
import { TEST_CAP_MS } from '../testing/progress.ts';
import { lockDirectory } from '../../io/dir-lock.ts';

/**
 * Fatal configuration errors stop `toolformer annotate` at once: exit code 1, one line on stderr that names the
 * fix, no stack trace, nothing written to --out. (A missing input path is not fatal: reliability.test.ts.)
 */
const tmp = mkdtempSync(join(tmpdir(), 'cli-errors-'));
const sample = join(ROOT, 'corpus/sample.jsonl');
const annotate = (...flags: string[]) => runCli(['annotate', sample, '--out', 'out', '--max-docs', '1', '--quiet', ...flags], tmp);

beforeAll(() => {
  // A model directory whose config.json is not JSON, and one whose ONNX file is garbage.
  cpSync(TINY_MODEL, join(tmp, 'bad-config'), { recursive: true });
  writeFileSync(join(tmp, 'bad-config/config.json'), '{"model_type": "gpt2",');
  cpSync(TINY_MODEL, join(tmp, 'bad-onnx'), { recursive: true });
  writeFileSync(join(tmp, 'bad-onnx/onnx/model.onnx'), Buffer.from('not a protobuf \x00\x01\x02 at all'.repeat(50)));
  // An out dir that already holds a run.
  mkdirSync(join(tmp, 'done'));
  writeFileSync(join(tmp, 'done/calls.jsonl'), '{"docId":"a"}\n');
  writeFileSync(join(tmp, 'done/checkpoint.json'), '{"items":1,"docs":1,"bytes":{"train.jsonl":0,"calls.jsonl":14,"errors.jsonl":0},"stats":{}}');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const cases: [string, string[], RegExp][] = [
  ['a missing model directory', ['--model', 'no-such-model'], /no-such-model: no such directory\..*pass --model <dir>/],
  ['a model whose config.json is not JSON', ['--model', 'bad-config'], /bad-config: config\.json is not valid JSON/],
  ['a model whose ONNX file is garbage', ['--model', 'bad-onnx'], /bad-onnx: onnx\/model\.onnx: ONNX file: unsupported wire type \d+ at byte \d+\. The directory has: /],
  ['an unknown tool name', ['--model', TINY_MODEL, '--tools', 'Calculator,Abacus'], /unknown tool "Abacus": use one of Calculator, QA, Calendar, Translate/],
  ['τ_s above 1', ['--model', TINY_MODEL, '--tau-s', '1.5'], /τ_s must be in \[0, 1\] \(got 1\.5\): pass --tau-s 0\.05/],
  ['τ_s below 0', ['--model', TINY_MODEL, '--tau-s', '-0.1'], /τ_s must be in \[0, 1\] \(got -0\.1\)/],
  ['a negative k', ['--model', TINY_MODEL, '--k', '-1'], /--k must be a non-negative integer/],
  ['a τ_f that is not a number', ['--model', TINY_MODEL, '--tau-f', 'high'], /--tau-f must be a number/],
  ['no tools', ['--model', TINY_MODEL, '--tools', ' , '], /no tools: pass --tools with some of Calculator/],
  ['a batch size of 0', ['--model', TINY_MODEL, '--batch-size', '0'], /--batch-size must be ≥ 1 \(got 0\): pass --batch-size 16/],
  ['a tool concurrency of 0', ['--model', TINY_MODEL, '--concurrency', '0'], /--concurrency must be ≥ 1 \(got 0\): pass --concurrency 4/],
  ['a tool timeout of 0', ['--model', TINY_MODEL, '--tool-timeout', '0'], /--tool-timeout must be ≥ 1 ms \(got 0\): pass --tool-timeout 30000/],
  ['an unknown flag', ['--model', TINY_MODEL, '--tua-f', '1'], /unknown option '--tua-f'/],
  ['--mcp with worker processes', ['--model', TINY_MODEL, '--mcp', 'some-server', '--workers', '2'], /--mcp runs in one process: drop --workers, --shard and --queue/],
];

describe('toolformer annotate: fatal configuration errors', { timeout: TEST_CAP_MS }, () => {
  it.each(cases)('%s: exit 1, one line naming the fix, no stack trace, no output', async (_name, flags, message) => {
    const { code, stderr, stdout } = await annotate(...flags);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^toolformer: [^\n]+\n$/);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\bat .*:\d+:\d+/);
    expect(stdout).toBe('');
    expect(() => readFileSync(join(tmp, 'out/calls.jsonl'))).toThrow(/ENOENT/);
  });

  it('a run without --resume into an out dir that holds one: refused, naming --resume, files untouched', async () => {
    const { code, stderr } = await annotate('--model', TINY_MODEL, '--out', 'done');
    expect(code).toBe(1);
    expect(stderr).toBe('toolformer: done already holds a run (checkpoint.json, calls.jsonl): pass --resume to continue it, --overwrite to replace it, or choose another --out\n');
    expect(readFileSync(join(tmp, 'done/calls.jsonl'), 'utf8')).toBe('{"docId":"a"}\n');
  });

  it('an out dir a live run holds (io/dir-lock.ts): refused naming the holder, even with --overwrite; its files untouched', async () => {
    // This test process stands for the first run: its pid is alive, so the lock is not stale.
    const held = lockDirectory(join(tmp, 'held'), 'annotate run');
    try {
      writeFileSync(join(tmp, 'held/calls.jsonl'), '{"docId":"first"}\n');
      for (const extra of [['--resume'], ['--overwrite']]) {
        const { code, stderr } = await annotate('--model', TINY_MODEL, '--out', 'held', ...extra);
        expect(code).toBe(1);
        expect(stderr).toMatch(/^toolformer: held is in use by another annotate run \(pid \d+ on [^\n]+\)\. Wait for it to end or stop it; if that process is gone, remove held\/run\.lock\n$/);
        expect(stderr).toContain(`(pid ${process.pid} on `);
        expect(readFileSync(join(tmp, 'held/calls.jsonl'), 'utf8')).toBe('{"docId":"first"}\n');
      }
    } finally {
      held.release();
    }
  });
});

describe('toolformer serve and mcp: a port past 65535', { timeout: TEST_CAP_MS }, () => {
  it.each([['serve', '--port'], ['mcp', '--http']])('%s %s 70000: exit 1, one line naming the flag and the range', async (command, flag) => {
    const { code, stderr, stdout } = await runCli([command, flag, '70000'], tmp);
    expect(code).toBe(1);
    expect(stderr).toBe(`toolformer: option '${flag} <port>' argument '70000' is invalid. ${flag} must be a port, 0–65535 (see --help)\n`);
    expect(stdout).toBe('');
  });
});
