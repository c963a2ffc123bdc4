import { describe, expect, it } from 'vitest';
import { PAPER_WEIGHTS } from './losses.ts';
import { makeWindow, scorePositions, scorePositionsTwoPass } from './scoring.ts';
import { FakeLM } from '../testing/fake-lm.ts';

/**
 * A fake LM that predicts "42" confidently only when "42" appears in the context before the position —
 * the situation the filter is designed for: the result, given as a prefix, makes the next tokens likely.
 */
const copyLM = () =>
  new FakeLM((context, next) => {
    const after = context.endsWith('is ') ? 0 : context.endsWith('is 4') ? 1 : -1;
    if (after < 0) return undefined;
    const want = '42'[after];
    const seen = context.includes('-> 42]');
    return next === want ? (seen ? 0.9 : 0.05) : undefined;
  });

describe('scorePositions', () => {
  it('computes L_a, L_b, L_c from hand-known probabilities, with the call as a prefix', async () => {
    const lm = copyLM();
    const text = 'The answer is 42.';
    const at = text.indexOf('42'); // the call goes right before "42"
    const window = makeWindow(lm, text, at, { contextTokens: 64, span: 5 });
    expect(lm.decode(window.next)).toBe('42.');
    const [scored] = await scorePositions(lm, [
      { window, calls: [{ callOnly: '[Calculator(6 * 7) -> ]', withResult: '[Calculator(6 * 7) -> 42]' }] },
    ]);
    // "4" and "2" carry p = 0.05 without the result and 0.9 with it; "." is uniform: 1/128.
    const w = PAPER_WEIGHTS;
    const without = -(w[0] * Math.log(0.05) + w[1] * Math.log(0.05) + w[2] * Math.log(1 / 128));
    const withIt = -(w[0] * Math.log(0.9) + w[1] * Math.log(0.9) + w[2] * Math.log(1 / 128));
    expect(scored.noCall).toBeCloseTo(without, 5);
    expect(scored.losses[0].callOnly).toBeCloseTo(without, 5);
    expect(scored.losses[0].withResult).toBeCloseTo(withIt, 5);
    expect(scored.losses[0].noCall).toBe(scored.noCall);
  });

  it('gives the same losses whatever the batch size', async () => {
    const lm = copyLM();
    const text = 'First it is 42, and then the answer is 42 again.';
    const positions = [text.indexOf('42'), text.lastIndexOf('42')].map((at) => ({
      window: makeWindow(lm, text, at, { contextTokens: 20, span: 5 }),
      calls: [
        { callOnly: '[Calculator(40 + 2) -> ]', withResult: '[Calculator(40 + 2) -> 42]' },
        { callOnly: '[Calculator(40 + 3) -> ]', withResult: '[Calculator(40 + 3) -> 43]' },
      ],
    }));
    const one = await scorePositions(lm, positions, { batchSize: 1 });
    const many = await scorePositions(lm, positions, { batchSize: 16 });
    expect(many).toEqual(one);
    expect(one[0].losses[0].withResult).toBeLessThan(one[0].losses[1].withResult);
  });

  it('refuses sequences longer than the model accepts', async () => {
    const lm = new FakeLM(() => undefined, 10);
    const window = makeWindow(lm, 'a long enough text here', 10, { contextTokens: 8, span: 5 });
    await expect(scorePositions(lm, [{ window, calls: [] }])).rejects.toThrow(/exceeds the model's 10/);
  });

  it('two passes: L_b only where L_a − L_c reaches callOnlyFrom; L_a and L_c as in one pass', async () => {
    const lm = copyLM();
    const text = 'First it is 42, and then the answer is 42 again.';
    const calls = [
      // The true result: L_c far below L_a (L_a − L_c ≈ 2 nats), so L_b is scored at τ_min 1.
      { callOnly: '[Calculator(40 + 2) -> ]', withResult: '[Calculator(40 + 2) -> 42]', callOnlyFrom: 1 },
      // A wrong result: L_a − L_c ≈ 0 < 1, so L_b cannot matter and is skipped.
      { callOnly: '[Calculator(40 + 3) -> ]', withResult: '[Calculator(40 + 3) -> 43]', callOnlyFrom: 1 },
    ];
    const positions = [text.indexOf('42'), text.lastIndexOf('42')].map((at) => ({ window: makeWindow(lm, text, at, { contextTokens: 20, span: 5 }), calls }));
    const sequences: number[] = [];
    const counting = Object.assign(Object.create(lm), { score: (batch: Parameters<typeof lm.score>[0]) => (sequences.push(batch.length), lm.score(batch)) });
    const full = await scorePositions(lm, positions);
    const two = await scorePositionsTwoPass(counting, positions);
    for (const [i, p] of two.entries()) {
      expect(p.noCall).toBe(full[i].noCall);
      expect(p.losses[0]).toEqual(full[i].losses[0]);
      expect(p.losses[1]).toEqual({ noCall: full[i].noCall, withResult: full[i].losses[1].withResult });
      expect(p.losses[1].noCall - p.losses[1].withResult).toBeLessThan(1);
      expect(p.losses[0].noCall - p.losses[0].withResult).toBeGreaterThanOrEqual(1);
    }
    // 2 positions × (L_a + 2 L_c) + 2 L_b, instead of 2 × (1 + 2 × 2).
    expect(sequences.reduce((a, b) => a + b, 0)).toBe(8);
  });
});
