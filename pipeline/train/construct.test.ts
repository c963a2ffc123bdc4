import { describe, expect, it } from 'vitest';
import { Gpt2 } from './gpt2.ts';
import { constructInduction, positionFrequencies } from './construct.ts';
import { tokenLogProbs } from './probes.ts';
import { mulberry32 } from '../random/mulberry32.ts';

const config = { vocabSize: 300, nPositions: 128, nEmbd: 256, nLayer: 2, nHead: 4, layerNormEpsilon: 1e-5 };
const EOS = 299;

describe('constructInduction', () => {
  const model = new Gpt2(config, 4 * 128);
  model.init(1);
  constructInduction(model, EOS);

  it('copies: a random token sequence is predicted at its second occurrence, not at its first', () => {
    const rng = mulberry32(4);
    const seqs = Array.from({ length: 4 }, () => {
      const span = Array.from({ length: 30 }, () => Math.floor(rng.next() * 299));
      return [EOS, ...span, ...span];
    });
    const lps = tokenLogProbs(model, seqs, EOS);
    let first = 0;
    let second = 0;
    for (const lp of lps) {
      for (let j = 2; j <= 30; j++) first += lp[j] / (29 * 4);
      for (let j = 32; j <= 60; j++) second += lp[j] / (29 * 4); // tokens 2.. of the repeat (the 1st has no cue)
    }
    expect(second).toBeGreaterThan(-1); // confident copy
    expect(second - first).toBeGreaterThan(3);
  });

  it('chooses position frequencies whose codes barely overlap at other offsets', () => {
    const w = positionFrequencies(128);
    for (let d = 1; d < 128; d++) {
      const s = w.reduce((a, f) => a + Math.cos(f * d), 0);
      expect(Math.abs(s)).toBeLessThan(w.length / 2);
    }
  });
});
