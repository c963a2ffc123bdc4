/**
 * The rules of CausalLM.sample for one row, token by token (lm.ts states the contract): an end-of-sequence id ends
 * the row unstopped; with `alive`, an id the tokenizer lacks ends it with the text it had; the stop string ends it
 * stopped, cut before the stop; with `alive`, a text that can no longer be what the caller reads ends it unstopped.
 * The ONNX decoder applies them as it draws (ort-decoder.ts); a server backend replays them over the ids a server
 * drew (node/model/lm-backends/server), so both give the same sample from the same ids.
 */
import type { Sample, SampleOptions } from './lm.ts';

export interface SampleRules {
  stop: string;
  alive?: SampleOptions['alive'];
  eosIds: readonly number[];
  hasToken(id: number): boolean;
  /** The decoded text of the ids drawn so far (tokens.ts continuationDecoder). */
  continuation(ids: readonly number[]): string;
}

/** A row's state: what it has drawn, and the sample it makes. */
export interface SampleRow {
  ids: number[];
  sample: Sample;
}

export const newRow = (): SampleRow => ({ ids: [], sample: { text: '', stopped: false } });

/** Applies one drawn token to `row`; true when the row draws another. */
export function takeToken(row: SampleRow, token: number, rules: SampleRules): boolean {
  if (rules.eosIds.includes(token)) {
    row.sample.text = rules.continuation(row.ids);
    return false;
  }
  // An id the tokenizer lacks (an embedding padded past the tokenizer: 49,152 rows over a 1,024-token tokenizer)
  // decodes to nothing, so the text would no longer be what the model wrote: a caller that reads the text (alive)
  // gets it as it stood before that id, stopped there. Random weights at 135M draw such an id first 98 % of the
  // time, and without this every probe sample ran its 32 steps on an empty text.
  if (rules.alive && !rules.hasToken(token)) return false;
  row.ids.push(token);
  const text = rules.continuation(row.ids);
  const at = rules.stop === '' ? -1 : text.indexOf(rules.stop);
  if (at >= 0) {
    row.sample = { text: text.slice(0, at), stopped: true };
    return false;
  }
  row.sample.text = text;
  return !(rules.alive && !rules.alive(text)); // can no longer be what the caller reads: stop, not stopped
}

/** The sample a row makes from `drawn` ids (a server's draw), by the same rules: ids past where it ends are ignored. */
export function replaySample(drawn: readonly number[], rules: SampleRules): Sample {
  const row = newRow();
  for (const token of drawn) if (!takeToken(row, token, rules)) break;
  return row.sample;
}
