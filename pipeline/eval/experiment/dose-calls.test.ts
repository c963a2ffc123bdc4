/**
 * What (a)'s calls asked (dose-calls.ts), on the fresh set's own prompts: each question is sorted by whether it names
 * the prompt's country and the field the prompt ends on, and the table counts prompts, not calls.
 */
import { describe, expect, it } from 'vitest';
import { formatQuestion, type Relation } from '../../core/tools/qa/questions.ts';
import type { TrialRecord } from '../metrics.ts';
import type { EvalPrompt } from '../tasks.ts';
import { FRESH_FILE, readJsonl } from './corpus-files.ts';
import { asksCapital, callAim, callAimLines, CALL_AIMS } from './dose-calls.ts';

const fresh = readJsonl<EvalPrompt>(FRESH_FILE);
const first = (relation: string) => fresh.find((q) => q.phrasing === relation)!;
const asked = (q: EvalPrompt, ...questions: string[]): TrialRecord =>
  ({ id: q.id, family: q.family, tools: true, correct: false, text: '', calls: questions.map((input) => ({ tool: 'QA', input, result: 'x' })) });

describe("what (a)'s calls asked", () => {
  it('sorts a question by the prompt\'s subject and relation, reading the first call only', () => {
    const pop = first('population');
    const cur = fresh.filter((q) => q.phrasing === 'currency').at(-1)!;
    expect(pop.subject && cur.subject && pop.subject !== cur.subject).toBeTruthy();
    expect(callAim(asked(pop, `What is the population of ${pop.subject}?`), pop)).toBe('subject and relation');
    expect(callAim(asked(pop, `What is the capital of ${pop.subject!.toUpperCase()}?`), pop)).toBe('subject, other relation');
    expect(callAim(asked(pop, `What is the population of ${cur.subject}?`), pop)).toBe('relation, other subject');
    expect(callAim(asked(cur, `What is the population of ${pop.subject}?`, `What is the currency of ${cur.subject}?`), cur)).toBe('neither');
    expect(callAim(asked(cur, `What currency is used in the ${cur.subject}?`), cur)).toBe('subject and relation');
    expect(callAim(asked(cur, `Which money does ${cur.subject} use?`), cur)).toBe('no question form');
    expect(callAim(asked(cur), cur)).toBe('no call');
    expect(asksCapital(asked(cur, 'What is the capital of Turkey?'))).toBe(true);
    expect(asksCapital(asked(cur, `What is the currency of ${cur.subject}?`))).toBe(false);
  });

  it('counts prompts over seeds and leaves without-tools trials and unknown prompts out', () => {
    const qs = (['population', 'area', 'independence', 'currency'] as const).map(first);
    const prompts = new Map(qs.map((q) => [q.id, q]));
    const seed = (capitalFrom: number): TrialRecord[] => [
      ...qs.map((q, i) => asked(q, i < capitalFrom ? formatQuestion(q.phrasing as Relation, q.subject!) : `What is the capital of ${q.subject}?`)),
      { ...asked(qs[0]), tools: false },
      asked({ ...qs[0], id: 'not-in-the-set' }, 'What is the capital of Turkey?'),
    ];
    // Seed 1: 3 of 4 prompts right, seed 2: 1 of 4 → "subject and relation" 4 of 8 trials, capital 4 of 8.
    const lines = callAimLines([{ label: '1×', runs: [seed(3), seed(1)] }], prompts);
    const cells = lines.at(-1)!.split(' | ');
    expect(cells[0]).toBe('| 1×');
    expect(cells.length).toBe(CALL_AIMS.length + 2);
    const share = (c: string) => c.split(' ')[0];
    expect(cells.slice(1).map(share)).toEqual(['50.0', '50.0', '0.0', '0.0', '0.0', '0.0', '50.0']);
  });
});
