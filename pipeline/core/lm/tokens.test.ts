// continuationDecoder: the prompt-context decode shared by the sampler (ort-decoder.ts) and generate.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { continuationDecoder, tokenOffsets } from './tokens.ts';

// A SentencePiece-like decode: "▁" marks a space, and a leading space at the start of a decode is dropped.
const pieces = ['▁the', '▁cat', 's', '▁sat'];
const sentencePiece = { decode: (ids: readonly number[]) => ids.map((id) => pieces[id]).join('').replaceAll('▁', ' ').replace(/^ /, '') };

describe('continuationDecoder', () => {
  it("keeps a continuation's leading space that decoding it alone drops", () => {
    expect(sentencePiece.decode([3])).toBe('sat');
    const text = continuationDecoder(sentencePiece, [0, 1]);
    expect(text([3])).toBe(' sat');
    expect(text([2, 3])).toBe('s sat');
    expect(text([])).toBe('');
  });

  it('reads only the last 4 prompt tokens as context', () => {
    const calls: number[][] = [];
    const lm = { decode: (ids: readonly number[]) => (calls.push([...ids]), sentencePiece.decode(ids)) };
    continuationDecoder(lm, [0, 1, 2, 3, 0, 1])([3]);
    expect(calls).toEqual([[2, 3, 0, 1], [2, 3, 0, 1, 3]]);
  });

  it("falls back to the continuation alone when the context's text is not a prefix of the joint decode", () => {
    // A decode that rewrites the whole text once "▁sat" follows anything: the context's text is no longer its prefix.
    const lm = { decode: (ids: readonly number[]) => (ids.length > 1 && ids.includes(3) ? 'rewritten' : sentencePiece.decode(ids)) };
    expect(continuationDecoder(lm, [0, 1])([3])).toBe('sat');
  });
});

// A byte-level BPE-like decode: each id is a run of UTF-8 bytes (so a multi-byte character can be split across ids),
// the text is their concatenation decoded with replacement characters; optionally a first-token rule as above.
function byteLevel(tokens: Uint8Array[], dropLeadingSpace = false) {
  let calls = 0;
  const utf8 = new TextDecoder();
  const lm = {
    decode(ids: readonly number[]) {
      calls += ids.length;
      const bytes = new Uint8Array(ids.reduce((n, id) => n + tokens[id].length, 0));
      let at = 0;
      for (const id of ids) bytes.set(tokens[id], (at += tokens[id].length) - tokens[id].length);
      const text = utf8.decode(bytes);
      return dropLeadingSpace ? text.replace(/^ /, '') : text;
    },
  };
  return { lm, calls: () => calls };
}

/** `text` cut into byte tokens of 1–3 bytes by `cuts`, and their ids in order. */
function tokenize(text: string, cuts: number[]): { tokens: Uint8Array[]; ids: number[] } {
  const bytes = new TextEncoder().encode(text);
  const tokens: Uint8Array[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const n = 1 + (cuts[i % cuts.length] % 3);
    tokens.push(bytes.slice(at, at + n));
    at += n;
  }
  return { tokens, ids: tokens.map((_, i) => i) };
}

describe('tokenOffsets', () => {
  const cumulative = (lm: { decode(ids: readonly number[]): string }, ids: number[]) =>
    [0, ...ids.map((_, j) => lm.decode(ids.slice(0, j + 1)).length)];

  it('equals the cumulative decode, with characters split across tokens and a first-token rule', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), fc.boolean(), (text, cuts, drop) => {
        const { tokens, ids } = tokenize(text, cuts);
        const { lm } = byteLevel(tokens, drop);
        expect(tokenOffsets(lm, ids)).toEqual(cumulative(lm, ids));
      }),
      { numRuns: 400, seed: 11 },
    );
  });

  it('decodes O(n) tokens in all, not O(n²), when characters are split (a run of "×" in 1-byte tokens)', () => {
    // The meter counts tokens passed to decode: the cumulative decode would pass n²/2.
    for (const n of [200, 800]) {
      const { tokens, ids } = tokenize('×'.repeat(n), [0]);
      const { lm, calls } = byteLevel(tokens);
      tokenOffsets(lm, ids);
      // n single tokens, the whole once, then two windows of ≤ 8 tokens per token.
      expect(calls()).toBeLessThanOrEqual(18 * ids.length);
    }
  });
});
