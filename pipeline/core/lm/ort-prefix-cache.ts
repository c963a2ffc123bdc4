/**
 * KV caches of prefixes that many score() requests share (ScoreRequest.sharedPrefix): p_i's windows all start with
 * their tool's fixed prompt (instruction + worked example, ≈ half of p_i's tokens), so the scorer forwards that prefix
 * once per (prompt, process) and each window on top of its cache (issue 28 item 3). Inline call placement
 * (scoring/inline-scoring.ts) adds one prefix per scored position, x_{1:i−2}, used by that position's two passes. A few
 * prefixes are kept, the most recently used; each holds its present.* on the host, [1, kvHeads, L, headDim]; one
 * tiling to B rows is kept, the last made (of one prefix).
 */
import type { DecoderGraph } from './ort-graph.ts';
import { type OrtTensor, tileRows, toHost, toInt64 } from './ort-runtime.ts';

/** A prefix's cache: its length L and past_key_values [1, kvHeads, L, headDim] per layer (key, value; feed order). */
export interface PrefixCache {
  length: number;
  past: OrtTensor[];
}

/**
 * Prefixes kept: a run's tools each have one fixed prompt (a catalog's hundreds of tools evict each other, as before).
 * An inline run's positions evict them too: on 8 sample documents (models/toolformer, no LM sampling) an inline run
 * forwarded 121 prefixes — 76 for its 76 scored positions, 32 in the control
 * and 13 in p_i, where the call as a prefix forwards 3 (the tools' prompts, forwarded again once evicted).
 */
const MAX_PREFIXES = 8;

export class PrefixCaches {
  /** Most recently used last; the promise, so that concurrent score() calls forward a prefix once. */
  private readonly entries = new Map<string, Promise<PrefixCache>>();
  /**
   * The last tiling, of one prefix: most batches of a prefix have the same row count. One in all, not one per prefix:
   * at 135M a 16-row tiling of a 200-token prompt is 147 MB, and a run's four tools would hold four.
   */
  private tiled: { prefix: PrefixCache; rows: number; past: OrtTensor[] } | null = null;
  /** Prefix forwards so far (benchmarks and tests read it). */
  forwards = 0;

  constructor(private readonly graph: DecoderGraph) {}

  /** The cache of `ids` (forwarded now, or kept from before). */
  get(ids: readonly number[]): Promise<PrefixCache> {
    const key = ids.join(',');
    let entry = this.entries.get(key);
    if (entry) this.entries.delete(key); // re-inserted below: most recent last
    entry ??= this.forward(ids);
    this.entries.set(key, entry);
    if (this.entries.size > MAX_PREFIXES) this.entries.delete(this.entries.keys().next().value!);
    entry.catch(() => this.entries.delete(key)); // a failed forward is not kept
    return entry;
  }

  /** The prefix's cache tiled to `rows` rows, [rows, kvHeads, L, headDim] per tensor. */
  tile(prefix: PrefixCache, rows: number): OrtTensor[] {
    if (this.tiled?.prefix === prefix && this.tiled.rows === rows) return this.tiled.past;
    this.tiled = null; // the old tiling can be collected while the new one is made
    const past = prefix.past.map((t) => tileRows(this.graph.ort, t, rows));
    this.tiled = { prefix, rows, past };
    return past;
  }

  /** One forward pass of the prefix alone (batch 1), logits for its last position only; the cache copied to the host. */
  private async forward(ids: readonly number[]): Promise<PrefixCache> {
    this.forwards++;
    const out = await this.graph.forward(toInt64(ids), 1, ids.length, null, true, 0, undefined, 1);
    const past = await Promise.all(this.graph.presentNames().map((name) => toHost(this.graph.ort, out[name])));
    return { length: ids.length, past };
  }
}
