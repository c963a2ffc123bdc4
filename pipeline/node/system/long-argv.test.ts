import { existsSync, fstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ARGV_FD_FLAG, HANDOFF_BYTES, cmdlineBytes, planArgv } from './long-argv.ts';
import { TINY_MODEL, runCli, spawnCli } from '../testing/cli-child.ts';
import { DescendantWatch, aliveAfter, exitOf, killAll } from '../testing/process-tree.ts';
import { TEST_CAP_MS, childProgress, waitUntil } from '../testing/progress.ts';

/**
 * onnxruntime-node 1.30 segfaults when a session is created in a process whose command line is ~30 KB (exit 139,
 * nothing written). The CLI hands a long command line to a re-run of itself on an inherited descriptor
 * (long-argv.ts); these runs pass a >30 KB command line to the two kinds of entry point that create a session:
 * `annotate` with 1,300 input paths and `score` with a long text.
 */
const tmp = mkdtempSync(join(tmpdir(), 'long-argv-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const tmpArgvFolders = () => readdirSync(tmpdir()).filter((n) => n.startsWith('toolformer-argv-')).sort();

describe('planArgv', () => {
  it('runs a short command line in this process', () => {
    expect(planArgv(['node', 'cli.ts', 'score', 'abc'])).toEqual({ kind: 'run', args: ['score', 'abc'] });
  });

  it('reads the arguments a parent handed off from an open descriptor, and deletes nothing', () => {
    const file = join(tmp, 'argv.json');
    const args = ['annotate', 'a b.jsonl', 'ü\n"x"', '--out', 'o'];
    writeFileSync(file, JSON.stringify(args));
    const fd = openSync(file, 'r');
    expect(planArgv(['node', 'cli.ts', ARGV_FD_FLAG, String(fd)])).toEqual({ kind: 'run', args });
    expect(() => fstatSync(fd)).toThrow(/EBADF/); // closed after reading
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify(args));
  });

  it('refuses a handed-off descriptor that is not an array of strings, or not an open file, in one line', () => {
    const file = join(tmp, 'bad.json');
    writeFileSync(file, '{"0": "annotate"}');
    expect(() => planArgv(['node', 'cli.ts', ARGV_FD_FLAG, String(openSync(file, 'r'))])).toThrow(/^--argv-fd \d+: not a JSON array of strings/);
    expect(() => planArgv(['node', 'cli.ts', ARGV_FD_FLAG, file])).toThrow(/^--argv-fd .*: not a file descriptor above 2/);
    expect(() => planArgv(['node', 'cli.ts', ARGV_FD_FLAG, '987'])).toThrow(/^--argv-fd 987: cannot read the handed-off arguments \(EBADF/);
    expect(readFileSync(file, 'utf8')).toBe('{"0": "annotate"}');
  });

  it('toolformer --argv-file <a user\'s file>: refused in one line, the file untouched', async () => {
    const file = join(tmp, 'my-corpus.jsonl');
    writeFileSync(file, '{"id":"d1","text":"mine"}\n');
    const run = await runCli(['--argv-file', file], tmp);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^toolformer: unknown option '--argv-file' \(see --help\)\n$/);
    expect(readFileSync(file, 'utf8')).toBe('{"id":"d1","text":"mine"}\n');
  }, 60_000);
});

describe('a command line over 30 KB', () => {
  it('annotate with 1,300 input paths reads every file and exits 0', async () => {
    const dir = join(tmp, 'shards');
    mkdirSync(dir);
    const paths: string[] = [];
    for (let i = 0; i < 1300; i++) {
      const path = join(dir, `shard-${String(i).padStart(5, '0')}-of-01300.jsonl`);
      writeFileSync(path, `${JSON.stringify({ id: `d${i}`, text: `Document ${i} says 2 + 3 = 5.` })}\n`);
      paths.push(path);
    }
    const args = ['annotate', ...paths, '--model', TINY_MODEL, '--out', join(tmp, 'out'), '--max-docs', '2', '--tools', 'Calculator', '--no-lm-proposals', '--quiet', '--workers', '1'];
    expect(cmdlineBytes(args)).toBeGreaterThan(2 * HANDOFF_BYTES);
    expect(cmdlineBytes(args)).toBeGreaterThan(30_000);
    const before = tmpArgvFolders();
    const run = await runCli(args, tmp);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('2 documents read');
    expect(JSON.parse(readFileSync(join(tmp, 'out/stats.json'), 'utf8'))).toMatchObject({ docsRead: 2 });
    // The handed-off arguments are gone with the run.
    expect(tmpArgvFolders()).toEqual(before);
  }, 120_000);

  it('score with a 30 KB text prints the three losses and exits 0', async () => {
    const text = `The budget is 400 of 1400 dollars. ${'More words follow here. '.repeat(1300)}`;
    expect(Buffer.byteLength(text)).toBeGreaterThan(30_000);
    const run = await runCli(['score', text, '--call', 'Calculator(400/1400)', '--at', '14', '--model', TINY_MODEL], tmp);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/L_a noCall +=/);
    expect(run.stdout).toMatch(/L_c withResult +=/);
  }, 120_000);

  it('the re-run child ends when its parent is SIGKILLed during its start-up (it watches the pid the parent passed)', async () => {
    // 1,300 paths of 20 documents each: a run that would take minutes, cut short.
    const dir = join(tmp, 'long');
    mkdirSync(dir);
    const paths = Array.from({ length: 1300 }, (_, i) => join(dir, `part-${String(i).padStart(5, '0')}.jsonl`));
    paths.forEach((path, i) => writeFileSync(path, Array.from({ length: 20 }, (_, j) => `${JSON.stringify({ id: `d${i}-${j}`, text: `Part ${i} says ${j} + 3 = ${j + 3}.` })}\n`).join('')));
    const out = join(tmp, 'long-out');
    const { child, done } = spawnCli(['annotate', ...paths, '--model', TINY_MODEL, '--out', out, '--tools', 'Calculator', '--no-lm-proposals', '--quiet', '--workers', '1'], tmp);
    const watch = new DescendantWatch(child.pid!);
    const exited = exitOf(child); // not `done`: see exitOf
    done.catch(() => {}); // settles once the child's pipes close; what is checked here is its exit
    try {
      await waitUntil(() => watch.look().some((p) => p.command.includes(ARGV_FD_FLAG)), childProgress(child), { what: 'the re-run child' });
      child.kill('SIGKILL');
      expect((await exited).signal).toBe('SIGKILL');
      expect(await aliveAfter(watch.stop(), 15_000)).toEqual([]);
      expect(existsSync(join(out, 'stats.json'))).toBe(false); // cut short, not finished
    } finally {
      killAll(watch.stop());
    }
  }, TEST_CAP_MS);
});
