import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../core/default-config.ts';
import { emptyStats } from '../../core/stats.ts';
import type { PipelineParts } from '../../core/stages/stages.ts';
import { runAnnotate } from './annotate-run.ts';
import { digestInputs } from '../corpus/input-digest.ts';
import { RunFiles } from './run-files.ts';

/**
 * Runs are never mixed: which out dirs a fresh run and a resume accept. (Killing and resuming a real run:
 * reliability.test.ts.)
 */
const tmp = mkdtempSync(join(tmpdir(), 'run-files-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
/** A fresh directory holding the given files. */
function dir(files: Record<string, string> = {}): string {
  const d = join(tmp, `d${n++}`);
  mkdirSync(d);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
  return d;
}
const read = (d: string, name: string) => readFileSync(join(d, name), 'utf8');
const checkpoint = (calls: number, stats: unknown = {}) =>
  JSON.stringify({ items: 1, docs: 1, bytes: { 'train.jsonl': 0, 'calls.jsonl': calls, 'errors.jsonl': 0 }, stats });

describe('RunFiles.open', () => {
  it('a fresh run accepts a dir left by a run killed before its first document (config.json, empty files)', () => {
    const d = dir({ 'config.json': '{}', 'calls.jsonl': '', 'train.jsonl': '' });
    const { files, checkpoint } = RunFiles.open(d, false);
    files.close();
    expect(checkpoint).toBeNull();
  });

  it('a fresh run refuses a dir holding a run, naming --resume, and leaves it as it was', () => {
    const runs: Record<string, string>[] = [{ 'checkpoint.json': checkpoint(3), 'calls.jsonl': 'ab\n' }, { 'errors.jsonl': '{}\n' }, { 'stats.json': '{}' }];
    for (const held of runs) {
      const d = dir(held);
      expect(() => RunFiles.open(d, false)).toThrow(/already holds a run \(.+\): pass --resume to continue it, --overwrite to replace it, or choose another --out$/);
      for (const [name, text] of Object.entries(held)) expect(read(d, name)).toBe(text);
    }
  });

  it('--overwrite removes only the earlier run\'s files, after which a fresh run is accepted', () => {
    const d = dir({ 'checkpoint.json': checkpoint(3), 'calls.jsonl': 'ab\n', 'stats.json': '{}', 'notes.txt': 'mine' });
    RunFiles.removeRun(d);
    expect(RunFiles.runFilesIn(d)).toEqual([]);
    expect(read(d, 'notes.txt')).toBe('mine');
    expect(() => RunFiles.assertNoRun(d)).not.toThrow();
  });

  it('--resume without a checkpoint starts fresh: output files emptied', () => {
    const d = dir({ 'calls.jsonl': '{"half": ' });
    const { files, checkpoint } = RunFiles.open(d, true);
    files.close();
    expect(checkpoint).toBeNull();
    expect(read(d, 'calls.jsonl')).toBe('');
  });

  it('--resume truncates each file to its checkpoint: a torn last line is dropped', () => {
    const d = dir({ 'checkpoint.json': checkpoint(3), 'calls.jsonl': 'ab\n{"torn', 'train.jsonl': '', 'errors.jsonl': '' });
    const { files, checkpoint: cp } = RunFiles.open(d, true);
    files.push('calls.jsonl', { c: 1 });
    files.commit(2, 2, {});
    files.close();
    expect(cp?.docs).toBe(1);
    expect(read(d, 'calls.jsonl')).toBe('ab\n{"c":1}\n');
    expect(JSON.parse(read(d, 'checkpoint.json'))).toMatchObject({ items: 2, docs: 2, bytes: { 'calls.jsonl': 11 } });
  });

  it('--resume refuses files shorter than the checkpoint (growing them would write NUL bytes)', () => {
    const d = dir({ 'checkpoint.json': checkpoint(30), 'calls.jsonl': 'ab\n' });
    expect(() => RunFiles.open(d, true)).toThrow('cannot resume ' + d + ': calls.jsonl is shorter than its checkpoint (3 < 30 bytes)');
    expect(read(d, 'calls.jsonl')).toBe('ab\n');
  });

  it('--resume refuses a checkpoint that is not JSON', () => {
    const d = dir({ 'checkpoint.json': '{"items": 1, ', 'calls.jsonl': 'ab\n' });
    expect(() => RunFiles.open(d, true)).toThrow(/^cannot resume .*: checkpoint\.json is not valid JSON/);
  });
});

describe('runAnnotate --resume', () => {
  const parts = {} as PipelineParts; // never reached: no documents
  const config = defaultConfig({ tools: ['Calculator'], seed: 3 });
  const record = (c = config) => JSON.stringify({ model: 'm', inputs: [], inputsDigest: digestInputs([]), maxDocs: null, config: c });
  const resume = (d: string, c = config, maxDocs?: number) =>
    runAnnotate(parts, { inputs: [], outDir: d, meta: { model: 'm' }, config: c, resume: true, maxDocs });
  // A checkpoint's stats as a run writes them (resume-checks.ts refuses any other shape before touching a file).
  const oneDoc = { ...emptyStats(['Calculator']), docsRead: 1 };

  it('refuses other settings than the run it continues, naming the first that differs', async () => {
    const d = dir({ 'checkpoint.json': checkpoint(0, oneDoc), 'config.json': record() });
    await expect(resume(d, { ...config, seed: 4 })).rejects.toThrow(/^cannot resume .* with other settings \(seed: 3 then, 4 now\): pass the same flags/);
    const tauF = structuredClone(config);
    tauF.thresholds.Calculator.tauF = 2;
    await expect(resume(d, tauF)).rejects.toThrow(/\(thresholds: .* then, .* now\)/);
    expect(read(d, 'config.json')).toBe(record());
  });

  it('refuses a run whose config.json is not JSON', async () => {
    const d = dir({ 'checkpoint.json': checkpoint(0, oneDoc), 'config.json': '{"model": ' });
    await expect(resume(d)).rejects.toThrow(/^cannot resume .*: config\.json is not valid JSON .*: start again with another --out$/);
  });

  it('accepts another batch size, tool concurrency or a raised --max-docs (they do not change the output)', async () => {
    // The run's one input holds the one document its checkpoint has read (a count past the inputs is refused).
    const input = join(dir(), 'one.jsonl');
    writeFileSync(input, '{"id": "a", "text": "One document."}\n');
    const withMaxDocs = JSON.stringify({ model: 'm', inputs: [input], inputsDigest: digestInputs([input]), maxDocs: 5, config });
    const d = dir({ 'checkpoint.json': checkpoint(0, oneDoc), 'config.json': withMaxDocs, 'calls.jsonl': '' });
    const stats = await runAnnotate(parts, { inputs: [input], outDir: d, meta: { model: 'm' }, config: { ...config, batchSize: 1, toolConcurrency: 8 }, resume: true, maxDocs: 10 });
    expect(stats).toEqual(oneDoc);
  });
});
