/**
 * KV-cache decoding on the ONNX decoder: `CausalLM.sample` (the pipeline's call sampler) and `CausalLM.openDecoder`
 * (step-by-step state for generate.ts). Both keep the cache as the graph's own present.{i}.key|value tensors,
 * [B, kvHeads, tokens so far, headDim] each, and feed them back as past_key_values.
 *
 * sample(): prefill the prompt once (batch 1), copy its cache to each group of at most 16 rows (fewer when their cache
 * would pass SAMPLE_GROUP_CACHE_BYTES), then a batched decode loop (finished rows, and rows the caller's `alive`
 * rejects, leave the batch), one seeded random stream per row, temperature, top-k, stop string checked on the decoded
 * text.
 *
 * With the cache on the device (DecoderGraph.cacheOnDevice: WebGPU, gpu-buffer outputs) each step's present.* GPU
 * buffers are fed back as they are and the cache they replace is disposed; only sample()'s row changes (copying the
 * prompt's cache to n rows, dropping finished rows) bring a cache down to host memory, and openDecoder's states free
 * theirs on release().
 */
import { floatRows } from './ort-graph-io.ts';
import type { CausalLM, DecodeState, Sample, SampleOptions } from './lm.ts';
import type { DecoderGraph } from './ort-graph.ts';
import { disposeOnDevice, onDevice, type OrtTensor, selectRows, tileRows, toHost, toInt64 } from './ort-runtime.ts';
import { mulberry32 } from '../../random/mulberry32.ts';
import { rowSeeds } from './token-math.ts';
import { stepSampleRow, type SampleRowsState } from './sample-step.ts';
import { continuationDecoder } from './tokens.ts';

/** Decoding forward passes so far, and how many of them returned their cache on the device (gpu-buffer). */
export interface CacheStats {
  forwards: number;
  onDevice: number;
}

/** Most rows decoded together by sample(): a group's tiled cache is this many copies of the prompt's. */
export const SAMPLE_GROUP_ROWS = 16;

/**
 * Most bytes of KV cache a sample() group holds (rows × the row's cache at its longest, prompt + new tokens). Each
 * decode step has about four of it alive at once — the cache fed, ONNX Runtime's present, its copy into JavaScript,
 * the previous step's copy not yet collected — so at 135M (46 KB per token, a 250-token prompt: 12 MB per row) 16
 * rows took the probe from 0.67 to 1.7 GB; 32 MiB keeps a step under ~130 MB there. Small models keep 16 rows
 * (the bundled one: 4 KB per token).
 */
export const SAMPLE_GROUP_CACHE_BYTES = 32 * 2 ** 20;

/** Rows per sample() group: SAMPLE_GROUP_ROWS, fewer when their cache at `tokens` would pass SAMPLE_GROUP_CACHE_BYTES. */
export function sampleGroupRows(cacheBytesPerToken: number, tokens: number): number {
  return Math.max(1, Math.min(SAMPLE_GROUP_ROWS, Math.floor(SAMPLE_GROUP_CACHE_BYTES / Math.max(1, cacheBytesPerToken * tokens))));
}

export class OrtDecoder {
  readonly stats: CacheStats = { forwards: 0, onDevice: 0 };

  /**
   * @param tokenizer the model's decode (continuations are decoded with prompt context, tokens.ts), and whether the
   *   tokenizer has an id (`hasToken`: a model's vocabulary can be padded past its tokenizer's)
   */
  constructor(
    private readonly graph: DecoderGraph,
    private readonly tokenizer: Pick<CausalLM, 'decode'> & { hasToken(id: number): boolean },
  ) {}

  /** `CausalLM.sample` (see lm.ts for the contract). */
  async sample(prompt: readonly number[], options: SampleOptions): Promise<Sample[]> {
    const { n, stop, seed } = options;
    const temperature = options.temperature ?? 1;
    const topK = options.topK ?? 0;
    const maxLength = this.graph.spec.maxLength;
    if (prompt.length === 0) throw new Error('sample: the prompt is empty; pass at least one token');
    if (!(temperature >= 0)) throw new Error(`sample: temperature must be ≥ 0, got ${temperature}`);
    this.graph.checkIds(prompt, 'sample: prompt');
    if (prompt.length >= maxLength) {
      throw new Error(`sample: the prompt has ${prompt.length} tokens; the model accepts at most ${maxLength} in all`);
    }
    const steps = Math.min(options.maxNewTokens, maxLength - prompt.length);
    if (n <= 0) return [];
    if (steps <= 0) return Array.from({ length: n }, () => ({ text: '', stopped: false }));
    const rngs = rowSeeds(seed, n).map(mulberry32);
    const samples: Sample[] = Array.from({ length: n }, () => ({ text: '', stopped: false }));
    const continuation = continuationDecoder(this.tokenizer, prompt);
    // Prefill the prompt once (batch 1); each group of at most SAMPLE_GROUP_ROWS rows (fewer for a large cache:
    // sampleGroupRows) gets its own copy of the cache, so the tiled cache is a group's, not n rows' (a 100-row probe at
    // 135M held 1.17 GB of copies, reallocated each step).
    const prefill = this.count(await this.graph.forward(toInt64(prompt), 1, prompt.length, null, true, 0, undefined, 1));
    try {
      // Several rows: every group tiles the same prompt cache in host memory, so a device cache is copied down once
      // here (toHost frees its GPU buffer) rather than by each group.
      if (n > 1) for (const name of this.graph.presentNames()) prefill[name] = await toHost(this.graph.ort, prefill[name]);
      const groupRows = sampleGroupRows(this.graph.cacheBytesPerToken(prefill), prompt.length + steps);
      for (let from = 0; from < n; from += groupRows) {
        const rows = Array.from({ length: Math.min(groupRows, n - from) }, (_, i) => from + i);
        await this.sampleRows(prompt.length, prefill, rows, { ...options, temperature, topK, steps, rngs, samples, continuation });
      }
    } finally {
      // With one group of one row, the prefill's cache became the decode loop's and was disposed there; with several,
      // only a cache not yet copied down (an error on the way) is still on the device.
      if (n > 1) disposeOnDevice(this.graph.presentNames().map((name) => prefill[name]));
    }
    return samples;
  }

