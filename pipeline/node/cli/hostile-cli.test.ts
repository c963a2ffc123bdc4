import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TINY_MODEL, runCli } from '../testing/cli-child.ts';

/**
 * Hostile command lines for `toolformer annotate` (issue 23): a bad --out is one line before any model loads; a
 * damaged run folder is refused with one line instead of mixing two runs or a TypeError; skipped input paths are
 * named on stderr and counted in stats.json.
 */
const tmp = mkdtempSync(join(tmpdir(), 'hostile-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const sample = join(ROOT, 'corpus/sample.jsonl');
const small = join(tmp, 'small.jsonl');
const annotate = (...args: string[]) => runCli(['annotate', ...args, '--quiet', '--workers', '1', '--max-docs', '1', '--tools', 'Calculator', '--no-lm-proposals'], tmp);
const oneLine = /^toolformer: [^\n]+\n$/;

beforeAll(() => {
  writeFileSync(join(tmp, 'a-file'), 'not a directory');
  writeFileSync(small, '{"id":"s1","text":"We paid 30 dollars for 3 books, 10 dollars each."}\n');
  // A run folder whose config.json was deleted, and one whose checkpoint is `{}`.
  for (const [dir, checkpoint] of [['no-config', '{"items":1,"docs":1,"bytes":{"train.jsonl":0,"calls.jsonl":0,"errors.jsonl":0},"stats":{}}'], ['empty-checkpoint', '{}']]) {
    mkdirSync(join(tmp, dir));
    writeFileSync(join(tmp, dir, 'checkpoint.json'), checkpoint);
    for (const f of ['train.jsonl', 'calls.jsonl', 'errors.jsonl']) writeFileSync(join(tmp, dir, f), '');
  }
  writeFileSync(join(tmp, 'empty-checkpoint/config.json'), '{}');
  // A corpus folder with things the reader skips.
  mkdirSync(join(tmp, 'corpus'));
  writeFileSync(join(tmp, 'corpus/doc.jsonl'), '{"text":"Exports were 120 tons, 3 times the 40 tons of 1900."}\n');
  writeFileSync(join(tmp, 'corpus/.draft.jsonl'), '{"text":"hidden"}\n');
  writeFileSync(join(tmp, 'corpus/README.md'), 'notes');
  symlinkSync('.', join(tmp, 'corpus/loop'));
});

describe('--out that cannot hold a run: one line, before the model loads', () => {
  // --model names no directory: the --out error comes first, so it is checked before any model is looked at.
  it.each([
    ['a file', 'a-file', /--out a-file is a file, not a directory/],
    ['the root directory', '/', /--out \/ is the root directory/],
    ['a path under /proc', '/proc/self/run', /--out \/proc\/self\/run is under \/proc, not a place for files/],
  ])('%s', async (_name, out, message) => {
    const run = await annotate(small, '--model', 'no-such-model', '--out', out);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(oneLine);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });
});

describe('resume with damaged state: one line, never two runs mixed', () => {
  it('config.json deleted, --resume on another corpus: refused', async () => {
    const run = await annotate(sample, '--model', TINY_MODEL, '--out', 'no-config', '--resume');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(oneLine);
    expect(run.stderr).toMatch(/cannot resume no-config: its config.json is missing/);
    expect(readFileSync(join(tmp, 'no-config/calls.jsonl'), 'utf8')).toBe('');
  });

  it('a checkpoint of {}: refused as damaged, not a TypeError', async () => {
    const run = await annotate(small, '--model', TINY_MODEL, '--out', 'empty-checkpoint', '--resume');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(oneLine);
    expect(run.stderr).toMatch(/cannot resume empty-checkpoint: checkpoint.json is damaged \("items" is missing\)/);
  });
});

describe('skipped input paths: named on stderr, counted in stats.json', () => {
  it('a folder with a hidden file, a README and a symlink loop', async () => {
    const run = await annotate(join(tmp, 'corpus'), '--model', TINY_MODEL, '--out', 'skips');
    expect(run.code).toBe(0);
    const lines = run.stderr.split('\n').filter(Boolean);
    expect(lines).toEqual([`toolformer: skipped 3 input paths: 1 hidden (${join(tmp, 'corpus/.draft.jsonl')}); 1 other-kind (${join(tmp, 'corpus/README.md')}); 1 symlink-loop (${join(tmp, 'corpus/loop')})`]);
    const stats = JSON.parse(readFileSync(join(tmp, 'skips/stats.json'), 'utf8'));
    expect(stats.docsRead).toBe(1);
    expect(stats.skippedInputs).toEqual({
      hidden: { count: 1, first: [join(tmp, 'corpus/.draft.jsonl')] },
      'symlink-loop': { count: 1, first: [join(tmp, 'corpus/loop')] },
      'other-kind': { count: 1, first: [join(tmp, 'corpus/README.md')] },
    });
    expect(existsSync(join(tmp, 'skips/calls.jsonl'))).toBe(true);
  });
});
