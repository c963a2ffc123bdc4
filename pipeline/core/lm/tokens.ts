import type { CausalLM } from './lm.ts';

/**
 * Character offset where each token of `ids` starts in `lm.decode(ids)`, plus the total length at the end
 * (so token j spans [offsets[j], offsets[j+1])). Shape: [ids.length + 1].
 *
 * Decoding token by token is exact for whole-character tokens; byte-level BPE can split a multi-byte
 * character across tokens, in which case the cumulative decode (slower, exact) is used.
 */
export function tokenOffsets(lm: CausalLM, ids: readonly number[]): number[] {
  const pieces = ids.map((id) => lm.decode([id]));
  const whole = lm.decode(ids);
  const offsets = [0];
  if (pieces.join('') === whole) {
    for (const p of pieces) offsets.push(offsets[offsets.length - 1] + p.length);
    return offsets;
  }
  for (let j = 1; j <= ids.length; j++) offsets.push(lm.decode(ids.slice(0, j)).length);
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
