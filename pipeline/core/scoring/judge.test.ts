import { describe, expect, it } from 'vitest';
import { judge, judgeStored, survival, usefulness } from './judge.ts';

const worked = { noCall: 2.5, callOnly: 2.1, withResult: 0.8 };

describe('judge', () => {
  it('reproduces the worked example: min(2.5, 2.1) − 0.8 = 1.3', () => {
    expect(usefulness(worked)).toBeCloseTo(1.3, 12);
  });

  it('keeps at τ_f = 1.0 and drops at τ_f = 1.5', () => {
    expect(judge(worked, 1.0)).toMatchObject({ kept: true, outcome: 'kept' });
    expect(judge(worked, 1.5)).toMatchObject({ kept: false, outcome: 'below_tau_f' });
  });

  it('uses the smaller of L_a and L_b: an empty call that already helps is not credited to the result', () => {
    expect(usefulness({ noCall: 2.5, callOnly: 0.9, withResult: 0.8 })).toBeCloseTo(0.1, 12);
    expect(usefulness({ noCall: 1.0, callOnly: 3.0, withResult: 0.8 })).toBeCloseTo(0.2, 12);
  });

  it('keeps exactly at the threshold (≥)', () => {
    expect(judge({ noCall: 2, callOnly: 2, withResult: 1 }, 1).kept).toBe(true);
  });

  it('counts survivors per threshold', () => {
    expect(survival([0.1, 0.6, 1.3, 2.5], [0, 0.5, 1, 2])).toEqual([
      { tauF: 0, kept: 4 },
      { tauF: 0.5, kept: 3 },
      { tauF: 1, kept: 2 },
      { tauF: 2, kept: 1 },
    ]);
  });
});

describe('judgeStored', () => {
  it('judges all three losses exactly as judge does', () => {
    expect(judgeStored(worked, 1.0)).toEqual(judge(worked, 1.0));
  });

  it('without L_b: below τ_f by the bound L_a − L_c, undecided at or under it', () => {
    const bounded = { noCall: 1.0, withResult: 1.25 }; // usefulness ≤ −0.25 whatever L_b is
    expect(judgeStored(bounded, 0)).toEqual({ kept: false, usefulnessAtMost: -0.25, outcome: 'below_tau_f' });
    expect(judgeStored(bounded, -0.25)).toMatchObject({ kept: false, outcome: 'needs_call_only' });
    expect(judgeStored(bounded, -1)).toMatchObject({ kept: false, outcome: 'needs_call_only' });
  });
});
