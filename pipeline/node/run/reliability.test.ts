import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../random/mulberry32.ts';
import { type Checkpoint, OUTPUT_FILES } from './run-files.ts';
import { type BadCorpus, writeBadCorpus } from '../testing/bad-corpus.ts';
import { TINY_MODEL, type CliResult, spawnCli } from '../testing/cli-child.ts';
import { TEST_CAP_MS } from '../testing/progress.ts';

/**
 * The CLI as a user runs it, on a corpus directory holding every kind of bad input beside five good documents and
 * four with hostile text (testing/bad-corpus.ts): the run must finish, report each bad record, and annotate the good
 * documents. That run is then the reference for crash-safe resume: the same run killed with SIGKILL at seeded points
 * and resumed with --resume must end with every file byte-identical to it.
 */
const tmp = mkdtempSync(join(tmpdir(), 'reliability-'));
let corpus: BadCorpus;
const args = (out: string, ...extra: string[]) => [
  'annotate', ...corpus.inputs, '--model', TINY_MODEL, '--out', out, '--tools', 'Calculator,QA,Calendar',
  '--k', '2', '--m', '2', '--tau-f', '0.05', '--control-margin', '-1', '--seed', '11', '--quiet', '--workers', '1', ...extra,
];

/** A file's bytes; a kill can land between the creation of two output files, so a missing one reads as empty. */
const read = (out: string, file: string) => (existsSync(join(tmp, out, file)) ? readFileSync(join(tmp, out, file)) : Buffer.alloc(0));
const jsonLines = (out: string, file: string) => read(out, file).toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const size = (out: string, file: string) => (existsSync(join(tmp, out, file)) ? statSync(join(tmp, out, file)).size : 0);
const outputBytes = (out: string) => OUTPUT_FILES.reduce((n, f) => n + size(out, f), 0);
const checkpoint = (out: string): Checkpoint<unknown> | null =>
  existsSync(join(tmp, out, 'checkpoint.json')) ? JSON.parse(read(out, 'checkpoint.json').toString('utf8')) : null;

