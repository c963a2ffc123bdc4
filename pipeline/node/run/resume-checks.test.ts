import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyStats } from '../../core/stats.ts';
import { statsProblem } from './resume-checks.ts';
import { parseRunStats } from './state-schemas.ts';
import { TINY_MODEL, runCli, runCliMeasured } from '../testing/cli-child.ts';
import { TEST_CAP_MS } from '../testing/progress.ts';
import { folderSnapshot } from '../testing/folder-snapshot.ts';

/**
 * A run's files are checked before anything is changed (issue 32 item 8): a checkpoint that does not fit its files or
 * carries stats of the wrong shape, a resume that would lower --max-docs, a shard of another seed into a run: each is
 * one line, exit 1, and every file of the folder keeps its bytes. `merge` with a damaged chunk names the chunk and
 * leaves no *.tmp. One finished run of three documents (one a bad record) is copied and damaged per case.
 */
const tmp = mkdtempSync(join(tmpdir(), 'resume-checks-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const oneLine = /^toolformer: [^\n]+\n$/;
const annotate = (out: string, ...extra: string[]) =>
  runCli(['annotate', 'corpus.jsonl', '--model', TINY_MODEL, '--out', out, '--tools', 'Calculator', '--no-lm-proposals', '--quiet', '--chunk', '1', ...extra], tmp);

/** A copy of the finished run with its checkpoint changed by `damage`. */
function damagedCopy(name: string, damage: (checkpoint: Record<string, any>) => void): string {
  cpSync(join(tmp, 'done'), join(tmp, name), { recursive: true });
  const path = join(tmp, name, 'checkpoint.json');
  const checkpoint = JSON.parse(readFileSync(path, 'utf8'));
  damage(checkpoint);
  writeFileSync(path, JSON.stringify(checkpoint));
  return name;
}

beforeAll(async () => {
  writeFileSync(join(tmp, 'corpus.jsonl'), [
    '{"id":"a","text":"We paid 30 dollars for 3 books, 10 dollars each."}',
    '{"id":"broken","text":',
    '{"id":"b","text":"Exports were 120 tons, 3 times the 40 tons of 1900."}',
    '',
  ].join('\n'));
  const done = await annotate('done', '--workers', '1');
  expect(done.stderr).toBe('');
  expect(done.code).toBe(0);
}, TEST_CAP_MS);

describe('statsProblem', () => {
  it('accepts the stats a run writes, names the first field of the wrong shape', () => {
    expect(statsProblem(emptyStats(['Calculator']), ['Calculator'])).toBeNull();
    expect(statsProblem({}, ['Calculator'])).toBe('stats.docsRead is missing');
    expect(statsProblem({ ...emptyStats(['Calculator']), tools: null }, ['Calculator'])).toBe('stats.tools is null, not an object');
    expect(statsProblem(emptyStats([]), ['Calculator'])).toBe('stats.tools.Calculator is missing');
    const badReason = emptyStats(['Calculator']);
    badReason.tools.Calculator.reasons.kept = -1;
    expect(statsProblem(badReason, ['Calculator'])).toBe('stats.tools.Calculator.reasons.kept is not a count');
  });

  // state-schemas.ts: strict objects, integer counts, maps without prototype-named keys (issue 46 item 5).
  it.each([
    ['a count given as a string', (s: any): void => void (s.tools.Calculator.scored = '3'), 'stats.tools.Calculator.scored is not a count'],
    ['a count that is not finite (JSON 1e999)', (s: any): void => void (s.docsRead = JSON.parse('1e999')), 'stats.docsRead is not a count'],
    ['a count that is not whole', (s: any): void => void (s.badRecords = 0.5), 'stats.badRecords is not a count'],
    ['a field the run never writes', (s: any): void => void (s.constructor = {}), 'stats.constructor is not a field of this file'],
    ['a tool the run does not have', (s: any): void => void (s.tools.Other = s.tools.Calculator), 'stats.tools.Other is not a field of this file'],
    ['a map key named like a prototype member', (s: any): void => void (s.tools.Calculator.reasons = JSON.parse('{"toString":1}')), 'stats.tools.Calculator.reasons.toString is a key named like a member of Object.prototype'],
    ['a missing object', (s: any): void => void delete s.tools.Calculator.lmSampling, 'stats.tools.Calculator.lmSampling is missing'],
    ['a τ_f grid of the wrong length', (s: any): void => void s.tools.Calculator.reachTauF.pop(), 'stats.tools.Calculator.reachTauF is not a list of 5'],
  ] as const)('%s', (_name, damage, problem) => {
    const stats = JSON.parse(JSON.stringify(emptyStats(['Calculator'])));
    damage(stats);
    expect(statsProblem(stats, ['Calculator'])).toBe(problem);
  });

  it('maps of counts come out without a prototype', () => {
    const stats = emptyStats(['Calculator']);
    stats.tools.Calculator.reasons.kept = 2;
    const parsed = parseRunStats(stats, ['Calculator']);
    if ('problem' in parsed) throw new Error(parsed.problem);
    expect(Object.getPrototypeOf(parsed.value.tools.Calculator.reasons)).toBeNull();
    expect(parsed.value.tools.Calculator.reasons.kept).toBe(2);
  });
});

describe('--resume of a damaged or different run: one line, every file byte-unchanged', () => {
  it('the finished run wrote a bad record, so errors.jsonl has a line to point into', () => {
    expect(readFileSync(join(tmp, 'done/errors.jsonl'), 'utf8')).toContain('"line":2');
  });

  it.each([
    ['a checkpoint pointing inside a line', () => damagedCopy('inside-line', (c) => (c.bytes['errors.jsonl'] -= 5)), /errors\.jsonl has no line break at its checkpoint's length \(\d+ bytes falls inside a line\)/],
    ['stats: {}', () => damagedCopy('stats-empty', (c) => (c.stats = {})), /checkpoint\.json is damaged or from an older toolformer-ts \(stats: stats\.docsRead is missing\)/],
    ['stats.tools: null', () => damagedCopy('tools-null', (c) => (c.stats.tools = null)), /checkpoint\.json is damaged or from an older toolformer-ts \(stats: stats\.tools is null, not an object\)/],
    ['--max-docs lowered on a finished run', () => damagedCopy('max-docs', () => {}), /cannot resume max-docs with --max-docs 1: the run was made with --max-docs none/, ['--max-docs', '1']],
  ] as const)('%s', async (_name, make, message, extra: readonly string[] = []) => {
    const out = make();
    const before = folderSnapshot(join(tmp, out));
    const run = await annotate(out, '--workers', '1', '--resume', ...extra);
    expect(run.stderr).toMatch(oneLine);
    expect(run.stderr).toMatch(message);
    expect(run.code).toBe(1);
    expect(folderSnapshot(join(tmp, out))).toEqual(before);
  }, TEST_CAP_MS);

  it('a resume with another batch size leaves config.json as the run wrote it', async () => {
    const out = damagedCopy('batch', () => {});
    const config = readFileSync(join(tmp, out, 'config.json'), 'utf8');
    const run = await annotate(out, '--workers', '1', '--resume', '--batch-size', '3');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readFileSync(join(tmp, out, 'config.json'), 'utf8')).toBe(config);
  }, TEST_CAP_MS);
});

/** A copy of the finished run with checkpoint.json's text changed by `edit` (for keys JSON.stringify cannot write). */
function editedCopy(name: string, edit: (text: string) => string): string {
  cpSync(join(tmp, 'done'), join(tmp, name), { recursive: true });
  const path = join(tmp, name, 'checkpoint.json');
  writeFileSync(path, edit(readFileSync(path, 'utf8')));
  return name;
}

/** Issue 46 item 5: counts past what the inputs and files hold, and `__proto__` keys, are refused before any write. */
describe('--resume with forged counts or keys: one line, every file byte-unchanged, memory bounded', () => {
  it.each([
    ['items raised past the inputs', () => damagedCopy('items-raised', (c) => (c.items += 5)), /checkpoint\.json is damaged \(6 bad records \(items − docs\), but stats\.badRecords 1\)/],
    ['docs over items', () => damagedCopy('docs-over', (c) => (c.docs = c.items + 1)), /checkpoint\.json is damaged \(4 documents of 3 input items\)/],
    ['docs and stats.docsRead raised together', () => damagedCopy('docs-raised', (c) => ((c.docs += 1), (c.items += 1), (c.stats.docsRead += 1))), /cannot resume: the checkpoint counts 4 input items read, but the inputs hold 3/],
    ['items, badRecords and errors.jsonl all forged: more items than the inputs hold', () => {
      const out = damagedCopy('past-inputs', (c) => ((c.items += 2), (c.stats.badRecords += 2)));
      const errors = join(tmp, out, 'errors.jsonl');
      const extra = '{"file":"x","line":1,"code":"not-json","reason":"forged"}\n'.repeat(2);
      writeFileSync(errors, readFileSync(errors, 'utf8') + extra);
      const path = join(tmp, out, 'checkpoint.json');
      const c = JSON.parse(readFileSync(path, 'utf8'));
      c.bytes['errors.jsonl'] += Buffer.byteLength(extra);
      writeFileSync(path, JSON.stringify(c));
      return out;
    }, /cannot resume: the checkpoint counts 5 input items read, but the inputs hold 3/],
    // A run stopped after item 1 ("a") whose counts were then raised to item 3, consistently with its files: the
    // checkpoint still names "a" as its last item, and item 3 of the inputs is "b" (documents never read were skipped).
    ['every count raised together, within the inputs', () => damagedCopy('consistent-forgery', (c) => {
      expect(c.lastItem).toBe('document "b"');
      c.lastItem = 'document "a"';
    }), /cannot resume: the checkpoint's last item \(number 3\) was document "a", but the inputs have document "b" there/],
    ['a tool counting more documents than were read', () => damagedCopy('tool-docs', (c) => (c.stats.tools.Calculator.docs = c.docs + 1)), /checkpoint\.json is damaged \(stats\.tools\.Calculator\.docs 3 of 2 documents\)/],
    ['more calls kept than scored', () => damagedCopy('kept-scored', (c) => (c.stats.tools.Calculator.kept = c.stats.tools.Calculator.scored + 1)), /checkpoint\.json is damaged \(stats\.tools\.Calculator: \d+ inlined, \d+ kept, \d+ scored do not nest\)/],
    ['a "__proto__" key among stats.tools', () => editedCopy('proto-tools', (t) => t.replace('"tools":{', '"tools":{"__proto__":{"docs":1},')), /checkpoint\.json is damaged \(a key named "__proto__"\)/],
    ['a "__proto__" key in a map of counts', () => editedCopy('proto-reasons', (t) => t.replace('"reasons":{', '"reasons":{"__proto__":{"kept":1},')), /checkpoint\.json is damaged \(a key named "__proto__"\)/],
  ] as const)('%s', async (_name, make, message) => {
    const out = make();
    const before = folderSnapshot(join(tmp, out));
    const run = await runCliMeasured(['annotate', 'corpus.jsonl', '--model', TINY_MODEL, '--out', out, '--tools', 'Calculator', '--no-lm-proposals', '--quiet', '--chunk', '1', '--workers', '1', '--resume'], tmp);
    expect(run.stderr).toMatch(oneLine);
    expect(run.stderr).toMatch(message);
    expect(run.code).toBe(1);
    expect(run.peakRssMb).toBeLessThan(600);
    expect(folderSnapshot(join(tmp, out))).toEqual(before);
  }, TEST_CAP_MS);
});

/** A copy of the finished run with `name`'s text changed by `edit`. */
function editedFile(out: string, name: string, edit: (text: string) => string): string {
  cpSync(join(tmp, 'done'), join(tmp, out), { recursive: true });
  const path = join(tmp, out, name);
  writeFileSync(path, edit(readFileSync(path, 'utf8')));
  return out;
}

/**
 * Issue 46 item 5: the state files are parsed by explicit schemas (state-schemas.ts) before anything is written — a
 * wrong type, an unknown or prototype-named key, a negative or non-finite count, a missing field: one line naming the
 * file and the field, exit 1, every file byte-unchanged. `--resume` reads checkpoint.json and config.json, `export`
 * config.json, stats.json and checkpoint.json.
 */
describe('state files checked by their schema before any write', () => {
  const resume = (out: string) => ['annotate', 'corpus.jsonl', '--model', TINY_MODEL, '--out', out, '--tools', 'Calculator', '--no-lm-proposals', '--quiet', '--chunk', '1', '--workers', '1', '--resume'];
  const exportRun = (out: string) => ['export', out, '--out', `${out}-export`];
  it.each([
    ['resume: a count of the wrong type', resume, () => damagedCopy('s-type', (c) => (c.stats.tools.Calculator.scored = '1')), /cannot resume s-type: checkpoint\.json is damaged or from an older toolformer-ts \(stats: stats\.tools\.Calculator\.scored is not a count\): /],
    ['resume: a "constructor" key in the stats', resume, () => editedFile('s-ctor', 'checkpoint.json', (t) => t.replace('"docsRead":', '"constructor":{"name":1},"docsRead":')), /cannot resume s-ctor: checkpoint\.json is damaged or from an older toolformer-ts \(stats: stats\.constructor is not a field of this file\): /],
    ['resume: a "constructor" key in a map of counts', resume, () => editedFile('s-ctor-map', 'checkpoint.json', (t) => t.replace('"reasons":{', '"reasons":{"constructor":1,')), /\(stats: stats\.tools\.Calculator\.reasons\.constructor is a key named like a member of Object\.prototype\)/],
    ['resume: a negative byte length', resume, () => damagedCopy('s-negative', (c) => (c.bytes['calls.jsonl'] = -1)), /cannot resume s-negative: checkpoint\.json is damaged \("bytes\.calls\.jsonl" is not a count\): /],
    ['resume: an infinite count (1e999)', resume, () => editedFile('s-infinite', 'checkpoint.json', (t) => t.replace(/"items":\d+/, '"items":1e999')), /cannot resume s-infinite: checkpoint\.json is damaged \("items" is not a count\): /],
    ['resume: a NaN (not JSON)', resume, () => editedFile('s-nan', 'checkpoint.json', (t) => t.replace(/"docsRead":\d+/, '"docsRead":NaN')), /cannot resume s-nan: checkpoint\.json is not valid JSON/],
    ['resume: a missing field', resume, () => damagedCopy('s-missing', (c) => delete c.stats.hallucination), /\(stats: stats\.hallucination is missing\)/],
    ['resume: config.json with a negative --max-docs', resume, () => editedFile('s-config', 'config.json', (t) => t.replace('"maxDocs": null', '"maxDocs": -1')), /cannot resume s-config: config\.json is damaged \("maxDocs" is not a count\): /],
    ['export: stats.json with a negative count', exportRun, () => editedFile('x-negative', 'stats.json', (t) => t.replace(/"docsWithKeptCall": \d+/, '"docsWithKeptCall": -2')), /cannot read the run x-negative: stats\.json is damaged \(stats\.docsWithKeptCall is not a count\): /],
    ['export: stats.json with a "constructor" key', exportRun, () => editedFile('x-ctor', 'stats.json', (t) => t.replace('{', '{"constructor": 1,')), /cannot read the run x-ctor: stats\.json is damaged \(stats\.constructor is not a field of this file\): /],
    ['export: checkpoint.json without byte lengths', exportRun, () => damagedCopy('x-bytes', (c) => delete c.bytes), /cannot read the run x-bytes: checkpoint\.json is damaged \("bytes" is missing\): /],
  ] as const)('%s', async (_name, command, make, message) => {
    const out = make();
    const before = folderSnapshot(join(tmp, out));
    const run = await runCliMeasured(command(out), tmp);
    expect(run.stderr).toMatch(oneLine);
    expect(run.stderr).toMatch(message);
    expect(run.code).toBe(1);
    expect(run.peakRssMb).toBeLessThan(600);
    expect(folderSnapshot(join(tmp, out))).toEqual(before);
    expect(existsSync(join(tmp, `${out}-export`))).toBe(false);
  }, TEST_CAP_MS);
});

describe('shards and merge', () => {
  it('--shard 1/2 --seed 5 into a seed-0 sharded run: refused before config.json is written', async () => {
    const first = await annotate('sharded', '--shard', '0/2');
    expect(first.code).toBe(0);
    const before = folderSnapshot(join(tmp, 'sharded'));
    const other = await annotate('sharded', '--shard', '1/2', '--seed', '5');
    expect(other.stderr).toMatch(oneLine);
    expect(other.stderr).toMatch(/sharded\/manifest\.json belongs to another run/);
    expect(other.code).toBe(1);
    expect(folderSnapshot(join(tmp, 'sharded'))).toEqual(before);
  }, TEST_CAP_MS);

  it('--shard into a single-process run: refused, nothing written', async () => {
    const out = damagedCopy('plain', () => {});
    const before = folderSnapshot(join(tmp, out));
    const run = await annotate(out, '--shard', '0/2');
    expect(run.stderr).toMatch(/plain holds a run made without --shard or --queue/);
    expect(run.code).toBe(1);
    expect(folderSnapshot(join(tmp, out))).toEqual(before);
  }, TEST_CAP_MS);

  it('merge with a truncated chunk names the file, leaves no *.tmp and no merged files', async () => {
    const second = await annotate('sharded', '--shard', '1/2');
    expect(second.code).toBe(0);
    const chunk = join(tmp, 'sharded/chunks/000001.json');
    writeFileSync(chunk, readFileSync(chunk, 'utf8').slice(0, 40));
    const merged = await runCli(['merge', 'sharded'], tmp);
    expect(merged.stderr).toMatch(oneLine);
    expect(merged.stderr).toMatch(/cannot merge sharded: sharded\/chunks\/000001\.json is damaged \(.+\): delete it and run the shard or worker that holds chunk 1 again/);
    expect(merged.code).toBe(1);
    expect(readdirSync(join(tmp, 'sharded')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(existsSync(join(tmp, 'sharded/train.jsonl'))).toBe(false);
  }, TEST_CAP_MS);
});
