import type { CausalLM } from './lm.ts';

/**
 * Character offset where each token of `ids` starts in `lm.decode(ids)`, plus the total length at the end
 * (so token j spans [offsets[j], offsets[j+1])). Shape: [ids.length + 1].
 *
 * The definition is the cumulative decode: offsets[j] = lm.decode(ids[0..j)).length. Decoding token by token gives it
 * when every token is whole characters. Byte-level BPE can split a multi-byte character across tokens (and some
 * decoders treat a first token differently), so otherwise each step is measured in a short window instead:
 * offsets[j+1] − offsets[j] = |decode(ids[a..j])| − |decode(ids[a..j))| with a = max(0, j − CONTEXT). The bytes where
 * the window starts are ≥ CONTEXT tokens (≥ 4 bytes, a UTF-8 character's most) before token j, so how they decode
 * is the same in both terms and cancels: exact, and linear in ids.length (the cumulative decode itself is
 * quadratic: a long run of split characters made one document take minutes).
 */
const CONTEXT = 7;

export function tokenOffsets(lm: Pick<CausalLM, 'decode'>, ids: readonly number[]): number[] {
  const pieces = ids.map((id) => lm.decode([id]));
  const whole = lm.decode(ids);
  const offsets = [0];
  if (pieces.join('') === whole) {
    for (const p of pieces) offsets.push(offsets[offsets.length - 1] + p.length);
    return offsets;
  }
  for (let j = 0; j < ids.length; j++) {
    const a = Math.max(0, j - CONTEXT);
    const step = lm.decode(ids.slice(a, j + 1)).length - (j > a ? lm.decode(ids.slice(a, j)).length : 0);
    offsets.push(offsets[j] + step);
  }
  return offsets;
}

/** The id the model uses for `text` when it is a single token (" [" for calls); an error otherwise. */
export function singleTokenId(lm: CausalLM, text: string): number {
  const ids = lm.encode(text);
  if (ids.length !== 1) {
    throw new Error(`the model's tokenizer splits ${JSON.stringify(text)} into ${ids.length} tokens; Toolformer needs it to be one`);
  }
  return ids[0];
}

/** Prompt tokens decoded before a continuation (continuationDecoder): enough to carry a word boundary. */
const CONTINUATION_CONTEXT = 4;

/**
 * The decoded text of continuations of `prompt`: each is decoded with the prompt's last few tokens before it and
 * their text cut off again, so a tokenizer that drops a leading space at the start of a decode (SentencePiece "▁")
 * gives the continuation's true text. Falls back to decoding the continuation alone when the context's text is not
 * a prefix of the joint decode. Used by the sampler (ort-decoder.ts) and by generation (generate.ts).
 */
export function continuationDecoder(lm: Pick<CausalLM, 'decode'>, prompt: readonly number[]): (ids: readonly number[]) => string {
  const context = prompt.slice(-CONTINUATION_CONTEXT);
  const contextText = lm.decode(context);
  return (ids) => {
    const full = lm.decode([...context, ...ids]);
    return full.startsWith(contextText) ? full.slice(contextText.length) : lm.decode(ids);
  };
}
