import { describe, expect, it } from 'vitest';
import { countByTool, parseCallsJsonl, survivalCurves, thresholds } from './run-stats.ts';

const line = (tool: string, noCall: number, callOnly: number, withResult: number) =>
  JSON.stringify({ tool, args: 'x', losses: { noCall, callOnly, withResult } });

// usefulness: Calculator 1.3 and 0.2, QA 0.6, one QA tool error (never scored).
const RUN = [
  line('Calculator', 2.5, 2.1, 0.8),
  line('Calculator', 1.0, 1.2, 0.8),
  line('QA', 3.0, 2.0, 1.4),
  JSON.stringify({ tool: 'QA', args: '?', error: 'no answer' }),
  '{not json',
  '',
  JSON.stringify({ args: 'no tool field' }),
].join('\n');

describe('parseCallsJsonl', () => {
  it('computes usefulness from the stored losses and counts malformed lines', () => {
    const { calls, badLines } = parseCallsJsonl(RUN);
    expect(calls.map((c) => c.tool)).toEqual(['Calculator', 'Calculator', 'QA', 'QA']);
    expect(calls[0].usefulness).toBeCloseTo(1.3, 12);
    expect(calls[1].usefulness).toBeCloseTo(0.2, 12);
    expect(calls[2].usefulness).toBeCloseTo(0.6, 12);
    expect(calls[3].usefulness).toBeNull();
    expect(badLines).toEqual([5, 7]);
  });

  it('recognises a train.jsonl (texts with their calls inlined, no tool field) among the bad lines', () => {
    const train = [
      JSON.stringify({ id: 'sotu/1', text: 'Out of 1400 [Calculator(400 / 1400) -> 0.29] 29 percent…' }),
      JSON.stringify({ id: 'sotu/2', text: 'Today is [Calendar() -> Monday] Monday.' }),
    ].join('\n');
    expect(parseCallsJsonl(train)).toMatchObject({ calls: [], badLines: [1, 2], trainingLines: 2 });
    expect(parseCallsJsonl(RUN).trainingLines).toBe(0);
  });
});

describe('countByTool', () => {
  it('counts candidates, scored and kept per tool at τ_f, with a total row', () => {
    const { calls } = parseCallsJsonl(RUN);
    expect(countByTool(calls, 0.5)).toEqual([
      { tool: 'Calculator', candidates: 2, scored: 2, kept: 1, undecided: 0 },
      { tool: 'QA', candidates: 2, scored: 1, kept: 1, undecided: 0 },
      { tool: 'all', candidates: 4, scored: 3, kept: 2, undecided: 0 },
    ]);
    expect(countByTool(calls, 1.5).at(-1)?.kept).toBe(0);
  });

  it('counts a call whose L_b the run skipped as scored, kept never, undecided where τ_f is at or below its bound', () => {
    // Two-pass scoring's record: no callOnly, usefulness ≤ L_a − L_c = −0.3.
    const skipped = JSON.stringify({ tool: 'QA', losses: { noCall: 1.0, withResult: 1.3 }, usefulnessAtMost: -0.3, kept: false, reason: 'below_tau_f' });
    const { calls } = parseCallsJsonl(`${RUN}\n${skipped}`);
    expect(calls.at(-1)).toEqual({ tool: 'QA', usefulness: null, usefulnessAtMost: -0.3 });
    expect(countByTool(calls, 0).find((r) => r.tool === 'QA')).toEqual({ tool: 'QA', candidates: 3, scored: 2, kept: 1, undecided: 0 });
    expect(countByTool(calls, -0.5).find((r) => r.tool === 'QA')).toEqual({ tool: 'QA', candidates: 3, scored: 2, kept: 1, undecided: 1 });
  });
});

describe('survivalCurves', () => {
  it('is non-increasing in τ_f and matches the counts at each threshold', () => {
    const { calls } = parseCallsJsonl(RUN);
    const taus = thresholds(0, 2, 0.1);
    expect(taus).toHaveLength(21);
    expect(taus[13]).toBe(1.3);
    const curves = survivalCurves(calls, taus);
    expect(curves.map((c) => c.tool)).toEqual(['Calculator', 'QA', 'all']);
    const all = curves[2].points;
    for (let i = 1; i < all.length; i++) expect(all[i].kept).toBeLessThanOrEqual(all[i - 1].kept);
    for (const p of all) expect(p.kept).toBe(countByTool(calls, p.tauF).at(-1)?.kept);
    // 1.3 itself is kept (≥), 1.4 is not.
    expect(curves[0].points[13].kept).toBe(1);
    expect(curves[0].points[14].kept).toBe(0);
  });
});
