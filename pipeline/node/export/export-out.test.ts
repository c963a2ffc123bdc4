import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TINY_MODEL, runCli } from '../testing/cli-child.ts';
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
    expect(Object.keys(folderSnapshot(join(tmp, 'work/run-text'))).sort()).toEqual(['README.md', 'data/train.jsonl']);
  }, 60_000);
});
