/**
 * The labelled retrieval set and its metrics: ≥ 150 hand-written texts, each gold tool served by the mathjs
 * catalog, no text twice, dev and test of even size; NDCG and recall on exact small cases; the committed table is the
 * one results.json renders (so the README's block cannot drift from the measured numbers).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mathjsSpecs } from '../../core/tools/catalogs/mathjs/index.ts';
import { mulberry32 } from '../../random/mulberry32.ts';
import { bootstrap, ndcgAt, recallAt } from './metrics.ts';
import { readRequests, retrievalTable } from './table.ts';
import { docsVocabularyShare, sharedDocWords } from './vocabulary.ts';

describe('retrieval evaluation', () => {
  const requests = readRequests();

  it('≥ 150 requests, gold tools served, texts unique, split by id parity', () => {
    expect(requests.length).toBeGreaterThanOrEqual(150);
    const served = new Set(mathjsSpecs().map((s) => s.name));
    for (const r of requests) {
      expect(r.gold.length, r.text).toBeGreaterThan(0);
      for (const g of r.gold) expect(served.has(g), `${r.id}: ${g}`).toBe(true);
      expect(r.split).toBe(r.id % 2 === 1 ? 'dev' : 'test');
      expect(['request', 'report']).toContain(r.kind);
    }
    expect(new Set(requests.map((r) => r.text)).size).toBe(requests.length);
    expect(requests.filter((r) => r.kind === 'report').length).toBeGreaterThanOrEqual(30);
  });

  it('the blind set: ≥ 100 natural requests, gold tools served, split by id parity, none sharing a stemmed word with its gold tools\' names or descriptions', () => {
    const blind = readRequests(resolve(import.meta.dirname, 'blind-requests.jsonl'));
    const tools = new Map(mathjsSpecs().map((s) => [s.name, s]));
    expect(blind.length).toBeGreaterThanOrEqual(100);
    expect(new Set(blind.map((r) => r.text)).size).toBe(blind.length);
    for (const r of blind) {
      expect(r.split).toBe(r.id % 2 === 1 ? 'dev' : 'test');
      for (const g of r.gold) expect(tools.has(g), `${r.id}: ${g}`).toBe(true);
      expect(sharedDocWords(r.text, r.gold.map((g) => tools.get(g)!)), `${r.id}: ${r.text}`).toEqual([]);
    }
    expect(docsVocabularyShare(blind, tools)).toEqual({ shared: 0, requests: blind.length });
    // The check sees a borrowed word through the stemmer (planted: "averages" is not borrowed, "means" is).
    expect(sharedDocWords('What do 3 and 5 average out to?', [tools.get('mean')!])).toEqual([]);
    expect(sharedDocWords('What means do 3 and 5 have, arithmetically?', [tools.get('mean')!])).toEqual(['mean']);
    expect(sharedDocWords('The remainders of 17 by 5', [tools.get('mod')!])).toEqual(['remainder']);
    // The old set borrows: most of its requests share a word with their gold tools' docs.
    const old = docsVocabularyShare(requests, tools);
    expect(old.shared / old.requests).toBeGreaterThan(0.5);
  });

  it('NDCG@k and recall@k', () => {
    const gold = new Set(['a']);
    expect(ndcgAt(['a', 'b'], gold, 1)).toBe(1);
    expect(ndcgAt(['b', 'a'], gold, 1)).toBe(0);
    expect(ndcgAt(['b', 'a'], gold, 5)).toBeCloseTo(1 / Math.log2(3), 12);
    expect(ndcgAt(['b', 'a', 'c'], new Set(['a', 'c']), 5)).toBeCloseTo((1 / Math.log2(3) + 1 / Math.log2(4)) / (1 + 1 / Math.log2(3)), 12);
    expect(recallAt(['b', 'a', 'c'], new Set(['a', 'd']), 5)).toBe(0.5);
    const e = bootstrap([0, 1, 1, 1], mulberry32(1), 500);
    expect(e.mean).toBe(0.75);
    expect(e.low).toBeLessThanOrEqual(0.75);
    expect(e.high).toBe(1);
  });

  it('results.md is results.json rendered', () => {
    const here = import.meta.dirname;
    const saved = JSON.parse(readFileSync(resolve(here, 'results.json'), 'utf8'));
    expect(`${retrievalTable(saved)}\n`).toBe(readFileSync(resolve(here, 'results.md'), 'utf8'));
    expect(saved.requests.labelled).toBe(requests.length);
  });
});
