import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeToolkens } from '../../core/toolkens/file.ts';
import { writeParquetPageBomb } from './corpus-formats/bombs.ts';
import { TINY_MODEL, runCli, runCliMeasured } from '../testing/cli-child.ts';

/**
 * Hostile inputs III (issue 46): paths that bypassed the one set of checks. Each file is made here by a small
 * generator (sparse files for the big ones: truncate makes 10 GB of NULs in no time and no disk), each case run as a
 * user would, through the CLI under /usr/bin/time: the exit code, one line on stderr naming the file, and the child's
 * peak RSS under 600 MB (tiny test model).
 */
const tmp = mkdtempSync(join(tmpdir(), 'hostile-reads-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const GB = 1e9;
const MiB = 1 << 20;
const oneLine = /^toolformer: [^\n]+\n$/;
const good = JSON.stringify({ id: 'good', text: 'We paid 30 dollars for 3 books, 10 dollars each.' });
const at = (name: string) => join(tmp, name);
/** `size` bytes: `head`, then NULs (a sparse file). */
const sparse = (name: string, size: number, head = '') => (writeFileSync(at(name), head), truncateSync(at(name), size), name);
const toolkens = (name: string, tools: string[], weights?: number[]) => {
  const w = Float32Array.from(weights ?? tools.flatMap(() => [0.1, 0.2, 0.3, 0.4]));
  writeFileSync(at(name), encodeToolkens({ tools, hiddenSize: 4, weights: w, meta: { model: 'm', modelDigest: '' } }));
  return name;
};
const annotateArgs = ['--quiet', '--workers', '1', '--tools', 'Calculator', '--no-lm-proposals', '--model', TINY_MODEL];

/** Runs `args` in tmp; expects `code`, one stderr line matching `message`, and a bounded peak RSS. */
async function refused(args: string[], message: RegExp, code = 1) {
  const run = await runCliMeasured(args, tmp);
  expect(run.stderr).toMatch(oneLine);
  expect(run.stderr).toMatch(message);
  expect(run.code).toBe(code);
  expect(run.peakRssMb).toBeLessThan(600);
  return run;
}

beforeAll(() => {
  writeFileSync(at('good.jsonl'), `${good}\n`);
  execFileSync('mkfifo', [at('pipe')]);
  mkdirSync(at('a-folder'));
});

describe('an input path that names nothing: exit 1, one line, before the model loads', () => {
  it.each([
    ['a missing file', ['nonexist.jsonl'], /input nonexist\.jsonl: no such file or directory; pass existing files/],
    ['a quoted glob', ['corpus/*.jsonl'], /input corpus\/\*\.jsonl: no such file or directory \(a pattern the shell did not expand/],
    ['a missing file beside a good one', ['good.jsonl', 'typo.jsonl'], /input typo\.jsonl: no such file or directory/],
  ])('%s', async (_name, inputs, message) => {
    await refused(['annotate', ...inputs, '--out', 'never', ...annotateArgs], message);
    expect(existsSync(at('never'))).toBe(false);
  });
});

describe('--toolkens that is not a toolkens file: one line naming it, before the model loads', () => {
  beforeAll(() => {
    sparse('big.safetensors', GB);
    toolkens('nan.safetensors', ['Calculator'], [0.1, NaN, 0.3, 0.4]);
    toolkens('inf.safetensors', ['QA'], [Infinity, 0, 0, 0]);
    toolkens('unknown.safetensors', ['Calculator', 'Teleport']);
    toolkens('proto.safetensors', ['__proto__']);
  });

  it.each([
    ['/dev/zero', '/dev/zero', /--toolkens \/dev\/zero is a character device, not a regular file: not read/],
    ['a FIFO', 'pipe', /--toolkens pipe is a FIFO, not a regular file: not read/],
    ['a folder', 'a-folder', /--toolkens a-folder is a directory, not a regular file: not read/],
    ['a 1 GB file', 'big.safetensors', /--toolkens big\.safetensors is 1000000000 bytes, over the 67108864-byte cap: not read/],
    ['a NaN weight', 'nan.safetensors', /--toolkens nan\.safetensors: weight 0,1 \(tool "Calculator"\) is NaN, not a finite number/],
    ['an infinite weight', 'inf.safetensors', /--toolkens inf\.safetensors: weight 0,0 \(tool "QA"\) is Infinity, not a finite number/],
    ['an unknown tool', 'unknown.safetensors', /--toolkens unknown\.safetensors: its row "Teleport" is not a tool served here/],
    ['a __proto__ tool', 'proto.safetensors', /--toolkens proto\.safetensors: its row "__proto__" is not a tool served here/],
  ])('generate --toolkens %s', async (_name, file, message) => {
    await refused(['generate', 'We paid 30 dollars', '--model', TINY_MODEL, '--toolkens', file], message);
  });

  it('eval --toolkens a FIFO', async () => {
    await refused(['eval', '--model', TINY_MODEL, '--toolkens', 'pipe', '--per-family', '1', '--out', 'eval-out'], /--toolkens pipe is a FIFO, not a regular file: not read/);
  });
});

describe('toolkens train --out that cannot take the file: one line before the data is read or the model loads', () => {
  it.each([
    ['a folder', 'a-folder', /--out a-folder is a directory: pass a file path for the toolkens \(e\.g\. a-folder\/toolkens\.safetensors\)/],
    ['in a missing folder', 'no-such-folder/t.safetensors', /--out no-such-folder\/t\.safetensors: its folder no-such-folder cannot hold the file \(ENOENT\)/],
  ])('%s', async (_name, out, message) => {
    await refused(['toolkens', 'train', 'good.jsonl', '--model', TINY_MODEL, '--out', out], message);
    expect(readdirSync(tmp).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

describe('whole-file reads of a user\'s file: streamed and capped, one line naming the file', () => {
  beforeAll(() => {
    sparse('sparse-10g.jsonl', 10 * GB);
    sparse('sparse-1g.jsonl', 1_100_000_000);
  });

  it.each([
    ['loss --input, 10 GB of NULs', ['loss', '--model', TINY_MODEL, '--input', 'sparse-10g.jsonl', '--out', 'loss.json'], /sparse-10g\.jsonl:1: a run of NUL bytes from this line on: the rest of the file is not text, not read/],
    ['eval --set, 1.1 GB of NULs', ['eval', '--model', TINY_MODEL, '--set', 'sparse-1g.jsonl', '--out', 'eval-set'], /sparse-1g\.jsonl:1: a run of NUL bytes from this line on/],
  ])('%s', async (_name, args, message) => {
    await refused(args, message);
  });

  it('generate --input with a 20 MiB line: that line named and skipped, no stack trace, exit 1 (no result)', async () => {
    writeFileSync(at('long-prompt.jsonl'), `{"id":"x","prompt":"${'a'.repeat(20 * MiB)}"}\n`);
    const run = await runCliMeasured(['generate', '--model', TINY_MODEL, '--input', 'long-prompt.jsonl', '--out', 'results.jsonl'], tmp);
    expect(run.stderr.split('\n').filter(Boolean)).toEqual([
      `long-prompt.jsonl:1: line is ${20 * MiB + 22} bytes, over the ${16 * MiB}-byte cap`,
      'generate: 0 results → results.jsonl, 1 bad lines (above)',
    ]);
    expect(run.code).toBe(1);
    expect(run.peakRssMb).toBeLessThan(600);
  });

  it('toolkens train on a 20 MiB line: named and skipped, then one line (no call to train on), no stack trace', async () => {
    writeFileSync(at('long-train.jsonl'), `{"text":"${'a'.repeat(20 * MiB)}"}\n`);
    const run = await runCliMeasured(['toolkens', 'train', 'long-train.jsonl', '--model', TINY_MODEL, '--out', 't.safetensors'], tmp);
    expect(run.stderr.split('\n').filter(Boolean)).toEqual([
      `long-train.jsonl:1: line is ${20 * MiB + 11} bytes, over the ${16 * MiB}-byte cap; skipped`,
      'toolformer: toolkens: no call in long-train.jsonl (0 records, 1 bad lines): nothing to train',
    ]);
    expect(run.code).toBe(1);
    expect(run.peakRssMb).toBeLessThan(600);
  });
});

describe('a JSONL input that is one good line, then NULs: read to the NUL run only', () => {
  it('annotate: the good record annotated, the rest one `binary` bad record, memory flat', async () => {
    sparse('nul-tail.jsonl', 10 * GB, `${good}\n`);
    const run = await runCliMeasured(['annotate', 'nul-tail.jsonl', '--out', 'nul-run', ...annotateArgs], tmp);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.peakRssMb).toBeLessThan(600);
    const errors = readFileSync(at('nul-run/errors.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(errors).toEqual([{ file: 'nul-tail.jsonl', line: 2, code: 'binary', reason: `a run of over ${MiB} NUL bytes from line 2 on: the rest of the file is not text, not read` }]);
    expect(JSON.parse(readFileSync(at('nul-run/stats.json'), 'utf8')).docsRead).toBe(1);
  });
});

describe('a Parquet page bomb: the page refused from its header, before it is decompressed', () => {
  it('one GZIP page of 48 cells of 1 MiB (under the record cap) against --max-row-group-bytes 8000000: one over-budget record, the next row group read', async () => {
    writeParquetPageBomb(at('page-bomb.parquet'), 48, good);
    const run = await runCliMeasured(['annotate', 'page-bomb.parquet', '--out', 'page-bomb', '--max-row-group-bytes', '8000000', ...annotateArgs], tmp);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.peakRssMb).toBeLessThan(600);
    const errors = readFileSync(at('page-bomb/errors.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ file: 'page-bomb.parquet', line: 1, code: 'over-budget' });
    expect(errors[0].reason).toMatch(/^row group 1 of 2 \(rows 1–48\): a page declares 5\d{7} bytes decompressed, over the 8000000-byte budget/);
    expect(JSON.parse(readFileSync(at('page-bomb/stats.json'), 'utf8')).docsRead).toBe(1);
  });
});

describe("a run's lock file that is not a lock: one line naming it, nothing waits", () => {
  it.each([
    ['a FIFO', (p: string) => execFileSync('mkfifo', [p]), /lock-fifo has a lock that names no live annotate run \(its lock file is a FIFO, not a regular file: not read\): if no other annotate run uses the folder, remove lock-fifo\/run\.lock/],
    ['1 GB', (p: string) => truncateSync((writeFileSync(p, ''), p), GB), /lock-big has a lock that names no live annotate run \(its lock file is 1000000000 bytes, over the 65536-byte cap: not read\)/],
    ['not JSON', (p: string) => writeFileSync(p, 'garbage\n'), /lock-json has a lock that names no live annotate run \(its lock file is not JSON/],
    ['pid 0', (p: string) => writeFileSync(p, '{"pid":0,"host":"h","since":"now","command":"x"}\n'), /lock-pid0 has a lock that names no live annotate run \(its lock file names no process \(pid 0\)\)/],
    ['a folder', (p: string) => mkdirSync(p), /lock-dir has a lock that names no live annotate run \(its lock file is a directory, not a regular file: not read\)/],
  ])('run.lock %s, annotate --resume', async (name, make, message) => {
    const out = `lock-${{ 'a FIFO': 'fifo', '1 GB': 'big', 'not JSON': 'json', 'pid 0': 'pid0', 'a folder': 'dir' }[name]}`;
    mkdirSync(at(out));
    make(join(at(out), 'run.lock'));
    await refused(['annotate', 'good.jsonl', '--out', out, '--resume', ...annotateArgs], message);
  });
});

describe('export of a run whose train.jsonl changed after it finished', () => {
  it('a 20 MiB line appended: refused in one line (its size against the checkpoint), not read', async () => {
    const done = await runCli(['annotate', 'good.jsonl', '--out', 'finished', ...annotateArgs], tmp);
    expect(done.code).toBe(0);
    appendFileSync(at('finished/train.jsonl'), `${'a'.repeat(20 * MiB)}\n`);
    await refused(['export', 'finished', '--format', 'text', '--out', 'exported'], new RegExp(`cannot read the run finished: train\\.jsonl is ${20 * MiB + 1} bytes, but its checkpoint records 0: the file changed after the run`));
    expect(existsSync(at('exported'))).toBe(false);
  });
});
