import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Generation } from '../core/generate/generate.ts';
import { answerFound, normalise, summarise, trial } from './metrics.ts';
import { FAMILIES, capitalSplit, elementSplit, evalPrompts, overlap, trainDocs, weekday, type KbFact } from './tasks.ts';

const kb = (JSON.parse(readFileSync('pipeline/data/kb.json', 'utf8')) as { facts: KbFact[] }).facts;

const gen = (text: string, calls: Generation['calls'] = []): Generation =>
  ({ prompt: '', text, calls, answerText: text, tokens: 0, stopped: 'max_tokens' });

describe('eval tasks', () => {
  it('train and eval subjects are disjoint, prompts are deterministic and answers come from the KB', () => {
    const caps = capitalSplit(kb);
    const trainSubjects = new Set(caps.train.map((f) => f.subject));
    expect(caps.eval.length).toBeGreaterThan(40);
    expect(caps.eval.some((f) => trainSubjects.has(f.subject))).toBe(false);
    const els = elementSplit(kb);
    expect(els.eval.some((e) => els.train.includes(e))).toBe(false);
    const a = evalPrompts(kb, 40);
    expect(evalPrompts(kb, 40)).toEqual(a);
    expect(new Set(a.map((p) => p.family))).toEqual(new Set(FAMILIES));
    const peru = a.find((p) => p.prompt === 'The capital of Peru is');
    if (peru) expect(peru.answers).toEqual(['Lima']);
    expect(weekday('2019-03-14')).toBe('Thursday');
  });

  it('no eval prompt appears in the finetuning texts (KB prose), and the check finds one that does', () => {
    const prompts = evalPrompts(kb, 40);
    const texts = trainDocs(kb, { perFamily: 250 }).map((d) => d.text);
    expect(overlap(prompts, texts)).toEqual([]);
    expect(overlap(prompts, [`${prompts[0].prompt} ${prompts[0].answers[0]}.`])).toEqual([{ id: prompts[0].id, prompt: prompts[0].prompt }]);
  });
});

describe('eval metrics', () => {
  it('normalises case, punctuation and number format', () => {
    expect(normalise('Lima, PERU.')).toEqual(['lima', 'peru']);
    expect(normalise('1,234 and 85.0 and 0.25')).toEqual(['1234', 'and', '85', 'and', '0.25']);
    expect(answerFound(' lima is the capital', ['Lima'])).toBe(true);
    expect(answerFound('it is Abu Dhabi.', ['Abu Dhabi'])).toBe(true);
    expect(answerFound('one two three four five Lima', ['Lima'])).toBe(false); // past the first five words
    expect(answerFound('Limassol', ['Lima'])).toBe(false);
  });

  it('summarises accuracy with/without tools, calls, pass@k and pass^k', () => {
    const p = { id: 'x', family: 'capitals' as const, prompt: 'The capital of Peru is', answers: ['Lima'], tool: 'QA', date: '2020-01-01' };
    const q = { ...p, id: 'y', prompt: 'The capital of Chile is', answers: ['Santiago'] };
    const call = { tool: 'QA', input: 'What is the capital of Peru?', result: 'Lima', raw: '' };
    const withT = [trial(p, true, gen('Lima.', [call])), trial(q, true, gen('Lima.'))];
    const without = [trial(p, false, gen('a city')), trial(q, false, gen('Santiago'))];
    const sampled = [[trial(p, true, gen('Lima')), trial(q, true, gen('no'))], [trial(p, true, gen('Lima')), trial(q, true, gen('Santiago'))]];
    const s = summarise('capitals', withT, without, sampled);
    expect(s).toMatchObject({ n: 2, withTools: 0.5, withoutTools: 0.5, ratio: 1, callsMade: 0.5, callsValid: 1, callsCorrect: 1,
      rightTool: 1, passAtK: 1, passHatK: 0.5, noCall: 0.5 });
  });
});

describe('fact overlap', () => {
  it('flags a fact prompt whose subject and answer appear in one finetuning text', async () => {
    const { factOverlap } = await import('./tasks.ts');
    const p = { id: 'c', family: 'capitals' as const, prompt: 'The capital of Peru is', answers: ['Lima'], tool: 'QA', date: '2020-01-01' };
    expect(factOverlap([p], ['Peru: Government.\nCapital: name: Lima; geographic coordinates'])).toHaveLength(1);
    expect(factOverlap([p], ['Peru: Government.', 'Lima is a city'])).toHaveLength(0);
    expect(factOverlap([p], ['Peru has Limassol'])).toHaveLength(0);
  });
});
