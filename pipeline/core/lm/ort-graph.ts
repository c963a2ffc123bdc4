/**
 * One run of the ONNX decoder graph, shared by the scorer (ort-scorer.ts: teacher-forced, no cache) and the decoder
 * (ort-decoder.ts: KV-cache stepping). It builds the Optimum-layout feeds — input_ids, attention_mask, [position_ids],
 * [use_cache_branch], past_key_values.{i}.key|value — and checks token ids against the model's limits.
 * Pure and isomorphic: the `ort` module and the session are passed in (ort-lm.ts creates them).
 */
import type { DecoderSpec } from './ort-decoder-spec.ts';
import type { OrtModule, OrtSession, OrtTensor } from './ort-runtime.ts';

export class DecoderGraph {
  /** The graph takes explicit `position_ids` (Llama-family exports; GPT-2 exports may too). */
  private readonly hasPositionIds: boolean;
  /** The graph is a merged decoder with a `use_cache_branch` switch (Optimum's decoder_model_merged). */
  private readonly hasUseCacheBranch: boolean;

  /**
   * @param session the decoder session, already checked against `spec` (ort-decoder-spec.ts checkSession)
   * @param vocabSize config.json's `vocab_size`; ids at or above it are refused (undefined: not checked)
   */
  constructor(
    readonly ort: OrtModule,
    readonly session: OrtSession,
    readonly spec: DecoderSpec,
    readonly vocabSize: number | undefined,
  ) {
    this.hasPositionIds = session.inputNames.includes('position_ids');
    this.hasUseCacheBranch = session.inputNames.includes('use_cache_branch');
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
    const names: string[] = [];
    for (let i = 0; i < this.spec.numLayers; i++) names.push(`present.${i}.key`, `present.${i}.value`);
    return names;
  }

  /**
   * One decoder run. `ids` is [B, T] row-major; `past` the 2 × numLayers cache tensors [B, kvHeads, pastLength,
   * headDim] (null: empty cache); `mask` [B, pastLength + T] defaults to all ones; position ids are pastLength + t
   * (right padding never needs anything else: padded positions are not read). Returns `logits` [B, T, V] and, with
   * `withPresent`, the new cache `present.{i}.key|value` [B, kvHeads, pastLength + T, headDim].
   */
  async forward(
    ids: BigInt64Array,
    B: number,
    T: number,
    past: OrtTensor[] | null,
    withPresent: boolean,
    pastLength = 0,
    mask?: BigInt64Array,
  ): Promise<Record<string, OrtTensor>> {
    const feeds = this.feeds(ids, B, T, past, pastLength, mask);
    return this.session.run(feeds, withPresent ? ['logits', ...this.presentNames()] : ['logits']);
  }

  /** The decoder's inputs for one run (see forward); the scoring graph takes the same ones plus its own. */
  feeds(
    ids: BigInt64Array,
    B: number,
    T: number,
    past: OrtTensor[] | null,
    pastLength: number,
    mask?: BigInt64Array,
  ): Record<string, OrtTensor> {
    const { Tensor } = this.ort;
    const total = pastLength + T;
    const feeds: Record<string, OrtTensor> = {
      input_ids: new Tensor('int64', ids, [B, T]),
      attention_mask: new Tensor('int64', mask ?? new BigInt64Array(B * total).fill(1n), [B, total]),
    };
    if (this.hasPositionIds) {
      const pos = new BigInt64Array(B * T);
      for (let b = 0; b < B; b++) for (let t = 0; t < T; t++) pos[b * T + t] = BigInt(pastLength + t);
      feeds.position_ids = new Tensor('int64', pos, [B, T]);
    }
    if (this.hasUseCacheBranch) feeds.use_cache_branch = new Tensor('bool', Uint8Array.of(past ? 1 : 0), [1]);
    const { numLayers, numKvHeads, headDim } = this.spec;
    const empty = new Float32Array(0);
    for (let i = 0; i < numLayers; i++) {
      for (const [j, kv] of (['key', 'value'] as const).entries()) {
        feeds[`past_key_values.${i}.${kv}`] = past ? past[2 * i + j] : new Tensor('float32', empty, [B, numKvHeads, 0, headDim]);
      }
    }
    return feeds;
  }
}
