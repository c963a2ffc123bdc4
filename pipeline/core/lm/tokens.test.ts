// continuationDecoder: the prompt-context decode shared by the sampler (ort-decoder.ts) and generate.ts.
import { describe, expect, it } from 'vitest';
import { continuationDecoder } from './tokens.ts';

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
