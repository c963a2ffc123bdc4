import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCall } from '../../core/call-syntax.ts';
import { stripCalls } from '../../core/generate/generate.ts';
import { majorityRate, wilson } from '../metrics.ts';
import { armAll, armNoCalls, armRandom, callsPerTool, mentionsAny, ranCalls, withoutHeldOutCalls, type CallRow, type TrainRecord } from './arms.ts';
import { buildEvalSet, fitLeft } from './eval-sets.ts';
import { chooseHeldOut, isHeldOutDoc, type CorpusDoc } from './heldout.ts';
import { lossWindows } from './loss.ts';
import { overlapReport, phrasingRegex } from './overlap.ts';
import { newcombe } from './report.ts';
import { encoder, readJsonl, readKb, ROOT } from './corpus-files.ts';
import { capitalFacts, splitFacts } from '../../train/data-synthetic.ts';

const fixture = (f: string) => join(import.meta.dirname, 'testing', f);
const docs = new Map(readJsonl<CorpusDoc>(fixture('docs.jsonl')).map((d) => [d.id, d]));
const rows = readJsonl<CallRow>(fixture('calls.jsonl'));
const kept = readJsonl<TrainRecord>(fixture('train.jsonl'));

describe('arms from one annotate run', () => {
  it('(b) inlines one call per position that ran, at every such position; removing the calls gives the original text back', () => {
    const b = armAll(rows, docs, 1);
    const positions = new Set(ranCalls(rows).map((r) => `${r.docId}@${r.at}`));
    expect(b.flatMap((r) => r.calls!.map((c) => `${r.id}@${c.at}`)).sort()).toEqual([...positions].sort());
    for (const r of b) {
      expect(stripCalls(r.text).replace(/\s+/g, ' ')).toBe(docs.get(r.id)!.text.replace(/[[\]]/g, '').replace(/\s+/g, ' '));
      for (const c of r.calls!) expect(parseCall(`[${c.tool}(${c.tool === 'QA' ? `"${c.input}"` : c.input}) -> ${c.result}]`).ok).toBe(true);
    }
    expect(armAll(rows, docs, 1)).toEqual(b);
  });

  it('(c) draws exactly (a)\'s count per tool from the calls that ran', () => {
    const c = armRandom(rows, docs, { QA: 1, Calculator: 3 }, 2);
    expect(callsPerTool(c)).toEqual({ QA: 1, Calculator: 3 });
    const ran = new Set(ranCalls(rows).map((r) => `${r.docId}@${r.at}@${r.input}`));
    for (const r of c) for (const call of r.calls!) expect(ran.has(`${r.id}@${call.at}@${call.input}`)).toBe(true);
    expect(armRandom(rows, docs, { QA: 1, Calculator: 3 }, 3)).not.toEqual(c);
  });

  it('(d) is (a)\'s texts without calls, anchored where (a)\'s calls were', () => {
    const d = armNoCalls(kept, docs);
    expect(d).toHaveLength(kept.length);
    expect(d[0].text).not.toContain('[');
    expect(d[0].anchors).toEqual(kept[0].calls!.map((c) => c.at));
    // The text after the anchor is what followed (a)'s call.
    const call = kept[0].calls![0];
    const afterCall = kept[0].text.slice(kept[0].text.indexOf(']', call.at) + 1, kept[0].text.indexOf(']', call.at) + 20);
    expect(d[0].text.slice(call.at, call.at + 19)).toBe(afterCall);
  });

  it('a call naming a held-out subject is removed; the record keeps its other calls or goes', () => {
    const b = armAll(rows, docs, 1);
    const rec = b.find((r) => r.calls!.some((c) => c.tool === 'QA'))!;
    const subject = /(?:of|in) ([A-Z][\w ]+?)\?/.exec(rec.calls!.find((c) => c.tool === 'QA')!.input)![1];
    const { records, removed } = withoutHeldOutCalls(b, docs, [subject]);
    expect(removed).toBeGreaterThan(0);
    for (const r of records) for (const c of r.calls!) expect(c.input).not.toContain(subject);
    expect(withoutHeldOutCalls(b, docs, ['Atlantis'])).toEqual({ records: b, removed: 0 });
    // A re-inlined record is its original text with the remaining calls, each at its place.
    for (const r of records) {
      expect(stripCalls(r.text).replace(/\s+/g, ' ')).toBe(docs.get(r.id)!.text.replace(/[[\]]/g, '').replace(/\s+/g, ' '));
      for (const c of r.calls!) expect(r.text).toContain(`${c.input}`);
    }
  });

  it('a held-out subject is found only as a whole name', () => {
    expect(mentionsAny('The capital of Niger is Niamey.', ['Niger'])).toBe(true);
    expect(mentionsAny('The capital of Nigeria is Abuja.', ['Niger'])).toBe(false);
  });
});

