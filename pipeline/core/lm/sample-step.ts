/**
 * One decoding step of one sample row, shared by every backend's `CausalLM.sample` (ort-decoder.ts, the llama.cpp
 * backend): the row's token is drawn from its own random stream, then the row ends on an end-of-sequence token, on
 * an id its tokenizer lacks (with `alive`), on the stop string, or when `alive` rejects its text.
 */
import type { Random } from '../random.ts';
import type { Sample } from './lm.ts';
import { pickToken } from './token-math.ts';

export interface SampleRowsState {
  temperature: number;
  topK: number;
  stop: string;
  /** One random stream per sample row (rowSeeds). */
  rngs: Random[];
  samples: Sample[];
  /** Tokens drawn so far per sample row. */
  generated: Map<number, number[]>;
  /** Decodes a row's tokens in the prompt's context (tokens.ts continuationDecoder). */
  continuation: (ids: number[]) => string;
  alive?: (text: string) => boolean;
  eosTokenIds: readonly number[];
  hasToken(id: number): boolean;
}

/** Draws row `row`'s next token from `logits` ([V], any shift); returns it when the row goes on, undefined when it ended. */
export function stepSampleRow(row: number, logits: Float32Array, s: SampleRowsState): number | undefined {
  const token = pickToken(logits, s.temperature, s.topK, s.rngs[row]);
  const ids = s.generated.get(row)!;
  if (s.eosTokenIds.includes(token)) {
    s.samples[row].text = s.continuation(ids);
    return undefined;
  }
  // An id the tokenizer lacks (an embedding padded past the tokenizer: 49,152 rows over a 1,024-token tokenizer)
  // decodes to nothing, so the text would no longer be what the model wrote: a caller that reads the text (alive)
  // gets it as it stood before that id, stopped there. Random weights at 135M draw such an id first 98 % of the
  // time, and without this every probe sample ran its 32 steps on an empty text.
  if (s.alive && !s.hasToken(token)) return undefined;
  ids.push(token);
  const text = s.continuation(ids);
  const at = s.stop === '' ? -1 : text.indexOf(s.stop);
  if (at >= 0) {
    s.samples[row] = { text: text.slice(0, at), stopped: true };
    return undefined;
  }
  s.samples[row].text = text;
  if (s.alive && !s.alive(text)) return undefined; // can no longer be what the caller reads: stop, not stopped
  return token;
}
