import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { fnv1a } from '../../core/text/hash.ts';
import type { EvalPrompt } from '../tasks.ts';
import { encoder, FRESH_FILE, heldOut as committedHeldOut, readJsonl, readKb, ROOT } from './corpus-files.ts';
import { factbookSectionCut } from './derived-sets.ts';
import { FRESH_RELATIONS, freshInFormatPrompts, inPretrainingText, pretrainingExposure } from './fresh-set.ts';
import { factbookCountry, type CorpusDoc } from './heldout.ts';

describe('the fresh in-format set (pre-registered with the pretraining dose–response)', () => {
  const factbook = readJsonl<CorpusDoc>(join(ROOT, 'corpus/factbook.jsonl'));
  const heldOut = committedHeldOut();
  const encode = encoder();
  const committed = readJsonl<EvalPrompt>(FRESH_FILE);

  it('is what the generator writes from the corpus, KB and held-out list (deterministic; the committed file is that output)', () => {
    const built = freshInFormatPrompts({ kb: readKb(), heldOut, factbook, encode });
    expect(committed).toEqual(JSON.parse(JSON.stringify(built)));
    expect(new Set(committed.map((p) => p.phrasing))).toEqual(new Set(FRESH_RELATIONS.map((r) => r.relation)));
  });

  it('cuts only held-out countries\' sections, in their own format, before the field, with the answer not in the prompt', () => {
    const docs = new Map(factbook.map((d) => [d.id, d]));
    for (const p of committed) {
      const doc = docs.get(p.source!)!;
      const rel = FRESH_RELATIONS.find((r) => r.relation === p.phrasing)!;
      expect(heldOut.countries).toContain(factbookCountry(doc));
      expect(p.family).not.toMatch(/capital/);
      expect(encode(p.prompt).length, p.id).toBeLessThanOrEqual(72);
      const lines = p.prompt.split('\n');
      // The header and every kept line are the section's own lines, in order, ending with the field's label.
      expect(doc.text.startsWith(`${lines[0]}\n`), p.id).toBe(true);
      expect(`\n${lines.at(-1)}`).toBe(rel.cue);
      const docLines = doc.text.split('\n');
      let at = 0;
      for (const l of lines.slice(1, -1)) {
        const i = docLines.findIndex((d, k) => k > at && (d === l || d.startsWith(`${l}; `)));
        expect(i, `${p.id}: ${l}`).toBeGreaterThan(at);
        at = i;
      }
      for (const a of p.answers) expect(p.prompt.toLowerCase()).not.toContain(a.toLowerCase());
    }
  });

  it('a cut keeps the lines nearest the field and drops from the top; a government section keeps its Country name line', () => {
    const chars = (s: string) => [...s].map((c) => c.charCodeAt(0));
    const people = { id: 'x/people-and-society/0', source: 'factbook: X, People and Society', text: 'X: People and Society.\nEthnic: a b c d\nLanguages: Y\nPopulation: 12,345 (est.)' };
    expect(factbookSectionCut(people, '\nPopulation:', chars, 1000)).toBe('X: People and Society.\nEthnic: a b c d\nLanguages: Y\nPopulation:');
    expect(factbookSectionCut(people, '\nPopulation:', chars, 50)).toBe('X: People and Society.\nLanguages: Y\nPopulation:');
    expect(factbookSectionCut(people, '\nArea: total:', chars, 1000)).toBeNull();
    const gov = { id: 'x/government/0', source: 'factbook: X, Government', text: 'X: Government.\nCountry name: long: A; short: B\nCapital: name: Z\nIndependence: 1 May 1900' };
    expect(factbookSectionCut(gov, '\nIndependence:', chars, 1000)).toBe('X: Government.\nCountry name: long: A; short: B\nCapital: name: Z\nIndependence:');
  });

  it('exposure counts a source section only when the pretraining split holds it, and answer documents that name the subject', () => {
    // Ids picked by the split's own hash: one in the pretraining text, one in its 1-in-50 validation share.
    const idIn = Array.from({ length: 200 }, (_, i) => `t/${i}`).find((id) => fnv1a(id) % 50 !== 0)!;
    const idVal = Array.from({ length: 200 }, (_, i) => `t/${i}`).find((id) => fnv1a(id) % 50 === 0)!;
    expect(inPretrainingText({ id: idIn })).toBe(true);
    expect(inPretrainingText({ id: idVal })).toBe(false);
    const prompt = (source: string): EvalPrompt => ({ id: source, date: '', family: 'f', phrasing: 'population', prompt: '', answers: ['12,345'], subject: 'Xland', source });
    const docs: CorpusDoc[] = [
      { id: idIn, source: '', text: 'Xland: People and Society.\nPopulation: 12,345' },
      { id: idVal, source: '', text: 'Xland: People and Society.\nPopulation: 12,345' },
      { id: 'other', source: '', text: 'Yland has 12,345 people.' },
    ];
    expect(pretrainingExposure([prompt(idIn), prompt(idVal)], docs)).toEqual([
      { id: idIn, relation: 'population', sourceInPretraining: true, answerDocs: 1 },
      { id: idVal, relation: 'population', sourceInPretraining: false, answerDocs: 1 },
    ]);
  });
});