describe('statistics', () => {
  it('Wilson intervals: known values, and 0/n and n/n stay inside [0, 1]', () => {
    const [lo, hi] = wilson(26, 50);
    expect(lo).toBeCloseTo(0.3851, 3);
    expect(hi).toBeCloseTo(0.6520, 3);
    expect(wilson(0, 40)[0]).toBe(0);
    expect(wilson(0, 40)[1]).toBeCloseTo(0.0876, 3);
    expect(wilson(40, 40)[1]).toBe(1);
  });

  it('Newcombe interval of a difference: the worked example of Newcombe (1998), 56/70 − 48/80', () => {
    const [d, lo, hi] = newcombe(56, 70, 48, 80);
    expect(d).toBeCloseTo(0.2, 6);
    expect(lo).toBeCloseTo(0.0524, 3);
    expect(hi).toBeCloseTo(0.3339, 3);
  });

  it('majority rate: the share a constant answer gets', () => {
    const p = (answers: string[]) => ({ id: 'x', family: 'dates', prompt: '', answers, date: '2020-01-01' });
    expect(majorityRate([p(['Monday']), p(['Monday']), p(['Friday']), p(['monday.'])])).toBe(0.75);
  });
});

describe('held-out lists and eval set (real corpus)', () => {
  const factbook = readJsonl<CorpusDoc>(join(ROOT, 'corpus/factbook.jsonl'));
  const sotu = readJsonl<CorpusDoc>(join(ROOT, 'corpus/sotu.jsonl'));
  const heldOut = chooseHeldOut(factbook, sotu);
  const committed = JSON.parse(readFileSync(join(import.meta.dirname, 'heldout.json'), 'utf8'));
  const encode = encoder();
  const set = buildEvalSet({ kb: readKb(), heldOut, factbook, sotu, encode });

  it('the committed held-out list is what the seed and the corpus give', () => {
    expect(heldOut).toEqual(committed);
    expect(heldOut.countries.length).toBeGreaterThanOrEqual(60);
    expect(heldOut.countriesBySplit.length).toBeGreaterThanOrEqual(40);
    expect(heldOut.sotuAddresses).toHaveLength(10);
  });

  it('every family has ≥ 100 prompts in ≥ 5 phrasings, and the committed prompts.jsonl is this set', () => {
    const fams = new Map<string, Set<string>>();
    const counts = new Map<string, number>();
    for (const p of set.prompts) {
      fams.set(p.family, (fams.get(p.family) ?? new Set()).add(p.phrasing!));
      counts.set(p.family, (counts.get(p.family) ?? 0) + 1);
    }
    for (const [f, ph] of fams) {
      expect(counts.get(f), f).toBeGreaterThanOrEqual(100);
      expect(ph.size, f).toBeGreaterThanOrEqual(5);
    }
    expect([...fams.keys()]).toEqual(['capitals', 'elements', 'arithmetic', 'dates', 'dates-stated', 'relevance']);
    expect(readJsonl(join(import.meta.dirname, 'prompts.jsonl'))).toEqual(JSON.parse(JSON.stringify(set.prompts)));
  });

  it('no eval subject is in the synthetic rows\' train split (which every model was trained on)', () => {
    const trainSubjects = new Set(splitFacts(capitalFacts()).train.map((f) => /capital of (.*)\?$/.exec(f.question)![1]));
    const asked = new Set(set.prompts.filter((p) => p.family === 'capitals').map((p) => p.subject!));
    expect(asked.size).toBeGreaterThan(40);
    for (const s of asked) expect(trainSubjects.has(s), s).toBe(false);
  });

  it('real-format prompts come from held-out documents, fit the context, and end where the answer starts', () => {
    const real = set.prompts.filter((p) => p.real);
    expect(real.length).toBeGreaterThan(150);
    for (const p of real) {
      const doc = [...factbook, ...sotu].find((d) => d.id === p.source)!;
      expect(isHeldOutDoc(heldOut, doc)).toBe(true);
      expect(encode(p.prompt).length).toBeLessThanOrEqual(72);
      // Factbook cloze: the section's header line and whole lines of it (lines dropped after the header to fit).
      for (const line of p.prompt.split('\n')) expect(doc.text).toContain(line);
      expect(doc.text.startsWith(p.prompt.split('\n')[0])).toBe(p.phrasing === 'factbook-cloze' ? true : doc.text.startsWith(p.prompt.split('\n')[0]));
      if (p.phrasing === 'sotu-cloze') {
        const after = doc.text.slice(doc.text.indexOf(p.prompt) + p.prompt.length);
        expect(after.replace(/^ \$?/, ' ').startsWith(` ${p.answers[0]}`)).toBe(true);
      }
      if (p.phrasing === 'factbook-cloze') expect(doc.text).toContain(`Capital: name: ${p.answers[0]}`);
    }
  });

  it('today is never written in a dates prompt, and today differs between prompts', () => {
    const dates = set.prompts.filter((p) => p.family === 'dates');
    for (const p of dates) {
      expect(p.prompt).not.toContain(p.date.slice(0, 4));
      expect(p.prompt).not.toMatch(/January|February|March|April|May|June|July|August|September|October|November|December/);
    }
    expect(new Set(dates.map((p) => p.date)).size).toBeGreaterThan(90);
    // Each "today" phrasing is one fixed text for 20 different dates: only the Calendar can know the answer.
    expect(new Set(dates.map((p) => p.prompt)).size).toBe(5);
  });

  it('fitLeft keeps whole words from the right until the text fits', () => {
    const t = 'one two three four five six seven eight nine ten';
    const cut = fitLeft(t, encode, 4);
    expect(t.endsWith(cut)).toBe(true);
    expect(encode(cut).length).toBeLessThanOrEqual(4);
  });
});