  /** The decode loop for `rows` (sample indices) from the prompt's prefill: finished rows leave the batch. */
  private async sampleRows(
    L: number,
    prefill: Record<string, OrtTensor>,
    rows: number[],
    o: SampleOptions & {
      temperature: number;
      topK: number;
      steps: number;
      rngs: ReturnType<typeof mulberry32>[];
      samples: Sample[];
      continuation: (ids: number[]) => string;
    },
  ): Promise<void> {
    const { stop, temperature, topK, steps, rngs, samples, continuation, alive } = o;
    const n = rows.length;
    const ort = this.graph.ort;
    const generated = new Map(rows.map((row) => [row, [] as number[]]));
    // n > 1 rows: the prompt's cache is tiled in host memory (a device cache is copied down once, here). A single row
    // of a single-row sample decodes on the prefill's own cache.
    const own = n === 1 && o.n === 1;
    let past = await Promise.all(this.graph.presentNames().map(async (name) => (own ? prefill[name] : tileRows(ort, await toHost(ort, prefill[name]), n))));
    try {
      const V = prefill.logits.dims[2];
      // [V] logits of the token after the prompt, shared by all rows for the first step.
      const kept = prefill.logits.dims[1]; // L, or 1 under num_logits_to_keep
      const firstRow = floatRows(prefill.logits).subarray((kept - 1) * V, kept * V);
      let rowLogits: Float32Array[] = Array.from({ length: n }, () => firstRow);
      let active = rows; // sample index of each batch row
      const rowState: SampleRowsState = {
        temperature, topK, stop, rngs, samples, generated, continuation, alive,
        eosTokenIds: this.graph.spec.eosTokenIds,
        hasToken: (id) => this.tokenizer.hasToken(id),
      };

      for (let step = 0; step < steps && active.length > 0; step++) {
        const next: number[] = [];
        const keep: number[] = []; // positions within `active` that continue
        active.forEach((row, j) => {
          const token = stepSampleRow(row, rowLogits[j], rowState);
          if (token === undefined) return;
          keep.push(j);
          next.push(token);
        });
        if (keep.length === 0 || step === steps - 1) break;
        if (keep.length < active.length) {
          past = await Promise.all(past.map(async (t) => selectRows(ort, await toHost(ort, t), keep)));
        }
        active = keep.map((j) => active[j]);

        const m = active.length;
        const P = L + step; // tokens already in the cache
        const out = this.count(await this.graph.forward(toInt64(next), m, 1, past, true, P, undefined, 1));
        disposeOnDevice(past);
        past = this.graph.presentNames().map((name) => out[name] as OrtTensor);
        const data = floatRows(out.logits); // [m, 1, V]
        rowLogits = active.map((_, j) => data.subarray(j * V, (j + 1) * V));
      }
      for (const row of rows) samples[row].ids = generated.get(row);
    } finally {
      disposeOnDevice(past);
    }
  }

  /** Counts a decoding run's outputs in `stats`. */
  private count(out: Record<string, OrtTensor>): Record<string, OrtTensor> {
    this.stats.forwards++;
    if (onDevice(out['present.0.key'])) this.stats.onDevice++;
    return out;
  }

  /** `CausalLM.openDecoder`: batch 1; each feed(ids) is one forward pass of ids.length tokens over the cache. */
  async open(prompt: readonly number[]): Promise<DecodeState> {
    if (prompt.length === 0) throw new Error('openDecoder: the prompt is empty; pass at least one token');
    this.graph.checkIds(prompt, 'openDecoder: prompt');
    const graph = this.graph;
    const maxLength = graph.spec.maxLength;
    let past: OrtTensor[] | null = null;
    let length = 0;
    let released = false;
    const state = {
      logits: new Float32Array(0),
      hidden: undefined as Float32Array | undefined,
      get length() {
        return length;
      },
      feed: async (ids: readonly number[]): Promise<void> => {
        if (ids.length === 0) return;
        if (released) throw new Error('openDecoder: this state was released');
        graph.checkIds(ids, 'openDecoder: fed tokens');
        if (length + ids.length > maxLength) {
          throw new Error(`openDecoder: ${length + ids.length} tokens; the model accepts at most ${maxLength}`);
        }
        const out = this.count(await graph.forward(toInt64(ids), 1, ids.length, past, true, length, undefined, 1));
        disposeOnDevice(past);
        past = graph.presentNames().map((name) => out[name] as OrtTensor);
        length += ids.length;
        const V = out.logits.dims[2];
        // A copy of the last row of logits [1, ids.length, V] (callers may mask it in place).
        const kept = out.logits.dims[1]; // ids.length, or 1 under num_logits_to_keep
        state.logits = floatRows(out.logits).slice((kept - 1) * V, kept * V);
        if (graph.hasHiddenStates) state.hidden = lastRow(out.hidden_states);
      },
      release: () => {
        disposeOnDevice(past);
        past = null;
        released = true;
      },
    };
    await state.feed(prompt);
    return state;
  }
}

/** A copy of the last position's row of a [1, T, C] tensor (float16 widened). */
export function lastRow(tensor: OrtTensor): Float32Array {
  const [, T, C] = tensor.dims;
  return Float32Array.from(floatRows(tensor).subarray((T - 1) * C, T * C));
}
