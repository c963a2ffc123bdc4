import { describe, expect, it } from 'vitest';
import { scorePositions } from './scoring.ts';
import { FakeLM } from '../testing/fake-lm.ts';
import { callTokens, planWindow } from './window.ts';

// A character-level model with 128 positions and a [bos]: one token per character.
const lm = new FakeLM(() => undefined, 128, 0);
const text = 'x'.repeat(300) + ' and the answer is 42.';
const at = text.indexOf(' is');

describe('planWindow: the one scoring-window plan', () => {
  it('cuts the context so that [bos] e(c, r) x_{<i} x_i…x_{i+4} fills the model exactly, never more', async () => {
    const call = `[Calc(${'1 + '.repeat(10)}1) -> 11]`; // 28 tokens, +1 separator
    const plan = planWindow(lm, text, at, [call], { contextTokens: 96 })!;
    expect(callTokens(lm, [call])).toBe(call.length + 1);
    expect(plan.contextTokens).toBe(128 - 1 - 5 - (call.length + 1));
    expect(plan.window.prefix).toHaveLength(plan.contextTokens);
    expect(plan.window.next).toHaveLength(5);
    // The scorer accepts every sequence (it throws on one past the model's 128 positions).
    const [scored] = await scorePositions(lm, [{ window: plan.window, calls: [{ callOnly: '[Calc(1) -> ]', withResult: call }] }]);
    expect(Number.isFinite(scored.losses[0].withResult)).toBe(true);
  });

  it('keeps the configured context when the call is short, and the longest call decides for a position', () => {
    expect(planWindow(lm, text, at, ['[C() -> 1]'], { contextTokens: 96 })!.contextTokens).toBe(96);
    const long = '[C() -> ' + 'y'.repeat(60) + ']';
    expect(planWindow(lm, text, at, ['[C() -> 1]', long], { contextTokens: 96 })!.contextTokens).toBe(128 - 1 - 5 - (long.length + 1));
  });

  it('has no plan when the call leaves no room for text', () => {
    expect(planWindow(lm, text, at, ['[C() -> ' + 'y'.repeat(120) + ']'], { contextTokens: 96 })).toBeNull();
  });
});
