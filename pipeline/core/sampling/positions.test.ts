import { describe, expect, it } from 'vitest';
import { choosePrompt, positionScores, selectPositions } from './positions.ts';
import { toolSpec } from '../tools/registry.ts';

const DEFAULT_PROMPTS = { Calculator: toolSpec('Calculator')!.prompt, QA: toolSpec('QA')!.prompt };
import { FakeLM } from '../testing/fake-lm.ts';

const text = 'It costs 12 dollars and 30 cents.';
/** p(" [") = 0.5 after "costs" and after "and", 0.01 elsewhere. */
const lm = (maxLength = 4096) =>
  new FakeLM((context, next) => (next === ' [' ? (/(costs|and)$/.test(context) ? 0.5 : 0.01) : undefined), maxLength);

describe('positionScores', () => {
  it('gives p_i = p(" [" | P(x), x_{1:i−1}) before every token', async () => {
    const scores = await positionScores(lm(), text, DEFAULT_PROMPTS.Calculator);
    expect(scores.tokens.join('')).toBe(text);
    const before12 = scores.offsets.indexOf(text.indexOf(' 12'));
    const before30 = scores.offsets.indexOf(text.indexOf(' 30'));
    expect(scores.p[before12]).toBeCloseTo(0.5, 6);
    expect(scores.p[before30]).toBeCloseTo(0.5, 6);
    expect(scores.p[before12 + 1]).toBeCloseTo(0.01, 6);
    expect(scores.promptVariant).toBe(0);
  });

  it('cuts long texts into windows, each with its own P(window)', async () => {
    const whole = await positionScores(lm(), text, DEFAULT_PROMPTS.Calculator, { windowTokens: 96 });
    const cut = await positionScores(lm(), text, DEFAULT_PROMPTS.Calculator, { windowTokens: 8 });
    expect(new Set(cut.windows.map(String)).size).toBe(Math.ceil(text.length / 8));
    // Inside a window the context is the same text; at a window's first token it is the prompt alone.
    cut.windows.forEach(([start], i) => {
      if (i > start) expect(cut.p[i]).toBe(whole.p[i]);
      else expect(cut.p[i]).toBeCloseTo(0.01, 6);
    });
  });

  it('falls back to a shorter prompt when the paper prompt does not fit the model', () => {
    expect(choosePrompt(lm(), DEFAULT_PROMPTS.QA).variant).toBe(0);
    expect(choosePrompt(lm(200), DEFAULT_PROMPTS.QA).variant).toBe(1);
    expect(choosePrompt(lm(60), DEFAULT_PROMPTS.QA).variant).toBe(2);
  });

  it('keeps room for sampling a call after the longest prefix', () => {
    const plain = choosePrompt(lm(200), DEFAULT_PROMPTS.QA);
    const reserved = choosePrompt(lm(200), DEFAULT_PROMPTS.QA, { reserveTokens: 40 });
    const overhead = lm(200).encode(plain.render('')).length + 2;
    expect(reserved.variant).toBe(plain.variant);
    expect(overhead + 2 * reserved.window + 40).toBeLessThanOrEqual(200);
    expect(reserved.window).toBeLessThan(plain.window);
  });
});

describe('selectPositions', () => {
  it('keeps the top k positions with p_i > τ_s, at word boundaries, in text order', async () => {
    const scores = await positionScores(lm(), text, DEFAULT_PROMPTS.Calculator);
    const at = (tauS: number, k: number) => selectPositions(scores, text, tauS, k).map((p) => p.at);
    expect(at(0.05, 5)).toEqual([text.indexOf(' 12'), text.indexOf(' 30')]);
    expect(at(0.05, 1)).toEqual([text.indexOf(' 12')]); // tie → the earlier one
    expect(at(0.6, 5)).toEqual([]);
    // τ_s = 0: every word boundary qualifies; k caps the count.
    expect(at(0, 100)).toEqual([...text.matchAll(/\s/g)].map((m) => m.index));
  });
});
