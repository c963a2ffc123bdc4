/**
 * The bundled word vectors (word-vectors.bin, written by word-vectors.ts) and the "vectors" retriever on them: the
 * committed file is the one its record describes (SHA-256, size, shape), holds every word of the tools' docs that
 * the source has, parses to unit vectors, and a malformed file is one clear line; the codec round-trips within the
 * quantization error; on dev requests (never test) the retriever ranks tools whose docs share no word with the
 * request above chance, and scrambled vectors do not (so the check rests on the vectors' knowledge).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../random/mulberry32.ts';
import { VectorRetriever } from '../core/retrieval/vectors.ts';
import { dot, encodeWordVectors, parseWordVectors, type WordVectors } from '../core/retrieval/word-vectors.ts';
import { mathjsSpecs } from '../core/tools/catalogs/mathjs/index.ts';
import { BLIND_FILE, readRequests } from '../eval/retrieval/table.ts';
import { bundledWordVectors, WORD_VECTORS_PATH } from '../node/tools/retrieval.ts';
import { catalogWords, WORD_VECTORS_RECORD } from './word-vectors.ts';

interface VectorsRecord { dims: number; words: number; topWords: number; bytes: number; sha256: string; catalogWords: { absentFromPackage: string[] } }

describe('word vectors', () => {
  const record = JSON.parse(readFileSync(WORD_VECTORS_RECORD, 'utf8')) as VectorsRecord;
  const bytes = readFileSync(WORD_VECTORS_PATH);
  const vectors = bundledWordVectors();

  it('the committed file is the one word-vectors.ts recorded: SHA-256, size, shape', () => {
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(record.sha256);
    expect(bytes.length).toBe(record.bytes);
    expect(bytes.length).toBeLessThan(5_000_000);
    expect(vectors.dims).toBe(record.dims);
    expect(vectors.words.length).toBe(record.words);
    expect(vectors.words.length).toBeGreaterThan(record.topWords);
    // Frequency order kept: ranks rise, so a word's row is never before a more frequent word's.
    for (let i = 1; i < vectors.ranks.length; i++) expect(vectors.ranks[i]).toBeGreaterThan(vectors.ranks[i - 1]);
    const absent = new Set(record.catalogWords.absentFromPackage);
    const missing = [...catalogWords()].filter((w) => !absent.has(w) && vectors.indexOf(w) === undefined);
    expect(missing).toEqual([]);
    for (const i of [0, 1234, vectors.words.length - 1]) expect(dot(vectors.vector(i), vectors.vector(i))).toBeCloseTo(1, 5);
  });

  it('round-trips through int8 within 1e-4 of cosine; a malformed file is one line naming it', () => {
    const random = mulberry32(7).next;
    const rows = Array.from({ length: 50 }, () => {
      const v = Array.from({ length: 16 }, () => random() * 2 - 1);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    });
    const words = rows.map((_, i) => `w${i}`);
    const parsed = parseWordVectors(encodeWordVectors(words, words.map((_, i) => i * 3), rows, 16));
    rows.forEach((row, i) => {
      const v = parsed.vector(parsed.indexOf(`w${i}`)!);
      expect(row.reduce((s, x, k) => s + x * v[k], 0)).toBeGreaterThan(0.9999);
    });
    expect(parsed.ranks[49]).toBe(147);
    expect(() => parseWordVectors(bytes.subarray(0, bytes.length - 1), 'x.bin')).toThrow(/^x\.bin: \d+ bytes, expected \d+ for 40111 words × 100 dims$/);
    expect(() => parseWordVectors(new TextEncoder().encode('{"not": "vectors"}'), 'x.bin')).toThrow('x.bin: not a word-vector file (no TFWV header)');
  });

  it('"vectors" ranks tools the request shares no word with above chance, on dev requests; scrambled vectors do not', () => {
    const tools = mathjsSpecs();
    const blindDev = readRequests(BLIND_FILE).filter((r) => r.split === 'dev');
    const average = [...readRequests(), ...blindDev].filter((r) => r.split === 'dev' && /\baverage/i.test(r.text) && r.gold.includes('mean'));
    expect(average.length).toBeGreaterThanOrEqual(2);
    // Each request's best rank of a gold tool among the 215 (a random ranking's is ~108 for one gold tool).
    const ranks = (retriever: VectorRetriever, requests: typeof blindDev) =>
      requests.map((r) => retriever.rankNow(r.text, tools.length).findIndex((t) => r.gold.includes(t.name)) + 1);
    // Without the WordNet expansion field (which lists "average" under the mean tool): the vectors alone.
    const real = new VectorRetriever(tools, vectors);
    const scrambled = new VectorRetriever(tools, scramble(vectors));
    // "average(d)" is in neither the mean tool's name, description nor documentation: measured ranks 29 and 6; scrambled 85 and 85.
    const [realAverage, scrambledAverage] = [ranks(real, average), ranks(scrambled, average)];
    realAverage.forEach((rank, i) => {
      expect(rank).toBeLessThanOrEqual(tools.length / 4);
      expect(rank).toBeLessThan(scrambledAverage[i]);
    });
    // The blind dev split (no request shares a word with its tools' docs): mean best rank 67.2 measured, 85.2 scrambled.
    const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
    const realMean = mean(ranks(real, blindDev));
    expect(realMean).toBeLessThan(80);
    expect(mean(ranks(scrambled, blindDev))).toBeGreaterThan(realMean + 10);
  });
});

/** The same words with each other's vectors (a fixed permutation): the file's shape without its knowledge. */
function scramble(vectors: WordVectors): WordVectors {
  const order = vectors.words.map((_, i) => i);
  const random = mulberry32(3).next;
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return { ...vectors, vector: (i) => vectors.vector(order[i]) };
}
