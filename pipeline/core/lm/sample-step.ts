/**
 * One decoding step of one sample row, shared by every backend's `CausalLM.sample` (ort-decoder.ts, the llama.cpp
 * backend): the row's token is drawn from its own random stream, then sample-rules.ts says whether the row ends (an
 * end-of-sequence token, an id its tokenizer lacks with `alive`, the stop string, a text `alive` rejects).
 */
import type { Random } from '../../random/mulberry32.ts';
import type { Sample } from './lm.ts';
import { takeToken } from './sample-rules.ts';
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
  const state = { ids: s.generated.get(row)!, sample: s.samples[row] };
  // The rules after the draw are sample-rules.ts's, which a server backend replays over the ids a server drew.
  const more = takeToken(state, token, { stop: s.stop, alive: s.alive, eosIds: s.eosTokenIds, hasToken: s.hasToken, continuation: s.continuation });
  s.samples[row] = state.sample;
  return more ? token : undefined;
}
