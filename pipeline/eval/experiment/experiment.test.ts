import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCall } from '../../core/call-syntax.ts';
import { stripCalls } from '../../core/generate/generate.ts';
import { clusteredWilson, majorityRate, wilson } from '../metrics.ts';
import { armAll, armNoCalls, armRandom, callsPerTool, mentionsAny, ranCalls, withoutHeldOutCalls, type CallRow, type TrainRecord } from './arms.ts';
import { factbookTrainCut, factbookTrainCutPrompts, positiveControlPrompts } from './derived-sets.ts';
import { buildEvalSet, fitLeft } from './eval-sets.ts';
import { chooseHeldOut, isHeldOutDoc, type CorpusDoc } from './heldout.ts';
import { lossWindows } from './loss.ts';
import { describeOverlap, overlapReport, phrasingRegex, type OverlapReport } from './overlap.ts';
import { overlap } from '../tasks.ts';
import type { EvalPrompt } from '../tasks.ts';
import { newcombe, trialsByArm, type ReportPaths } from './cells.ts';
import { CONCLUSION_TITLE, conclusionSection, points, share } from './conclusion.ts';
import { paths } from './paths.ts';
import { BASES, reportedRuns, runName } from './plan.ts';
import { SUBJECT_TOKEN_BINS } from './report-sections.ts';
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
      // A Factbook cloze starts at its section's header line; a SOTU cloze is a span from inside its address.
      if (p.phrasing === 'factbook-cloze') expect(doc.text.startsWith(p.prompt.split('\n')[0]), p.id).toBe(true);
      else expect(doc.text.includes(p.prompt), p.id).toBe(true);
      if (p.phrasing === 'sotu-cloze') {
        const after = doc.text.slice(doc.text.indexOf(p.prompt) + p.prompt.length);
        expect(after.replace(/^ \$?/, ' ').startsWith(` ${p.answers[0]}`)).toBe(true);
      }
      if (p.phrasing === 'factbook-cloze') expect(doc.text).toContain(`Capital: name: ${p.answers[0]}`);
    }
  });

  it('the positive control puts every held-out capital subject, and only those, in the training templates', () => {
    const positive = positiveControlPrompts(set.prompts);
    expect(readJsonl(join(import.meta.dirname, 'positive-control.jsonl'))).toEqual(JSON.parse(JSON.stringify(positive)));
    const trainSubjects = new Set(splitFacts(capitalFacts()).train.map((f) => /capital of (.*)\?$/.exec(f.question)![1]));
    const heldOutSubjects = new Set(set.prompts.filter((p) => p.family === 'capitals' && !p.real).map((p) => p.subject));
    expect(new Set(positive.map((p) => p.subject))).toEqual(heldOutSubjects);
    for (const p of positive) {
      expect(trainSubjects.has(p.subject!), p.subject).toBe(false);
      expect(p.prompt.endsWith(`The capital of ${p.subject} is`)).toBe(true);
    }
  });

  it('the Factbook cloze with the training-format cut keeps the "Country name:" line the old cut drops, on the same sections', () => {
    const cut = factbookTrainCutPrompts(set.prompts, factbook, encode);
    expect(readJsonl(join(import.meta.dirname, 'factbook-train-cut.jsonl'))).toEqual(JSON.parse(JSON.stringify(cut)));
    const old = set.prompts.filter((p) => p.phrasing === 'factbook-cloze');
    expect(cut.map((p) => [p.source, p.subject, p.answers])).toEqual(old.map((p) => [p.source, p.subject, p.answers]));
    // The old cut lost the line in most prompts (the issue counted 41 of 43); the new one keeps it in all.
    expect(old.filter((p) => !p.prompt.includes('\nCountry name:')).length).toBeGreaterThan(old.length / 2);
    for (const p of cut) {
      const doc = factbook.find((d) => d.id === p.source)!;
      const [header, country, ...rest] = p.prompt.split('\n');
      expect(isHeldOutDoc(heldOut, doc)).toBe(true);
      expect(encode(p.prompt).length).toBeLessThanOrEqual(72);
      expect(doc.text.startsWith(`${header}\n`)).toBe(true);
      // The Country name line whole or cut at a field boundary; the other lines whole, in order, ending at the capital.
      expect(country).toMatch(/^Country name: /);
      const line = doc.text.split('\n').find((l) => l.startsWith('Country name: '))!;
      expect(line === country || line.startsWith(`${country}; `), p.id).toBe(true);
      expect(rest.at(-1)).toBe('Capital: name:');
      const before = doc.text.slice(0, doc.text.indexOf('\nCapital: name: ')) + '\nCapital: name:';
      expect(before.endsWith(['', ...rest].join('\n')), p.id).toBe(true);
      expect(doc.text).toContain(`Capital: name: ${p.answers[0]}`);
    }
  });

  it('the training-format cut drops the Country name line\'s later fields, then the lines after it, then its conventional forms', () => {
    const doc = { id: 'x/government/0', source: 'factbook', text: 'X: Government.\nCountry name: long: A; short: B; local: C; note: D\nType: one\nGov: two\nCapital: name: Z; more' };
    const chars = (s: string) => [...s].map((c) => c.charCodeAt(0));
    const at = (n: number) => factbookTrainCut(doc, chars, n);
    expect(at(1000)).toBe('X: Government.\nCountry name: long: A; short: B; local: C; note: D\nType: one\nGov: two\nCapital: name:');
    expect(at(80)).toBe('X: Government.\nCountry name: long: A; short: B\nType: one\nGov: two\nCapital: name:');
    expect(at(75)).toBe('X: Government.\nCountry name: long: A; short: B\nGov: two\nCapital: name:');
    expect(at(61)).toBe('X: Government.\nCountry name: long: A; short: B\nCapital: name:');
    expect(at(56)).toBe('X: Government.\nCountry name: long: A\nCapital: name:');
    expect(at(20)).toBeNull();
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

describe('intervals clustered by prompt', () => {
  it('three seeds that agree on every prompt count as one trial per prompt, not three', () => {
    // 50 prompts, 5 right; each prompt asked under 3 seeds with the same outcome.
    const agree = Array.from({ length: 50 }, (_, i) => ({ k: i < 5 ? 3 : 0, n: 3 }));
    const c = clusteredWilson(agree);
    expect(c.p).toBeCloseTo(0.1, 10);
    expect(c.nEff).toBeCloseTo(50, 6);
    const [lo, hi] = wilson(5, 50);
    expect(c.lo).toBeCloseTo(lo, 10);
    expect(c.hi).toBeCloseTo(hi, 10);
    // Pooling the seeds as 150 independent trials gives a narrower, wrong interval.
    const [plo, phi] = wilson(15, 150);
    expect(phi - plo).toBeLessThan(c.hi - c.lo);
  });

  it('independent outcomes within a prompt keep the pooled sample size; no success at all falls back to the prompt count', () => {
    // Per prompt 1 of 2 right: no prompt differs from p = 0.5, so the trials count as independent (n_eff = Σn).
    expect(clusteredWilson(Array.from({ length: 40 }, () => ({ k: 1, n: 2 }))).nEff).toBe(80);
    const none = clusteredWilson(Array.from({ length: 30 }, () => ({ k: 0, n: 3 })));
    expect(none).toMatchObject({ p: 0, lo: 0, nEff: 30, clusters: 30 });
    expect(none.hi).toBeCloseTo(wilson(0, 30)[1], 10);
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

describe('what the texts claim about the eval set is what the committed results say', () => {
  const summary = JSON.parse(readFileSync(join(import.meta.dirname, 'results/summary.json'), 'utf8')) as { overlap: OverlapReport };
  const prompts = readJsonl<EvalPrompt>(join(import.meta.dirname, 'prompts.jsonl'));
  // The shipped model's finetuning data: arm (e) = the pipeline's kept calls on the corpus (a) + the KB prose.
  const finetuneTexts = ['a.jsonl', 'kbprose.jsonl'].flatMap((f) =>
    readJsonl<{ text: string }>(join(ROOT, 'models/toolformer/finetune-data', f)).flatMap((r) => [r.text, stripCalls(r.text)]));

  it('no eval prompt occurs verbatim in the shipped model\'s finetuning texts (fails when one is planted)', () => {
    expect(finetuneTexts.length).toBeGreaterThan(500);
    expect(overlap(prompts, finetuneTexts)).toEqual([]);
    // The same check on a text that quotes one prompt finds exactly that prompt.
    const planted = prompts.find((p) => p.family === 'capitals' && !p.real)!;
    expect(overlap(prompts, [...finetuneTexts.slice(0, 50), `Notes. ${planted.prompt} something.`]).map((o) => o.id)).toContain(planted.id);
  });

  it('the model card and the READMEs state the measured overlap, never "no finetuning text"', () => {
    const card = readFileSync(join(ROOT, 'models/toolformer/README.md'), 'utf8');
    expect(card).toContain(describeOverlap(summary.overlap));
    for (const f of ['README.md', 'models/toolformer/README.md', 'pipeline/eval/README.md', 'pipeline/eval/experiment/README.md']) {
      const text = readFileSync(join(ROOT, f), 'utf8').replace(/\s+/g, ' ');
      expect(text, f).not.toMatch(/(appear|are|is) in no finetuning text|in no finetuning text/);
      // Any "N of M subjects" sentence gives the committed counts.
      for (const m of text.matchAll(/(\d+) of (\d+) subjects/g)) {
        expect([Number(m[1]), Number(m[2])], `${f}: ${m[0]}`).toEqual([summary.overlap.subjects.subjects, summary.overlap.subjects.ofSubjects]);
      }
    }
  });

  it('every number in the conclusion is one the committed runs give (recomputed from results/runs/)', () => {
    const results = join(import.meta.dirname, 'results');
    // The committed files only: out/ (runs in flight) is pointed at a folder that does not exist.
    const nowhere = join(results, 'no-such-folder');
    const committedOnly: ReportPaths = { ...paths, out: nowhere, eval: () => nowhere, loss: () => nowhere, model: () => nowhere, committed: (r) => join(results, 'runs', runName(r)) };
    const { lines, factors } = conclusionSection(committedOnly, trialsByArm(committedOnly, reportedRuns()), prompts);
    const text = readFileSync(join(results, 'conclusion.md'), 'utf8');
    expect(text).toBe([`# ${CONCLUSION_TITLE}`, '', ...lines].join('\n') + '\n');
    expect((JSON.parse(readFileSync(join(results, 'summary.json'), 'utf8')) as { conclusion: unknown }).conclusion).toEqual(JSON.parse(JSON.stringify(factors)));
    // Numbers the text may hold: the rows' (%, points, seeds) and the fixed ones of its words (95 %, pt10x, "excludes 0", the
    // token bins). Planting a typed number makes this fail.
    const fromRows = new Set(factors.flatMap((f) => [...f.seeds.flat().map(String), String(f.promptCount),
      ...(f.xWithoutTools === undefined ? [] : [share(f.xWithoutTools)]),
      ...(f.result ? [share(f.result.x), share(f.result.y), points(f.result.d), points(f.result.lo), points(f.result.hi)] : [])]));
    // The fixed numbers of its words: 95 %, the bases' names (pt3x, pt10x, pt10x-p2), "excludes 0", the token bins.
    const fixed = new Set(['95', '0', ...Object.keys(BASES).flatMap((b) => b.match(/\d+/g) ?? []), ...SUBJECT_TOKEN_BINS.flatMap((b) => b.label.match(/\d+/g) ?? [])]);
    const numbersIn = (t: string) => [...t.matchAll(/[+-]?\d+(?:\.\d+)?/g)].map((m) => m[0]);
    const unexplained = (t: string) => numbersIn(t).filter((n) => !fromRows.has(n) && !fixed.has(n.replace(/^[+-]/, '')));
    expect(unexplained(text)).toEqual([]);
    expect(unexplained(`${text} (about 12.5 points)`)).toEqual(['12.5']);
    // The eval README's block is this file (npm run docs -- --check keeps it current).
    expect(readFileSync(join(ROOT, 'pipeline/eval/README.md'), 'utf8')).toContain(lines.filter((l) => l.startsWith('|')).join('\n'));
  });

  it('the rounds README quotes the bare-text probe counts of the committed rounds summary', () => {
    const rounds = JSON.parse(readFileSync(join(ROOT, 'pipeline/eval/rounds/results/summary.json'), 'utf8')) as { round: number | string; bareProbe: { parsed: number } }[];
    const readme = readFileSync(join(ROOT, 'pipeline/eval/rounds/README.md'), 'utf8').replace(/\s+/g, ' ');
    const probe = (r: number | string) => rounds.find((x) => x.round === r)!.bareProbe.parsed;
    expect(readme).toContain(`parses ${probe(1)} of 100 bare-text probe samples`);
    expect(readme).toContain(`(e) seed 1 at 120 steps ${probe(1)} of 100, rounds 2 and 3 ${probe(2)} and ${probe(3)}, the 600-step finetune ${probe('long')}`);
  });
});
