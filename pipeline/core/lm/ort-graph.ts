/**
 * One run of the ONNX decoder graph, shared by the scorer (ort-scorer.ts: teacher-forced, no cache) and the decoder
 * (ort-decoder.ts: KV-cache stepping). It builds the Optimum-layout feeds — input_ids, attention_mask, [position_ids],
 * [use_cache_branch], past_key_values.{i}.key|value — and checks token ids against the model's limits.
 * Pure and isomorphic: the `ort` module and the session are passed in (ort-lm.ts creates them).
 */
import type { DecoderSpec } from './ort-decoder-spec.ts';
import type { DecoderIO } from './ort-graph-io.ts';
import type { OrtModule, OrtSession, OrtTensor } from './ort-runtime.ts';
import { HIDDEN_STATES } from '../../onnx/hidden-state.ts';

/** The cache outputs in feed order: present.0.key, present.0.value, present.1.key, … (2 × numLayers names). */
export function presentNames(numLayers: number): string[] {
  const names: string[] = [];
  for (let i = 0; i < numLayers; i++) names.push(`present.${i}.key`, `present.${i}.value`);
  return names;
}

export class DecoderGraph {
  /** The one-session graph's own scoring inputs (logprob-graph.ts keepDecoderOutputs), fed empty when decoding. */
  readonly hasScoringInputs: boolean;
  /** The graph outputs the LM head's input, `hidden_states` [B, T, C] (onnx/hidden-state.ts): every run fetches it. */
  readonly hasHiddenStates: boolean;

  /**
   * @param session the decoder session, already checked against `spec` (ort-decoder-spec.ts checkSession)
   * @param io the cache and logits types and optional inputs, read from the session (ort-graph-io.ts)
   * @param vocabSize config.json's `vocab_size`; ids at or above it are refused (undefined: not checked)
   * @param cacheOnDevice the session returns present.* as GPU buffers (OrtCausalLMOptions.cacheLocation "gpu-buffer"):
   *   the decoder feeds them back as they are and disposes each replaced cache
   */
  constructor(
    readonly ort: OrtModule,
    readonly session: OrtSession,
    readonly spec: DecoderSpec,
    readonly io: DecoderIO,
    readonly vocabSize: number | undefined,
    readonly cacheOnDevice = false,
  ) {
    this.hasScoringInputs = session.inputNames.includes('score_rows');
    this.hasHiddenStates = session.outputNames.includes(HIDDEN_STATES);
  }

  /** Throws when `ids` is longer than the model's context or holds an id outside [0, vocabSize). */
  checkIds(ids: readonly number[], what: string): void {
    const maxLength = this.spec.maxLength;
    if (ids.length > maxLength) {
      throw new Error(`${what} has ${ids.length} tokens; the model accepts at most ${maxLength} (split or truncate the text)`);
    }
    const V = this.vocabSize;
    for (const id of ids) {
      if (!Number.isInteger(id) || id < 0 || (V !== undefined && id >= V)) {
        throw new Error(`${what}: token id ${id} is outside the vocabulary [0, ${V ?? '?'})`);
      }
    }
  }

  /** The cache outputs in feed order: present.0.key, present.0.value, present.1.key, … (2 × numLayers names). */
  presentNames(): string[] {
    return presentNames(this.spec.numLayers);
  }

  /** Bytes of KV cache one row holds per token, from a forward's present.* [B, kvHeads, T, headDim] (all layers). */
  cacheBytesPerToken(out: Record<string, OrtTensor>): number {
    return this.presentNames().reduce((sum, name) => {
      const [, heads, , dim] = out[name].dims;
      return sum + heads * dim * (out[name].type === 'float16' ? 2 : 4);
    }, 0);
  }

  /**
   * One decoder run. `ids` is [B, T] row-major; `past` the 2 × numLayers cache tensors [B, kvHeads, pastLength,
   * headDim] (null: empty cache); `mask` [B, pastLength + T] defaults to all ones; position ids are pastLength + t
   * (right padding never needs anything else: padded positions are not read). Returns `logits` [B, T, V] and, with
   * `withPresent`, the new cache `present.{i}.key|value` [B, kvHeads, pastLength + T, headDim]. `logitsToKeep` is
   * fed as num_logits_to_keep where the graph takes it (0: every position; decoding asks for 1, as Transformers.js
   * does, and gets logits [B, 1, V]). With `hasHiddenStates`, also `hidden_states` [B, T, C] (every position, whatever
   * `logitsToKeep`). Logits and cache are float32 or float16 as the graph declares them (this.io).
   */
  async forward(
    ids: BigInt64Array,
    B: number,
    T: number,
    past: OrtTensor[] | null,
    withPresent: boolean,
    pastLength = 0,
    mask?: BigInt64Array,
    logitsToKeep = 0,
  ): Promise<Record<string, OrtTensor>> {
    const feeds = this.feeds(ids, B, T, past, pastLength, mask, logitsToKeep);
    const fetches = withPresent ? ['logits', ...this.presentNames()] : ['logits'];
    if (this.hasHiddenStates) fetches.push(HIDDEN_STATES);
    return this.session.run(feeds, fetches);
  }

  /** The decoder's inputs for one run (see forward); the scoring graph takes the same ones plus its own. */
  feeds(
    ids: BigInt64Array,
    B: number,
    T: number,
    past: OrtTensor[] | null,
    pastLength: number,
    mask?: BigInt64Array,
    logitsToKeep = 0,
  ): Record<string, OrtTensor> {
    const { Tensor } = this.ort;
    const total = pastLength + T;
    const feeds: Record<string, OrtTensor> = {
      input_ids: new Tensor('int64', ids, [B, T]),
      attention_mask: new Tensor('int64', mask ?? new BigInt64Array(B * total).fill(1n), [B, total]),
    };
    if (this.io.hasPositionIds) {
      const pos = new BigInt64Array(B * T);
      for (let b = 0; b < B; b++) for (let t = 0; t < T; t++) pos[b * T + t] = BigInt(pastLength + t);
      feeds.position_ids = new Tensor('int64', pos, [B, T]);
    }
    if (this.io.hasUseCacheBranch) feeds.use_cache_branch = new Tensor('bool', Uint8Array.of(past ? 1 : 0), [1]);
    if (this.io.hasNumLogitsToKeep) feeds.num_logits_to_keep = new Tensor('int64', BigInt64Array.of(BigInt(logitsToKeep)), []);
    if (this.hasScoringInputs) {
      // Empty unless the scorer fills them (ort-scorer.ts scoreChunkInGraph).
      feeds.score_rows = new Tensor('int64', new BigInt64Array(0), [0]);
      feeds.score_ids = new Tensor('int64', new BigInt64Array(0), [0, 2]);
    }
    const { numLayers, numKvHeads, headDim } = this.spec;
    // An empty past in the graph's own cache type (float16 in fp16 / q4f16 files).
    const empty = () =>
      this.io.cacheType === 'float16'
        ? new Tensor('float16', new Uint16Array(0), [B, numKvHeads, 0, headDim])
        : new Tensor('float32', new Float32Array(0), [B, numKvHeads, 0, headDim]);
    for (let i = 0; i < numLayers; i++) {
      for (const [j, kv] of (['key', 'value'] as const).entries()) {
        feeds[`past_key_values.${i}.${kv}`] = past ? past[2 * i + j] : empty();
      }
    }
    return feeds;
  }
}
