/**
 * The dense index cached on disk (retrieval-cache.ts): the first process builds and stores it, the next reads the
 * very same floats without encoding a text (so rankings are equal to the last bit and a run's other processes write
 * the same bytes); another seed is another key; a damaged file, a file for other tools and an unwritable cache are
 * one line each and the index is built. Real data: models/tiny-random's hidden states, 12 of the mathjs catalog's
 * tools.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DenseRetriever, hiddenStateEncoder, type TextEncoder } from '../../core/retrieval/dense.ts';
import { readDenseIndexRecord } from '../../core/retrieval/index-record.ts';
import type { HiddenStateLM } from '../../core/lm/lm.ts';
import { mathjsSpecs } from '../../core/tools/catalogs/mathjs/index.ts';
import { loadModel } from '../model/load-model.ts';
import { cachedDenseIndex, type IndexCache } from './retrieval-cache.ts';

const model = resolve(import.meta.dirname, '../../../models/tiny-random');
const tools = mathjsSpecs().slice(0, 12);
const training = { width: 16, steps: 60 };
const texts = ['the greatest common divisor of two numbers', 'round this to two decimals', 'absolute value'];

let lm: HiddenStateLM & { release(): Promise<void> };
/** The model's encoder, counting the texts it encodes (0 on a cache hit: nothing was built). */
let encoded = 0;
let encoder: TextEncoder;

beforeAll(async () => {
  lm = (await loadModel(model, { lm: { hiddenStates: true } })) as unknown as typeof lm;
  const inner = hiddenStateEncoder(lm);
  encoder = { width: inner.width, encode: (text) => (encoded++, inner.encode(text)) };
});
afterAll(() => lm?.release());

const cacheIn = (dir: string) => {
  const lines: string[] = [];
  return { cache: { dir, warn: (line: string) => lines.push(line) } satisfies IndexCache, lines };
};
const source = (seed = 0) => ({ tools, encoder, model, seed, training });
const files = (dir: string) => readdirSync(join(dir, 'retrieval-index')).sort();
const ranks = (index: Awaited<ReturnType<typeof cachedDenseIndex>>['index']) => Promise.all(texts.map((t) => new DenseRetriever(index, encoder).rank(t, 5)));

describe('the dense index cache', () => {
  it('stores the index on the first build; the next reads the same floats back without encoding a text', async () => {
    const { cache, lines } = cacheIn(mkdtempSync(join(tmpdir(), 'index-cache-')));
    encoded = 0;
    const built = await cachedDenseIndex(source(), cache);
    expect(built.cached).toBe(false);
    expect(encoded).toBeGreaterThan(tools.length); // the tools and their training texts
    expect(files(cache.dir)).toHaveLength(1);
    encoded = 0;
    const read = await cachedDenseIndex(source(), cache);
    expect(read.cached).toBe(true);
    expect(encoded).toBe(0);
    expect(read.index).toEqual(built.index);
    expect(read.index.tools[0]).toBeInstanceOf(Float32Array);
    expect(await ranks(read.index)).toEqual(await ranks(built.index)); // scores equal to the last bit
    expect(lines).toEqual([]);
    // Another seed trains another projection: its own key, its own file.
    expect((await cachedDenseIndex(source(1), cache)).cached).toBe(false);
    expect(files(cache.dir)).toHaveLength(2);
  });

  it('a damaged file is one line, then the index is built again and replaces it', async () => {
    const { cache, lines } = cacheIn(mkdtempSync(join(tmpdir(), 'index-cache-')));
    const built = await cachedDenseIndex(source(), cache);
    const file = join(cache.dir, 'retrieval-index', files(cache.dir)[0]);
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 100));
    const again = await cachedDenseIndex(source(), cache);
    expect(again.cached).toBe(false);
    expect(again.index).toEqual(built.index);
    expect(lines).toEqual([`toolformer: retrieval index cache ignored: ${file}: not JSON; the index is built again`]);
    expect((await cachedDenseIndex(source(), cache)).cached).toBe(true);
  });

  it('a record is trusted only for its own key, tools and shapes, with finite numbers', async () => {
    const { cache } = cacheIn(mkdtempSync(join(tmpdir(), 'index-cache-')));
    await cachedDenseIndex(source(), cache);
    const name = files(cache.dir)[0];
    const text = readFileSync(join(cache.dir, 'retrieval-index', name), 'utf8');
    const key = name.replace(/\.json$/, '');
    const names = tools.map((t) => t.name);
    expect(typeof readDenseIndexRecord(text, key, names)).toBe('object');
    expect(readDenseIndexRecord(text, 'f'.repeat(64), names)).toBe('written for another key');
    expect(readDenseIndexRecord(text, key, [...names].reverse())).toBe('other tools');
    const record = JSON.parse(text);
    expect(readDenseIndexRecord(JSON.stringify({ ...record, version: 0 }), key, names)).toMatch(/^version 0/);
    record.tools[3][1] = null; // what JSON.stringify makes of a NaN
    expect(readDenseIndexRecord(JSON.stringify(record), key, names)).toBe('bad tool vectors');
    record.tools[3] = record.tools[3].slice(1).concat([0.5]);
    record.projection.weights.pop();
    expect(readDenseIndexRecord(JSON.stringify(record), key, names)).toBe('bad projection weights');
  });

  it('a cache that cannot be written is one line; the index is still built', async () => {
    const blocked = join(mkdtempSync(join(tmpdir(), 'index-cache-')), 'a-file');
    writeFileSync(blocked, 'not a directory');
    const { cache, lines } = cacheIn(blocked);
    const built = await cachedDenseIndex(source(), cache);
    expect(built.cached).toBe(false);
    expect(built.index.tools).toHaveLength(tools.length);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^toolformer: retrieval index not cached: .*a-file/);
  });
});
