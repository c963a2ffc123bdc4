import { describe, expect, it } from 'vitest';
import type { CausalLM } from '../lm/lm.ts';
import { FakeLM } from '../testing/fake-lm.ts';
import { searchSpan } from './search-budget.ts';

/** FakeLM tokenizes one UTF-16 code unit per token (" [" is one), so token counts are character counts here. */
const lm = new FakeLM(() => undefined);

/** `lm` with the characters it is asked to encode counted. */
function countingEncoder(): { lm: Pick<CausalLM, 'encode' | 'decode'>; encoded: () => number } {
  let chars = 0;
  return {
    lm: { encode: (text) => ((chars += text.length), lm.encode(text)), decode: (ids) => lm.decode(ids) },
    encoded: () => chars,
  };
}

describe('searchSpan (the search budget)', () => {
  it('leaves a text of at most the budget whole, and any text whole without a budget', () => {
    const text = 'The total of 12 and 30 is 42.';
    expect(searchSpan(lm, text, text.length)).toEqual({ end: text.length, cut: false });
    expect(searchSpan(lm, text.repeat(1000), null)).toEqual({ end: text.length * 1000, cut: false });
  });

  it('cuts a longer text at its first maxTokens tokens, back to the last whitespace (a whole last word)', () => {
    const text = 'one two three four five six seven';
    const span = searchSpan(lm, text, 16); // 16 characters: "one two three fo"
    expect(span).toEqual({ end: 'one two three'.length, cut: true });
    expect(lm.encode(text.slice(0, span.end)).length).toBeLessThanOrEqual(16);
  });

  it('cuts a text without whitespace at exactly the budget, and never inside a surrogate pair', () => {
    expect(searchSpan(lm, 'a'.repeat(10_000), 100)).toEqual({ end: 100, cut: true });
    // Each emoji is two UTF-16 units, two FakeLM tokens: 101 tokens would end inside the 51st.
    const emoji = '😀'.repeat(200);
    const span = searchSpan(lm, emoji, 101);
    expect(span).toEqual({ end: 100, cut: true });
    expect(emoji.slice(0, span.end)).toBe('😀'.repeat(50));
  });

  it('encodes a bounded prefix of a huge text, not all of it (the work is in the budget, not the document)', () => {
    const huge = 'St. ×a'.repeat(200_000); // 1.2M characters
    const counting = countingEncoder();
    const span = searchSpan(counting.lm, huge, 256);
    expect(span.cut).toBe(true);
    expect(span.end).toBeLessThanOrEqual(256);
    expect(span.end).toBeGreaterThanOrEqual(128);
    // First try 8 × 256 characters, then the check of the cut: under 3000 of the 1.2M.
    expect(counting.encoded()).toBeLessThan(3_000);
  });

  it('grows the encoded prefix when the first guess holds fewer tokens than the budget', () => {
    // A tokenizer with 20 characters per token: 8 characters per budget token is not enough at first.
    const coarse: Pick<CausalLM, 'encode' | 'decode'> = {
      encode: (text) => Array.from({ length: Math.ceil(text.length / 20) }, (_, i) => i),
      decode: (ids) => 'x'.repeat(ids.length * 20),
    };
    const text = 'x'.repeat(100_000);
    expect(searchSpan(coarse, text, 50)).toEqual({ end: 1000, cut: true });
    expect(searchSpan(coarse, 'x'.repeat(999), 50)).toEqual({ end: 999, cut: false });
  });
});
