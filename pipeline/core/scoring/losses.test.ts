import { describe, expect, it } from 'vitest';
import { PAPER_WEIGHTS, lossWeights, weightedLoss } from './losses.ts';

describe('paper weights', () => {
  it('are max(0, 1 − 0.2t) normalised: 1, .8, .6, .4, .2 over 3', () => {
    expect(PAPER_WEIGHTS.length).toBe(5);
    [1, 0.8, 0.6, 0.4, 0.2].forEach((w, t) => expect(PAPER_WEIGHTS[t]).toBeCloseTo(w / 3, 12));
    expect(PAPER_WEIGHTS.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it('follow the decay: 0.5 gives two non-zero weights 1 and .5 over 1.5', () => {
    expect(lossWeights(0.5)).toEqual([1 / 1.5, 0.5 / 1.5]);
  });
});

describe('weightedLoss', () => {
  it('is −Σ w_t log p over the five tokens after the position', () => {
    // logp of tokens 0..7; position = index 2, so tokens 2..6 count.
    const logp = [0, -9, Math.log(0.5), Math.log(0.25), Math.log(0.1), Math.log(0.8), Math.log(0.2), -9];
    const expected =
      -(1 * Math.log(0.5) + 0.8 * Math.log(0.25) + 0.6 * Math.log(0.1) + 0.4 * Math.log(0.8) + 0.2 * Math.log(0.2)) / 3;
    expect(weightedLoss(Float32Array.from(logp), 2)).toBeCloseTo(expected, 6);
  });

  it('uses only the tokens that exist at the end of a text, without renormalising', () => {
    const logp = [0, -1, -2];
    expect(weightedLoss(logp, 1)).toBeCloseTo((1 * 1 + 0.8 * 2) / 3, 12);
  });
});
