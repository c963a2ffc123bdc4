import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TINY_MODEL, runCli, type CliResult } from '../testing/cli-child.ts';

/**
 * The probe verdict cache through the CLI (probe-cache.ts): a run stores the probes' verdicts, the next run with the
 * same model, seed and tools reads them and writes the same files; a damaged or oversized cache file is reported in
 * one line and replaced; --no-probe-cache neither reads nor writes.
 */
const tmp = mkdtempSync(join(tmpdir(), 'probe-cache-'));
const cache = join(tmp, 'cache');
const env = { ...process.env, TOOLFORMER_CACHE: cache };
const annotate = (out: string, ...extra: string[]) =>
  runCli(['annotate', 'corpus.jsonl', '--model', TINY_MODEL, '--out', out, '--tools', 'Calculator,Calendar', '--m', '2', '--seed', '3', '--workers', '1', '--quiet', ...extra], tmp, env);
const read = (out: string, file: string) => readFileSync(join(tmp, out, file), 'utf8');
const configOf = (out: string) => JSON.parse(read(out, 'config.json'));
const cacheFiles = () => readdirSync(join(cache, 'probe-verdicts'));
let first: CliResult;

beforeAll(async () => {
  const sample = readFileSync(join(import.meta.dirname, '../../../corpus/sample.jsonl'), 'utf8').trim().split('\n');
  writeFileSync(join(tmp, 'corpus.jsonl'), sample.slice(0, 2).join('\n') + '\n');
  first = await annotate('first');
}, 300_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('annotate with the probe verdict cache', () => {
  it('a first run computes the probes, says cached: false with the key, and stores the verdicts under that key', () => {
    expect(first.stderr).toBe('');
    const { probeCache, config } = configOf('first');
    expect(probeCache).toEqual({ key: expect.stringMatching(/^[0-9a-f]{64}$/), cached: false });
    expect(cacheFiles()).toEqual([`${probeCache.key}.json`]);
    const stored = JSON.parse(readFileSync(join(cache, 'probe-verdicts', `${probeCache.key}.json`), 'utf8'));
    expect(stored.verdicts.samplingProbe).toEqual(config.samplingProbe);
    expect(config.samplingProbe.Calculator.samples).toBe(100);
  });

  it('the next run reads them: cached: true, and the same train, calls, errors and stats files', async () => {
    const run = await annotate('second');
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('probes: verdicts from the cache');
    expect(first.stdout).not.toContain('from the cache');
    for (const f of ['train.jsonl', 'calls.jsonl', 'errors.jsonl', 'stats.json']) expect(read('second', f), f).toBe(read('first', f));
    const [a, b] = [configOf('first'), configOf('second')];
    expect(b.probeCache).toEqual({ key: a.probeCache.key, cached: true });
    expect({ ...b, probeCache: null }).toEqual({ ...a, probeCache: null });
  }, 300_000);

  it('another seed is another key: computed again, a second file', async () => {
    const run = await annotate('seed4', '--seed', '4');
    expect(configOf('seed4').probeCache.cached).toBe(false);
    expect(run.stdout).not.toContain('from the cache');
    expect(cacheFiles()).toHaveLength(2);
  }, 300_000);

  it('a damaged or oversized cache file is one line on stderr, not trusted, and replaced by the computed verdicts', async () => {
    const { key } = configOf('first').probeCache;
    const file = join(cache, 'probe-verdicts', `${key}.json`);
    const good = readFileSync(file, 'utf8');
    for (const [content, why] of [
      ['{"probeVersion": 1, "key": "', /is damaged \(not JSON\)/],
      [good.replace('"samples":', '"samples":-'), /is damaged \(Calculator's counts/],
      [' '.repeat(2 * 1024 * 1024), /over the 1048576-byte cap/],
    ] as const) {
      writeFileSync(file, content);
      const run = await annotate('damaged', '--overwrite');
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(new RegExp(`^toolformer: probe cache ignored: .*${why.source}.*; the probes run again\\n$`));
      expect(configOf('damaged').probeCache).toEqual({ key, cached: false });
      expect(read('damaged', 'calls.jsonl')).toBe(read('first', 'calls.jsonl'));
      expect(readFileSync(file, 'utf8')).toBe(good);
    }
  }, 600_000);

  it('--no-probe-cache neither reads nor writes the cache', async () => {
    const { key } = configOf('first').probeCache;
    const file = join(cache, 'probe-verdicts', `${key}.json`);
    writeFileSync(file, 'not read');
    const run = await annotate('off', '--no-probe-cache');
    expect(run.stderr).toBe('');
    expect(configOf('off').probeCache).toEqual({ key, cached: false });
    expect(readFileSync(file, 'utf8')).toBe('not read');
    expect(existsSync(join(tmp, 'off', 'train.jsonl'))).toBe(true);
  }, 300_000);
});