describe('overlap and loss windows', () => {
  it('a template matches its own instances with another subject, not other texts', () => {
    const re = phrasingRegex("{S}'s capital city is");
    expect(re.test("Peru's capital city is Lima.")).toBe(true);
    expect(re.test('The capital of Peru is Lima.')).toBe(false);
  });

  it('counts prompts, subjects and facts seen in finetuning texts', () => {
    const prompts = [
      { id: 'c/0', family: 'capitals', prompt: "Niger's capital city is", answers: ['Niamey'], subject: 'Niger', tool: 'QA', date: '2020-01-01' },
      { id: 'c/1', family: 'capitals', prompt: "Chad's capital city is", answers: ['N\'Djamena'], subject: 'Chad', tool: 'QA', date: '2020-01-01' },
    ];
    const r = overlapReport(prompts, [{ family: 'capitals', name: 'possessive', template: "{S}'s capital city is", real: false }],
      ['Trade with Niger grew.', 'Niger: Government.\nCapital: name: Niamey', "Peru's capital city is Lima."]);
    expect(r.prompts.n).toBe(0);
    expect(r.phrasings[0].texts).toBe(1);
    expect(r.subjects).toMatchObject({ prompts: 1, of: 2, subjects: 1 });
    expect(r.facts).toMatchObject({ prompts: 1, ids: ['c/0'] });
  });

  it('loss windows cover at least the tokens asked for, each within the context', () => {
    const lm = { maxLength: 16, encode: (s: string) => [...s].map((c) => c.charCodeAt(0)) };
    const w = lossWindows(lm, ['a'.repeat(100), 'b'.repeat(40)], 60);
    expect(w.reduce((a, x) => a + x.length, 0)).toBeGreaterThanOrEqual(60);
    for (const x of w) expect(x.length).toBeLessThanOrEqual(15);
    expect(() => lossWindows(lm, ['abc'], 60)).toThrow(/only 0 tokens/);
  });
});
