import { describe, expect, it } from 'vitest';
import { type Candidate, reasonText } from '../../pipeline/core/candidates.ts';
import type { Analysis } from './analysis-types.ts';
import { chosenPositions, inlineKept, rejudge } from './rejudge.ts';

// "Out of 1400, 400 (or 29%) passed." tokenised by words; p_i under the Calculator prompt per token.
const text = 'Out of 1400, 400 (or 29%) passed.';
const tokens = ['Out', ' of', ' 1400', ',', ' 400', ' (or', ' 29%)', ' passed', '.'];
const offsets = tokens.reduce((o, t) => [...o, o[o.length - 1] + t.length], [0]);
const at = (tok: string) => offsets[tokens.indexOf(tok)];

const candidate = (over: Partial<Candidate>): Candidate => ({
  docId: 'd', tool: 'Calculator', positionTool: 'Calculator', input: '400 / 1400', at: at(' 29%)'), proposer: 'programmatic',
  outcome: { kind: 'pending' }, result: '0.29', ...over,
});

const analysis: Analysis = {
  text, tokens, offsets, k: 2, ms: 1, tauMin: -5, syntax: { Calculator: 'raw' }, ownIndex: -1, skipped: {}, controlMargins: { Calculator: 1 },
  tools: [{ tool: 'Calculator', p: [0, 0.01, 0.02, 0, 0.03, 0.04, 0.3, 0.06, 0], heuristic: [at(' 400')] }],
  candidates: [
    // usefulness 1.3 at the best position
    candidate({ losses: { noCall: 2.5, callOnly: 2.1, withResult: 0.8 }, control: { distractor: '0.39', margin: 1.7 } }),
    // usefulness 0.4 at a position with p 0.06 (second of the top 2)
    candidate({ at: at(' passed'), input: '1400 - 400', result: '1000', losses: { noCall: 1.0, callOnly: 1.1, withResult: 0.6 } }),
    // heuristic position with p 0.03: never dropped by τ_s
    candidate({ at: at(' 400'), input: '1400 / 2', result: '700', losses: { noCall: 3.0, callOnly: 3.0, withResult: 1.5 }, control: { distractor: '800', margin: 0.2 } }),
    candidate({ input: '400 /', result: undefined, error: 'syntax', outcome: { kind: 'tool_error', detail: 'syntax' } }),
  ],
};

describe('chosenPositions', () => {
  it('takes the top k LM positions above τ_s plus the heuristic ones', () => {
    expect([...chosenPositions(analysis, 0).get('Calculator')!].sort((a, b) => a - b)).toEqual([at(' 400'), at(' 29%)'), at(' passed')]);
    expect([...chosenPositions(analysis, 0.1).get('Calculator')!].sort((a, b) => a - b)).toEqual([at(' 400'), at(' 29%)')]);
  });
});

describe('rejudge', () => {
  it('keeps by usefulness ≥ τ_f and keeps pre-scoring reasons', () => {
    const d = rejudge(analysis, { tauS: 0, tauF: 1.0 });
    expect(d.map((x) => reasonText(x.outcome))).toEqual(['kept', 'below_tau_f', 'kept', 'tool_error: syntax']);
    expect(d[0].usefulness).toBeCloseTo(1.3, 12);
  });
  it('changes the decision as τ_f and τ_s move, from the same stored numbers', () => {
    expect(rejudge(analysis, { tauS: 0, tauF: 1.31 })[0].kept).toBe(false);
    expect(rejudge(analysis, { tauS: 0, tauF: 0.3 })[1].kept).toBe(true);
    const high = rejudge(analysis, { tauS: 0.1, tauF: 0.3 });
    expect(high.map((x) => reasonText(x.outcome))).toEqual(['kept', 'below_tau_s', 'kept', 'tool_error: syntax']);
  });
});

describe('rejudge with the counterfactual control', () => {
  it('drops a call kept at τ_f whose result beats its distractor by less than the margin; without control it stays', () => {
    const margins = analysis.controlMargins;
    expect(rejudge(analysis, { tauS: 0, tauF: 1.0, controlMargins: margins }).map((x) => reasonText(x.outcome))).toEqual(['kept', 'below_tau_f', 'below_control', 'tool_error: syntax']);
    expect(rejudge(analysis, { tauS: 0, tauF: 1.0 })[2].outcome.kind).toBe('kept');
    // A margin of 0.1 lets the 0.2 one through; τ_f still decides first.
    expect(rejudge(analysis, { tauS: 0, tauF: 1.0, controlMargins: { Calculator: 0.1 } })[2].outcome.kind).toBe('kept');
    expect(rejudge(analysis, { tauS: 0, tauF: 1.6, controlMargins: margins })[2].outcome.kind).toBe('below_tau_f');
    // A stored below_control verdict is re-judged from the numbers like kept and below_tau_f.
    const stored = { ...analysis, candidates: analysis.candidates.map((c, i) => (i === 2 ? { ...c, outcome: { kind: 'below_control' as const } } : c)) };
    expect(rejudge(stored, { tauS: 0, tauF: 1.0 })[2].outcome.kind).toBe('kept');
  });
});

describe('inlineKept', () => {
  it('inlines the most useful kept call at each position, before the token', () => {
    const d = rejudge(analysis, { tauS: 0, tauF: 1.0 });
    const pieces = inlineKept(text, d, (c) => `[${c.tool}(${c.input}) -> ${c.result}]`);
    expect(pieces.map((p) => p.text).join('')).toBe(
      'Out of 1400, [Calculator(1400 / 2) -> 700] 400 (or [Calculator(400 / 1400) -> 0.29] 29%) passed.',
    );
    expect(pieces.filter((p) => p.call)).toHaveLength(2);
  });
});
