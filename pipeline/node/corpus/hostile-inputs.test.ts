import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyStats } from '../../core/stats.ts';
import { TINY_MODEL, runCli } from '../testing/cli-child.ts';
import { writeGzipRun, zstdRun } from './corpus-formats/bombs.ts';

/**
 * Hostile inputs as a user meets them, through the CLI (issue 32 items 1, 3, 4): a compressed bomb between two
 * records, special files among the inputs, special files as any command's input or output, special files as a run's
 * own state. Every case ends with exit 0 and the bad path named, or exit 1 and one line; none waits on a path.
 * Full-size bombs are measured by `npm run measure:bombs` (pipeline/node/README.md, Reliability).
 */
const tmp = mkdtempSync(join(tmpdir(), 'hostile-inputs-'));
const MiB = 1 << 20;
const oneLine = /^toolformer: [^\n]+\n$/;
const record = (id: string) => JSON.stringify({ id, text: `We paid ${id.length + 30} dollars for 3 books, 10 dollars each.` });
const annotate = (...args: string[]) => runCli(['annotate', ...args, '--quiet', '--workers', '1', '--tools', 'Calculator', '--no-lm-proposals', '--model', TINY_MODEL], tmp);
const jsonLines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
let socket: Server;

beforeAll(async () => {
  writeFileSync(join(tmp, 'good.jsonl'), `${record('good')}\n`);
  execFileSync('mkfifo', [join(tmp, 'pipe.jsonl')]);
  symlinkSync('/dev/zero', join(tmp, 'zero.jsonl'));
  socket = createServer();
  await new Promise<void>((resolve) => socket.listen(join(tmp, 'socket.jsonl'), resolve));
  // A finished-looking run folder whose state files are then swapped for special files, one per case.
  for (const [dir, name, make] of [
    ['fifo-checkpoint', 'checkpoint.json', (p: string) => execFileSync('mkfifo', [p])],
    ['zero-config', 'config.json', (p: string) => symlinkSync('/dev/zero', p)],
  ] as const) {
    mkdirSync(join(tmp, dir));
    for (const f of ['train.jsonl', 'calls.jsonl', 'errors.jsonl']) writeFileSync(join(tmp, dir, f), '');
    if (name !== 'checkpoint.json') writeFileSync(join(tmp, dir, 'checkpoint.json'), JSON.stringify({ items: 0, docs: 0, bytes: { 'train.jsonl': 0, 'calls.jsonl': 0, 'errors.jsonl': 0 }, stats: emptyStats(['Calculator']) }));
    make(join(tmp, dir, name));
  }
});
afterAll(() => {
  socket.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('a bomb line between two records (the cap lowered with --max-record-bytes)', () => {
  it.each([
    ['.jsonl.zst', async (path: string) => writeFileSync(path, zstdRun(`${record('first')}\n`, 0x61, 16 * MiB, `\n${record('last')}\n`))],
    ['.jsonl.gz', (path: string) => writeGzipRun(path, `${record('first')}\n`, 0x61, 16 * MiB, `\n${record('last')}\n`)],
  ])('%s: both records annotated, the bomb line one bad record (file, line, bytes)', async (suffix, write) => {
    const path = join(tmp, `sandwich${suffix}`);
    await write(path);
    const out = `sandwich${suffix.replace(/\./g, '-')}`;
    const run = await annotate(path, '--out', out, '--max-record-bytes', String(MiB));
    expect(run.code).toBe(0);
    expect(jsonLines(join(tmp, out, 'errors.jsonl'))).toEqual([{ file: path, line: 2, code: 'too-long', reason: `record is ${16 * MiB} bytes, over the ${MiB}-byte cap` }]);
    const stats = JSON.parse(readFileSync(join(tmp, out, 'stats.json'), 'utf8'));
    expect([stats.docsRead, stats.badRecords]).toEqual([2, 1]);
    expect(JSON.parse(readFileSync(join(tmp, out, 'config.json'), 'utf8')).config.inputLimits).toEqual({ maxRecordBytes: MiB });
  });
});

describe('special files among the inputs: skipped, named and counted', () => {
  it('a FIFO, /dev/zero (through a link and by name) and a socket next to a good file', async () => {
    const specials = [join(tmp, 'pipe.jsonl'), join(tmp, 'zero.jsonl'), '/dev/zero', join(tmp, 'socket.jsonl')];
    const run = await annotate(...specials, join(tmp, 'good.jsonl'), '--out', 'specials');
    expect(run.code).toBe(0);
    expect(run.stderr.split('\n').filter(Boolean)).toEqual([`toolformer: skipped 4 input paths: 4 not-a-regular-file (${specials.join(', ')})`]);
    const stats = JSON.parse(readFileSync(join(tmp, 'specials/stats.json'), 'utf8'));
    expect(stats.docsRead).toBe(1);
    expect(stats.skippedInputs).toEqual({ 'not-a-regular-file': { count: 4, first: specials } });
  });
});

describe("special files as a command's input or output: one line, before any model loads", () => {
  it.each([
    ['generate --input a FIFO', ['generate', '--input', 'pipe.jsonl', '--out', 'results.jsonl'], /--input pipe\.jsonl is a FIFO, not a regular file/],
    ['generate --out a FIFO', ['generate', '--input', 'good.jsonl', '--out', 'pipe.jsonl'], /--out pipe\.jsonl is a FIFO, not a file/],
    ['export --out under /proc', ['export', 'no-run', '--format', 'text', '--out', '/proc/self/export'], /--out \/proc\/self\/export is under \/proc, not a place for files/],
    ['eval --set /dev/zero', ['eval', '--set', '/dev/zero'], /--set \/dev\/zero is a character device, not a regular file/],
    ['finetune --data a socket', ['finetune', '--data', 'socket.jsonl'], /--data socket\.jsonl is a socket, not a regular file/],
    ['loss --out under /sys', ['loss', '--model', 'm', '--input', 'good.jsonl', '--out', '/sys/loss.json'], /--out \/sys\/loss\.json is under \/sys/],
  ])('%s', async (_name, args, message) => {
    const run = await runCli(args, tmp);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(oneLine);
    expect(run.stderr).toMatch(message);
  });
});

describe("a run's own state swapped for a special file: --resume exits 1 with one line", () => {
  it.each([
    ['checkpoint.json a FIFO', 'fifo-checkpoint', /cannot resume fifo-checkpoint: checkpoint\.json is a FIFO, not a regular file: not read/],
    ['config.json a link to /dev/zero', 'zero-config', /cannot resume zero-config: config\.json is a character device, not a regular file: not read/],
  ])('%s', async (_name, dir, message) => {
    const run = await annotate(join(tmp, 'good.jsonl'), '--out', dir, '--resume');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(oneLine);
    expect(run.stderr).toMatch(message);
  });
});

describe('a sharded run\'s chunk swapped for a special file: merge exits 1 with one line and leaves no half-merged file', () => {
  it.each([
    ['a FIFO', (p: string) => execFileSync('mkfifo', [p]), /000000\.json is damaged \(the file is a FIFO, not a regular file: not read\)/],
    ['a link to /dev/zero', (p: string) => symlinkSync('/dev/zero', p), /000000\.json is damaged \(the file is a character device, not a regular file: not read\)/],
  ])('chunk 0 is %s', async (name, make, message) => {
    const out = `sharded-${name.replace(/\W+/g, '-')}`;
    const shard = await runCli(['annotate', join(tmp, 'good.jsonl'), '--out', out, '--shard', '0/1', '--quiet', '--tools', 'Calculator', '--no-lm-proposals', '--model', TINY_MODEL], tmp);
    expect(shard.code).toBe(0);
    const chunk = join(tmp, out, 'chunks', '000000.json');
    expect(JSON.parse(readFileSync(chunk, 'utf8')).stats.docsRead).toBe(1);
    rmSync(chunk);
    make(chunk);
    const merge = await runCli(['merge', out], tmp);
    expect(merge.code).toBe(1);
    expect(merge.stderr).toMatch(oneLine);
    expect(merge.stderr).toMatch(message);
    expect(readdirSync(join(tmp, out)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