let run: CliResult;
let reference: Map<string, Buffer>;
beforeAll(async () => {
  corpus = writeBadCorpus(tmp);
  run = await spawnCli(args('reference'), tmp).done;
  reference = new Map(readdirSync(join(tmp, 'reference')).map((f) => [f, read('reference', f)]));
}, TEST_CAP_MS);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('annotate over a directory of bad input', () => {
  it('finishes, exit code 0, nothing on stderr', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('writes one error record per bad record or file, in input order, with file, line and reason', () => {
    const errors = jsonLines('reference', 'errors.jsonl');
    expect(errors.map(({ file, line, code }) => ({ file, line, code }))).toEqual(corpus.errors);
    for (const e of errors) expect(e.reason).toMatch(/^.{3,200}$/);
    if (corpus.skipped.length > 0) console.log(`bad input not built: ${corpus.skipped.join('; ')}`);
    console.log(`bad input: ${errors.length} bad records/files of ${new Set(errors.map((e) => e.code)).size} kinds reported`);
  });

  it('counts them in the summary and stats.json', () => {
    const n = corpus.errors.length;
    expect(run.stdout).toContain(`${corpus.goodIds.length} documents read, ${n} bad records,`);
    expect(JSON.parse(read('reference', 'stats.json').toString('utf8'))).toMatchObject({ docsRead: corpus.goodIds.length, badRecords: n });
  });

  it('annotates the good documents, those after the bad files included, and only them', () => {
    // (A good document may pass no tool's pre-filter and get no call: stats.docsRead above counts it.)
    const ids = new Set(jsonLines('reference', 'calls.jsonl').map((c) => c.docId));
    for (const id of ids) expect(corpus.goodIds).toContain(id);
    expect(ids).toContain('bad-corpus/i-note.txt');
    expect(ids).toContain(corpus.goodIds.at(-1));
    for (const t of jsonLines('reference', 'train.jsonl')) expect(corpus.goodIds).toContain(t.id);
  });
});

describe('annotate killed with SIGKILL and resumed', () => {
  /** Start a run and SIGKILL it once its output files hold `bytes` bytes (0: as soon as they exist) and it wrote. */
  async function runAndKill(out: string, bytes: number, resume: boolean): Promise<CliResult> {
    const start = outputBytes(out);
    const { child, done } = spawnCli(args(out, ...(resume ? ['--resume'] : [])), tmp);
    const poll = setInterval(() => {
      const now = outputBytes(out);
      if (bytes === 0 ? existsSync(join(tmp, out, 'calls.jsonl')) : now >= bytes && now > start) child.kill('SIGKILL');
    }, 2);
    const result = await done;
    clearInterval(poll);
    return result;
  }

  it('ends with every file byte-identical to an uninterrupted run: no line lost, duplicated or torn', async () => {
    const total = OUTPUT_FILES.reduce((n, f) => n + reference.get(f)!.length, 0);
    const rand = mulberry32(2026);
    // Kill points as fractions of the output bytes: 0 = as soon as the files exist (before the first checkpoint),
    // three random ones in between, one in the last tenth.
    const between = [rand.next(), rand.next(), rand.next()].map((x) => 0.05 + 0.8 * x).sort((a, b) => a - b);
    const points = [0, ...between, 0.9 + 0.08 * rand.next()];
    const landed: { docs: number; uncommitted: number }[] = [];
    for (const [i, point] of points.entries()) {
      const result = await runAndKill('killed', Math.round(point * total), i > 0);
      // The first kill came before any checkpoint: that resume starts afresh, and says so.
      if (i === 1) expect(result.stderr).toContain('no checkpoint');
      if (result.signal !== 'SIGKILL') {
        // The run outran the kill and finished: not a kill point, but still a state to resume from.
        expect(result.code).toBe(0);
        continue;
      }
      // The committed part of every file (up to the checkpoint) is already the uninterrupted run's.
      const cp = checkpoint('killed');
      let uncommitted = 0;
      for (const f of OUTPUT_FILES) {
        const committed = cp?.bytes[f] ?? 0;
        expect(size('killed', f)).toBeGreaterThanOrEqual(committed);
        expect(read('killed', f).subarray(0, committed).equals(reference.get(f)!.subarray(0, committed))).toBe(true);
        uncommitted += size('killed', f) - committed;
      }
      landed.push({ docs: cp?.docs ?? 0, uncommitted });
      // What a write torn by the kill leaves: half a line past the checkpoint. The resume must drop it.
      if (i === 2) appendFileSync(join(tmp, 'killed', 'calls.jsonl'), '{"docId":"sotu/torn","tool":"Calcu');
    }
    const final = await spawnCli(args('killed', '--resume'), tmp).done;
    expect(final.code).toBe(0);

    // Line by line first, to count what went wrong; then byte for byte, every file of the out dir.
    const lines = { lost: 0, duplicated: 0, torn: 0 };
    for (const f of OUTPUT_FILES) {
      const want = new Map<string, number>();
      for (const l of reference.get(f)!.toString('utf8').split('\n').filter(Boolean)) want.set(l, (want.get(l) ?? 0) + 1);
      for (const l of read('killed', f).toString('utf8').split('\n').filter(Boolean)) {
        if (!isJson(l)) lines.torn++;
        else if ((want.get(l) ?? 0) > 0) want.set(l, want.get(l)! - 1);
        else lines.duplicated++;
      }
      lines.lost += [...want.values()].reduce((a, b) => a + b, 0);
    }
    console.log(
      `resume: ${landed.length}/${points.length} kill points landed (documents checkpointed at each: ${landed.map((l) => l.docs).join(', ')}; ` +
        `uncommitted bytes dropped: ${landed.map((l) => l.uncommitted).join(', ')}); lines lost ${lines.lost}, ` +
        `duplicated ${lines.duplicated}, torn ${lines.torn}`,
    );
    expect(lines).toEqual({ lost: 0, duplicated: 0, torn: 0 });
    expect(readdirSync(join(tmp, 'killed')).sort()).toEqual([...reference.keys()].sort());
    for (const [f, bytes] of reference) expect(read('killed', f).equals(bytes), f).toBe(true);
    // The first point and most of the others really interrupted a run.
    expect(landed.length).toBeGreaterThanOrEqual(4);
    expect(landed[0].docs).toBe(0);
  }, TEST_CAP_MS);
});

function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}
