import { describe, expect, it } from 'vitest';
import type { Doc } from '../document.ts';
import { leaks } from '../stages/leakage.ts';
import { proposeCalls } from './propose.ts';
import { ADAMS_1827, JOHNSON_1867, JOHNSON_1868, MEXICO_ANTHEM, SPAIN_GOVERNMENT, WASHINGTON_1790 } from '../testing/excerpts.fixture.ts';
import { parseQuestion } from '../tools/qa/questions.ts';
import { TOOL_SPECS, toolSpec } from '../tools/registry.ts';
import { MAX_PROPOSALS } from '../tools/spec.ts';

/** The calls the propose stage gets for `tool` (its spec's proposer); none for a name not registered. */
const propose = (tool: string, prefix: string, doc: Doc, at: number) => proposeCalls(toolSpec(tool) ?? { name: tool }, prefix, doc, at);
const defaultProposers = TOOL_SPECS.map((spec) => ({ tool: spec.name, propose: (prefix: string, doc: Doc, at: number) => proposeCalls(spec, prefix, doc, at) }));

/** Inputs proposed for `tool` right before the first occurrence of `marker` in the doc. */
function inputsBefore(tool: string, doc: Doc, marker: string, offset = -1): string[] {
  const at = doc.text.indexOf(marker) + offset;
  return propose(tool, doc.text.slice(0, at), doc, at).map((c) => c.input);
}

describe('calculator proposer', () => {
  it('after "a sum total of", puts the sum of the last three numbers first, then differences and sums of pairs', () => {
    const inputs = inputsBefore('Calculator', ADAMS_1827, '$27,000,000');
    expect(inputs).toEqual([
      '10000000 + 21226000 + 5774000',
      '21226000 - 5774000',
      '21226000 + 5774000', // the sum the text states next: 27,000,000
      '10000000 - 5774000',
      '10000000 + 5774000',
      '21226000 - 10000000',
      '10000000 + 21226000',
      '1827 - 1817',
    ]);
  });

  it('offers the difference the text states next, and nothing from the date "June 30, 1867"; no ratio or product without a cue', () => {
    expect(inputsBefore('Calculator', JOHNSON_1867, '$743,210')).toEqual([
      '19978693 - 19235483', // = 743,210
      '19978693 + 19235483',
    ]);
  });

  it('offers a ratio where a share is being stated, and a product where the text says "each"', () => {
    const share: Doc = { id: 's', text: 'Of 1,400 schools, 400 were new: a share of 29 per cent.' };
    expect(inputsBefore('Calculator', share, '29 per')).toContain('400 / 1400 * 100');
    const each: Doc = { id: 'e', text: 'We sent 12 ships with 30 men each, so 360 men sailed.' };
    expect(inputsBefore('Calculator', each, '360')).toContain('12 * 30');
    expect(inputsBefore('Calculator', share, '29 per')).not.toContain('1400 * 400');
  });

  it('with one quantity read, offers only the difference of the two years; with none, nothing', () => {
    expect(inputsBefore('Calculator', ADAMS_1827, '$21,226,000')).toEqual(['1827 - 1817']);
    expect(inputsBefore('Calculator', WASHINGTON_1790, 'commerce')).toEqual([]);
  });
});

describe('QA proposer', () => {
  it('asks about the entities just read, in forms the QA tool parses', () => {
    const inputs = inputsBefore('QA', JOHNSON_1868, 'Asuncion');
    expect(inputs).toContain('What is the capital of Paraguay?');
    // The topic (the text's first entity) first, then the most recent ones; capital, then population; no "Who is X?".
    expect(inputs.slice(0, 4)).toEqual([
      'What is the capital of Charles A. Washburn?',
      'What is the capital of South Atlantic Squadron?',
      'What is the capital of United States?',
      'What is the capital of Paraguay?',
    ]);
    expect(inputs.some((q) => q.startsWith('Who'))).toBe(false);
    expect(inputs.length).toBeLessThanOrEqual(MAX_PROPOSALS);
    for (const q of inputs) expect(parseQuestion(q)).not.toBeNull();
  });

  it('lets a cue word pick the relation ("… population of X")', () => {
    const doc: Doc = { id: 'x', text: 'Mexico: People and Society.\nPopulation: 121,736,809 (July 2015 est.)' };
    expect(inputsBefore('QA', doc, ' 121,736,809', 0)[0]).toBe('What is the population of Mexico?');
  });
});

describe('Calendar proposer', () => {
  it('proposes Calendar() before a date in a dated document, and nowhere else', () => {
    expect(propose('Calendar', JOHNSON_1867.text.slice(0, 47), JOHNSON_1867, 47)).toEqual([{ tool: 'Calendar', input: '' }]);
    expect(inputsBefore('Calendar', JOHNSON_1867, '$19,978,693')).toEqual([]);
    const undated = { ...JOHNSON_1867, date: undefined };
    expect(propose('Calendar', undated.text.slice(0, 47), undated, 47)).toEqual([]);
  });
});

describe('Translate proposer', () => {
  it('proposes the foreign span that ends at the position', () => {
    expect(inputsBefore('Translate', MEXICO_ANTHEM, ' (National', 0)).toEqual(['Himno Nacional Mexicano']);
    expect(inputsBefore('Translate', MEXICO_ANTHEM, ' (Mexicans', 0)).toEqual(['Mexicanos, al grito de Guerra']);
    expect(inputsBefore('Translate', SPAIN_GOVERNMENT, '; local short', 0)).toEqual(['Reino de Espana']);
    expect(inputsBefore('Translate', WASHINGTON_1790, 'commerce')).toEqual([]);
  });
});

describe('all proposers', () => {
  const cases: Array<[Doc, string]> = [
    [ADAMS_1827, '$27,000,000'],
    [JOHNSON_1867, '$743,210'],
    [JOHNSON_1868, 'Asuncion'],
    [MEXICO_ANTHEM, ' (Mexicans'],
    [SPAIN_GOVERNMENT, '; local short'],
  ];

  it('one per tool, in a fixed order', () => {
    expect(defaultProposers.map((p) => p.tool)).toEqual(['Calculator', 'QA', 'Calendar', 'Translate']);
    expect(propose('Weather', 'x', WASHINGTON_1790, 1)).toEqual([]);
  });

  it('are bounded, deterministic, and never leak', () => {
    for (const [doc, marker] of cases) {
      const at = doc.text.indexOf(marker);
      for (const p of defaultProposers) {
        const calls = p.propose(doc.text.slice(0, at), doc, at);
        expect(calls.length).toBeLessThanOrEqual(MAX_PROPOSALS);
        expect(p.propose(doc.text.slice(0, at), doc, at)).toEqual(calls);
        expect(new Set(calls.map((c) => c.input)).size).toBe(calls.length);
        for (const c of calls) expect(leaks(toolSpec(c.tool)!, c.input, doc.text.slice(0, at))).toBeNull();
      }
    }
  });

  it('do not read past the position: other text after it changes no argument', () => {
    for (const [doc, marker] of cases) {
      const at = doc.text.indexOf(marker);
      const other = { ...doc, text: doc.text.slice(0, at) + ' 120/24=5 "Reino de Espana" Paraguay' };
      for (const p of defaultProposers.filter((q) => q.tool !== 'Calendar')) {
        expect(p.propose(other.text.slice(0, at), other, at)).toEqual(p.propose(doc.text.slice(0, at), doc, at));
      }
    }
  });
});
