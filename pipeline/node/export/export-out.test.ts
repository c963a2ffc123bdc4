import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TINY_MODEL, runCli, runCliMeasured } from '../testing/cli-child.ts';
import { folderSnapshot } from '../testing/folder-snapshot.ts';

/**
 * `export --out` never destroys the run it exports (issue 32 item 6): the run itself, a folder above it, or a link
 * to either, is refused in one line with --overwrite or without, and every file stays in place.
 */
const tmp = mkdtempSync(join(tmpdir(), 'export-out-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

beforeAll(async () => {
  mkdirSync(join(tmp, 'work'));
  writeFileSync(join(tmp, 'work/notes.txt'), 'the user keeps other things beside the run\n');
  writeFileSync(join(tmp, 'corpus.jsonl'), '{"id":"a","text":"We paid 30 dollars for 3 books, 10 dollars each."}\n');
  const run = await runCli(['annotate', 'corpus.jsonl', '--model', TINY_MODEL, '--out', 'work/run', '--tools', 'Calculator', '--no-lm-proposals', '--quiet', '--workers', '1'], tmp);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  symlinkSync('work/run', join(tmp, 'link-to-run'));
}, 120_000);

describe('export --out that is the run or holds it', () => {
  it.each([
    ['the run itself, --overwrite', 'work/run', ['--overwrite'], /--out .*work\/run is the run work\/run itself/],
    ['the run itself', 'work/run', [], /--out .*work\/run is the run work\/run itself/],
    ['the folder above the run, --overwrite', 'work', ['--overwrite'], /--out .*work holds the run work\/run/],
    ['the folder above that', '.', ['--overwrite'], /holds the run work\/run/],
    ['a link to the run, --overwrite', 'link-to-run', ['--overwrite'], /--out .*link-to-run is the run work\/run itself/],
  ] as const)('%s: one line, exit 1, every file in place', async (_name, out, extra, message) => {
    const before = folderSnapshot(tmp);
    const run = await runCli(['export', 'work/run', '--format', 'text', '--out', out, ...extra], tmp);
    expect(run.stderr).toMatch(/^toolformer: [^\n]+\n$/);
    expect(run.stderr).toMatch(message);
    expect(run.code).toBe(1);
    expect(folderSnapshot(tmp)).toEqual(before);
  }, 60_000);

  it('an --out beside the run is still written', async () => {
    const run = await runCli(['export', 'work/run', '--format', 'text', '--out', 'work/run-text'], tmp);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(Object.keys(folderSnapshot(join(tmp, 'work/run-text'))).sort()).toEqual(['.toolformer-export.json', 'README.md', 'data/train.jsonl']);
  }, 60_000);
});

/** Issue 46 item 4: `--overwrite` replaces what an export made (its marker file), never a folder of the user's. */
describe('export --out --overwrite onto an existing folder', () => {
  it("a folder of the user's own files: refused in one line, every file kept", async () => {
    mkdirSync(join(tmp, 'mine/data'), { recursive: true });
    writeFileSync(join(tmp, 'mine/thesis.tex'), 'months of work\n');
    writeFileSync(join(tmp, 'mine/data/train.jsonl'), '{"mine": true}\n');
    const before = folderSnapshot(tmp);
    const run = await runCliMeasured(['export', 'work/run', '--format', 'text', '--out', 'mine', '--overwrite'], tmp);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^toolformer: [^\n]+\n$/);
    expect(run.stderr).toMatch(/--out .*mine holds files no export made \(no \.toolformer-export\.json; 2 entries, e\.g\. data, thesis\.tex\): --overwrite replaces only an earlier export/);
    expect(run.peakRssMb).toBeLessThan(600);
    expect(folderSnapshot(tmp)).toEqual(before);
  }, 60_000);

  it('an earlier export: replaced (its marker names the run and format); an empty folder: written', async () => {
    const first = await runCli(['export', 'work/run', '--format', 'text', '--out', 'exported'], tmp);
    expect(first.code).toBe(0);
    expect(JSON.parse(readFileSync(join(tmp, 'exported/.toolformer-export.json'), 'utf8'))).toEqual({ run: join(tmp, 'work/run'), format: 'text' });
    writeFileSync(join(tmp, 'exported/stale.txt'), 'left by the earlier export\n');
    const again = await runCli(['export', 'work/run', '--format', 'chat', '--out', 'exported', '--overwrite'], tmp);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(existsSync(join(tmp, 'exported/stale.txt'))).toBe(false);
    expect(JSON.parse(readFileSync(join(tmp, 'exported/.toolformer-export.json'), 'utf8')).format).toBe('chat');
    mkdirSync(join(tmp, 'empty'));
    const intoEmpty = await runCli(['export', 'work/run', '--format', 'text', '--out', 'empty', '--overwrite'], tmp);
    expect(intoEmpty.code).toBe(0);
  }, 120_000);
});
