import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildKnowledgeBase, firstClause } from './build-kb.ts';

describe('build-kb', () => {
  const built = buildKnowledgeBase(); // ~1 s: WordNet's noun files are parsed
  it('kb.json is what build-kb.ts produces from the installed packages (rebuild with npm run build:kb)', () => {
    const committed = JSON.parse(readFileSync(new URL('./kb.json', import.meta.url), 'utf8'));
    expect(built.facts.length).toBe(committed.facts.length);
    expect(built).toEqual(committed);
  });
  it('keeps one fact per (subject, relation), every source declared, a few MB at most', () => {
    const kb = built;
    const pairs = kb.facts.map((f) => `${f.relation}|${f.subject.toLowerCase()}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    for (const f of kb.facts) expect(kb.sources[f.source], f.source).toBeDefined();
    expect(readFileSync(new URL('./kb.json', import.meta.url)).length).toBeLessThan(4_000_000);
  });
  it('firstClause keeps the short answer', () => {
    expect(firstClause('321,368,864 (July 2015 est.)')).toBe('321,368,864');
    expect(firstClause('4 July 1776 (declared); 3 September 1783 (recognized by Great Britain)')).toBe('4 July 1776');
    expect(firstClause('capital of Pennsylvania; located in southern part of state')).toBe('capital of Pennsylvania');
    expect(firstClause('  ')).toBeUndefined();
  });
});
