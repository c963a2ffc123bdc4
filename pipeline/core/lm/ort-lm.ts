/**
 * `CausalLM` on ONNX Runtime, for Node and the browser alike: the `ort` module is passed in
 * (onnxruntime-node or onnxruntime-web: the same InferenceSession / Tensor API), with the model bytes,
 * config.json and tokenizer.json — no file system, no platform checks.
 *
 * The model is any Hugging Face ONNX decoder with a KV cache in the Optimum layout (input_ids, attention_mask,
 * [position_ids], past_key_values.{i}.key|value → logits, present.{i}.key|value): GPT-2, SmolLM2, Qwen2, …
 *
 * - score(): requests sorted by length and cut into batches (right padding + attention mask), each forwarded only
 *   as far as `upTo` needs. By default the log-prob head runs inside a scoring copy of the decoder graph
 *   (onnx/logprob-graph.ts buildScoringDecoderOnnx): only the positions a request reads go through the LM head and
 *   log-softmax, and only [n, 2] floats come back — logits never reach JavaScript.
 * - sample(): prefill once, then a batched KV-cache decode loop over the n samples (finished rows leave the batch),
 *   one seeded random stream per row, temperature, top-k, stop string checked on the decoded text.
 */
import { Tokenizer } from '@huggingface/tokenizers';
import { buildLogProbGatherOnnx, buildScoringDecoderOnnx } from '../../onnx/logprob-graph.ts';
import type { CausalLM, DecodeState, Sample, SampleOptions, ScoreRequest, ScoreResult } from './lm.ts';
import { checkSession, decoderSpecFromConfig, type DecoderSpec } from './ort-decoder-spec.ts';
import { type OrtModule, type OrtSession, type OrtTensor, selectRows, tileRows, toInt64 } from './ort-runtime.ts';
import { mulberry32 } from '../../onnx/random.ts';
import { logSoftmaxGather, pickToken, rowSeeds } from './token-math.ts';

export type { OrtModule, OrtSession, OrtTensor, OrtValueMetadata } from './ort-runtime.ts';
export { logSoftmaxGather, pickToken, rowSeeds } from './token-math.ts';

export interface OrtCausalLMOptions {
  /** Recorded as `CausalLM.id` (a path or a name). */
  id: string;
  /** The decoder's ONNX bytes (onnx/model.onnx). */
  model: Uint8Array;
  /** Parsed config.json. */
  config: Record<string, unknown>;
  /** Parsed tokenizer.json. */
  tokenizer: Record<string, unknown>;
  /** Parsed tokenizer_config.json, when there is one. */
  tokenizerConfig?: Record<string, unknown>;
  /** Passed to `InferenceSession.create` for both sessions (threads, execution providers, optimisation level). */
  sessionOptions?: Record<string, unknown>;
  /** Most sequences per forward pass in score(). @default 16 */
  maxBatchRows?: number;
  /** Most padded tokens (rows × longest row) per forward pass in score(). @default 4096 */
  maxBatchTokens?: number;
  /**
   * Where score() turns hidden states into log-probs:
   * - "head": a scoring copy of the decoder with the LM head, log-softmax and gather inside (only the positions read
   *   are computed; logits never come back to JavaScript). Costs a second session holding the same weights.
   * - "graph": the decoder's full logits come back and go through a second tiny log-softmax + gather graph.
   * - "js": the reference path, log-softmax in JavaScript (~10× slower on a 4k vocabulary).
   * "head" falls back to "graph" when the graph has no `logits` output it can rewrite. @default "head"
   */
  logProbs?: 'head' | 'graph' | 'js';
}


/** Rows of logits are never larger than this many bytes per forward pass (keeps memory flat on big vocabularies). */
const MAX_LOGITS_BYTES = 256 * 1024 * 1024;

interface PendingScore {
  request: ScoreRequest;
  /** Exclusive end of the positions wanted. */
  upTo: number;
  /** Tokens to forward: upTo with a probe (p(probe | ids[≤ upTo−1])), else upTo − 1. */
  need: number;
  /** First position whose log-probs are computed (rows firstRow..need−1). */
  firstRow: number;
  result: ScoreResult;
}

export class OrtCausalLM implements CausalLM {
  readonly maxLength: number;
  /** config.json's `bos_token_id` (GPT-2: <|endoftext|>); the scorer puts it before every sequence. */
  readonly bosId: number | undefined;
  private readonly vocabSize: number | undefined;
  private readonly hasPositionIds: boolean;
  private readonly hasUseCacheBranch: boolean;
  /**
   * Called once per score() forward pass with its shape: `rows` × `length` padded tokens, of which `tokens` are
   * real (benchmarks replay these shapes on a bare session to measure the runtime's limit).
   */
  onScoreBatch?: (batch: { rows: number; length: number; tokens: number }) => void;

  private constructor(
    readonly id: string,
    private readonly ort: OrtModule,
    private readonly session: OrtSession,
    private readonly gather: OrtSession | null,
    private readonly scorer: OrtSession | null,
    private readonly tokenizer: Tokenizer,
    readonly spec: DecoderSpec,
    private readonly options: Required<Pick<OrtCausalLMOptions, 'maxBatchRows' | 'maxBatchTokens'>>,
    vocabSize: number | undefined,
    bosId: number | undefined,
  ) {
    this.maxLength = spec.maxLength;
    this.bosId = bosId;
    this.vocabSize = vocabSize;
    this.hasPositionIds = session.inputNames.includes('position_ids');
    this.hasUseCacheBranch = session.inputNames.includes('use_cache_branch');
  }

  static async create(ort: OrtModule, options: OrtCausalLMOptions): Promise<OrtCausalLM> {
    const spec = decoderSpecFromConfig(options.config);
    const tokenizer = labelled('tokenizer.json', () => new Tokenizer(options.tokenizer, options.tokenizerConfig ?? {}));
    const session = await ort.InferenceSession.create(options.model, options.sessionOptions).catch((error: unknown) => {
      throw new Error(`onnx/model.onnx: ${error instanceof Error ? error.message : String(error)}`);
    });
    try {
      checkSession(session, spec);
    } catch (error) {
      await session.release();
      throw error;
    }
    const mode = options.logProbs ?? 'head';
    let scorer: OrtSession | null = null;
    if (mode === 'head') {
      // A graph this rewrite does not understand keeps the "graph" path rather than failing the load.
      const scoring = (() => {
        try {
          return buildScoringDecoderOnnx(options.model);
        } catch {
          return null;
        }
      })();
      if (scoring) scorer = await ort.InferenceSession.create(scoring, options.sessionOptions).catch(() => null);
    }
    const gather = await ort.InferenceSession.create(buildLogProbGatherOnnx(), options.sessionOptions);
    const vocabSize = typeof options.config.vocab_size === 'number' ? options.config.vocab_size : undefined;
    const maxBatchTokens = Math.max(
      1,
      Math.min(options.maxBatchTokens ?? 4096, vocabSize ? Math.floor(MAX_LOGITS_BYTES / 4 / vocabSize) : Infinity),
    );
    const make = (head: OrtSession | null, logSoftmax: OrtSession | null) =>
      new OrtCausalLM(options.id, ort, session, logSoftmax, head, tokenizer, spec, {
        maxBatchRows: options.maxBatchRows ?? 16,
        maxBatchTokens,
      }, vocabSize, typeof options.config.bos_token_id === 'number' ? options.config.bos_token_id : undefined);
    if (scorer) {
      // The rewrite assumed a [B, T, C] hidden state before a MatMul head; check it on two short rows against the
      // full-logits path before trusting it, and fall back when the two disagree or the scoring graph fails.
      const ids = [0, 1, 2, 3].map((i) => i % (vocabSize ?? 1));
      const requests: ScoreRequest[] = [{ ids }, { ids: ids.slice(0, 3), probe: ids[1] }];
      const [head, full] = [make(scorer, null), make(null, gather)];
      const agree = await Promise.all([head.score(requests), full.score(requests)]).then(
        ([a, b]) =>
          a.every((r, i) =>
            [...r.tokenLogProbs, ...(r.probeLogProbs ?? [])].every((x, j) => {
              const y = [...b[i].tokenLogProbs, ...(b[i].probeLogProbs ?? [])][j];
              return Number.isFinite(x) && Math.abs(x - y) <= 1e-3;
            }),
          ),
        () => false,
      );
      if (agree) {
        await gather.release();
        return head;
      }
      await scorer.release();
    }
    if (mode === 'js') {
      await gather.release();
      return make(null, null);
    }
    return make(null, gather);
  }

  encode(text: string): number[] {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  /** Exact inverse of encode() (no clean-up of spaces before punctuation, special tokens kept). */
  decode(ids: readonly number[]): string {
    return this.tokenizer.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  }

  async score(batch: readonly ScoreRequest[]): Promise<ScoreResult[]> {
    const pending = batch.map((request, i): PendingScore => {
      this.checkIds(request.ids, `score: request ${i}`);
      const len = request.ids.length;
      const upTo = Math.max(0, Math.min(request.upTo ?? len, len));
      const need = request.probe !== undefined ? upTo : Math.max(0, upTo - 1);
      if (request.probe !== undefined) this.checkIds([request.probe], `score: request ${i} probe`);
      const result: ScoreResult = { tokenLogProbs: new Float32Array(len) };
      if (request.probe !== undefined) result.probeLogProbs = new Float32Array(len);
      // First logits row read: row t predicts ids[t + 1]; a probe reads every row.
      const firstRow = request.probe !== undefined ? 0 : Math.max(0, Math.min((request.from ?? 1) - 1, need));
      return { request, upTo, need, firstRow, result };
    });
    // Length bucketing: longest first, so each batch pads to a length close to all its rows.
    const todo = pending.filter((p) => p.need > 0).sort((a, b) => b.need - a.need);
    for (let start = 0; start < todo.length; ) {
      const longest = todo[start].need;
      const rows = Math.max(1, Math.min(this.options.maxBatchRows, Math.floor(this.options.maxBatchTokens / longest)));
      const chunk = todo.slice(start, start + rows);
      await this.scoreChunk(chunk);
      start += chunk.length;
    }
    return pending.map((p) => p.result);
  }

  async sample(prompt: readonly number[], options: SampleOptions): Promise<Sample[]> {
    const { n, stop, seed } = options;
    const temperature = options.temperature ?? 1;
    const topK = options.topK ?? 0;
    if (prompt.length === 0) throw new Error('sample: the prompt is empty; pass at least one token');
    if (!(temperature >= 0)) throw new Error(`sample: temperature must be ≥ 0, got ${temperature}`);
    this.checkIds(prompt, 'sample: prompt');
    if (prompt.length >= this.maxLength) {
      throw new Error(`sample: the prompt has ${prompt.length} tokens; the model accepts at most ${this.maxLength} in all`);
    }
    const steps = Math.min(options.maxNewTokens, this.maxLength - prompt.length);
    if (n <= 0) return [];
    if (steps <= 0) return Array.from({ length: n }, () => ({ text: '', stopped: false }));
    const rngs = rowSeeds(seed, n).map(mulberry32);

    const samples: Sample[] = Array.from({ length: n }, () => ({ text: '', stopped: false }));
    const generated: number[][] = Array.from({ length: n }, () => []);
    // Decode continuations with a little prompt context before them, so tokenizers that drop a leading space at
    // the start of a decode (SentencePiece "▁") give the continuation's true text.
    const context = prompt.slice(-4);
    const contextText = this.decode(context);
    const continuation = (ids: number[]) => {
      const full = this.decode([...context, ...ids]);
      return full.startsWith(contextText) ? full.slice(contextText.length) : this.decode(ids);
    };

    // Prefill the prompt once (batch 1), then copy its cache to the n rows.
    const L = prompt.length;
    const prefill = await this.forward(toInt64(prompt), 1, L, null, true);
    let past = this.presentNames().map((name) => tileRows(this.ort, prefill[name], n));
    const V = prefill.logits.dims[2];
    const firstRow = (prefill.logits.data as Float32Array).subarray((L - 1) * V, L * V);
    let rowLogits: Float32Array[] = Array.from({ length: n }, () => firstRow);
    let active = Array.from({ length: n }, (_, i) => i);

    for (let step = 0; step < steps && active.length > 0; step++) {
      const next: number[] = [];
      const keep: number[] = []; // positions within `active` that continue
      active.forEach((row, j) => {
        const token = pickToken(rowLogits[j], temperature, topK, rngs[row]);
        if (this.spec.eosTokenIds.includes(token)) {
          samples[row].text = continuation(generated[row]);
          return;
        }
        generated[row].push(token);
        const text = continuation(generated[row]);
        const at = stop === '' ? -1 : text.indexOf(stop);
        if (at >= 0) {
          samples[row] = { text: text.slice(0, at), stopped: true };
          return;
        }
        samples[row].text = text;
        keep.push(j);
        next.push(token);
      });
      if (keep.length === 0 || step === steps - 1) break;
      if (keep.length < active.length) past = past.map((t) => selectRows(this.ort, t, keep));
      active = keep.map((j) => active[j]);

      const m = active.length;
      const P = L + step; // tokens already in the cache
      const out = await this.forward(toInt64(next), m, 1, past, true, P);
      past = this.presentNames().map((name) => out[name] as OrtTensor);
      const data = out.logits.data as Float32Array;
      rowLogits = active.map((_, j) => data.subarray(j * V, (j + 1) * V));
    }
    return samples;
  }

  async openDecoder(prompt: readonly number[]): Promise<DecodeState> {
    if (prompt.length === 0) throw new Error('openDecoder: the prompt is empty; pass at least one token');
    this.checkIds(prompt, 'openDecoder: prompt');
    let past: OrtTensor[] | null = null;
    let length = 0;
    const state = {
      logits: new Float32Array(0),
      get length() {
        return length;
      },
      feed: async (ids: readonly number[]): Promise<void> => {
        if (ids.length === 0) return;
        this.checkIds(ids, 'openDecoder: fed tokens');
        if (length + ids.length > this.maxLength) {
          throw new Error(`openDecoder: ${length + ids.length} tokens; the model accepts at most ${this.maxLength}`);
        }
        const out = await this.forward(toInt64(ids), 1, ids.length, past, true, length);
        past = this.presentNames().map((name) => out[name] as OrtTensor);
        length += ids.length;
        const V = out.logits.dims[2];
        state.logits = (out.logits.data as Float32Array).slice((ids.length - 1) * V, ids.length * V);
      },
    };
    await state.feed(prompt);
    return state;
  }

  /** Frees the ONNX Runtime sessions. */
  async release(): Promise<void> {
    await this.session.release();
    await this.gather?.release();
    await this.scorer?.release();
  }

  // ---- internals ----

  private checkIds(ids: readonly number[], what: string): void {
    if (ids.length > this.maxLength) {
      throw new Error(
        `${what} has ${ids.length} tokens; the model accepts at most ${this.maxLength} (split or truncate the text)`,
      );
    }
    const V = this.vocabSize;
    for (const id of ids) {
      if (!Number.isInteger(id) || id < 0 || (V !== undefined && id >= V)) {
        throw new Error(`${what}: token id ${id} is outside the vocabulary [0, ${V ?? '?'})`);
      }
    }
  }

  private presentNames(): string[] {
    const names: string[] = [];
    for (let i = 0; i < this.spec.numLayers; i++) names.push(`present.${i}.key`, `present.${i}.value`);
    return names;
  }

  /**
   * One decoder run. `ids` is [B, T] row-major; `mask` defaults to all ones over past + T; position ids are
   * past + t (right padding never needs anything else: padded positions are not read).
   */
  private async forward(
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

  /** The decoder's inputs for one run (see forward). */
  private feeds(
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

  private async scoreChunk(chunk: PendingScore[]): Promise<void> {
    const B = chunk.length;
    const T = Math.max(...chunk.map((p) => p.need));
    const ids = new BigInt64Array(B * T).fill(BigInt(this.spec.padTokenId));
    const mask = new BigInt64Array(B * T);
    chunk.forEach(({ request, need }, b) => {
      for (let t = 0; t < need; t++) {
        ids[b * T + t] = BigInt(request.ids[t]);
        mask[b * T + t] = 1n;
      }
    });
    this.onScoreBatch?.({ rows: B, length: T, tokens: chunk.reduce((s, p) => s + p.need, 0) });
    if (this.scorer) return this.scoreChunkInGraph(chunk, this.scorer, ids, T, mask);
    const { logits } = await this.forward(ids, B, T, null, false, 0, mask);

    // For row b, position t: slot 0 = the next token ids[t+1], slot 1 = the probe.
    const K = 2;
    const indices = new BigInt64Array(B * T * K);
    chunk.forEach(({ request, upTo }, b) => {
      const probe = BigInt(request.probe ?? 0);
      for (let t = 0; t < T; t++) {
        if (t + 1 < upTo) indices[(b * T + t) * K] = BigInt(request.ids[t + 1]);
        indices[(b * T + t) * K + 1] = probe;
      }
    });
    const gathered = this.gather
      ? ((await this.gather.run({ logits, indices: new this.ort.Tensor('int64', indices, [B, T, K]) }, ['log_probs']))
          .log_probs.data as Float32Array)
      : logSoftmaxGather(logits.data as Float32Array, logits.dims[2], indices, K);

    chunk.forEach(({ request, upTo, result }, b) => {
      for (let t = 1; t < upTo; t++) result.tokenLogProbs[t] = gathered[(b * T + t - 1) * K];
      if (result.probeLogProbs && request.probe !== undefined) {
        for (let t = 0; t < upTo; t++) result.probeLogProbs[t] = gathered[(b * T + t) * K + 1];
      }
    });
  }

  /** scoreChunk on the scoring graph: only rows firstRow..need−1 of each request go through the LM head. */
  private async scoreChunkInGraph(chunk: PendingScore[], scorer: OrtSession, ids: BigInt64Array, T: number, mask: BigInt64Array) {
    const B = chunk.length;
    const n = chunk.reduce((s, p) => s + p.need - p.firstRow, 0);
    // For each selected row (b, t): slot 0 = the next token ids[t+1] (0 past upTo), slot 1 = the probe.
    const K = 2;
    const rows = new BigInt64Array(n);
    const indices = new BigInt64Array(n * K);
    let r = 0;
    chunk.forEach(({ request, upTo, need, firstRow }, b) => {
      const probe = BigInt(request.probe ?? 0);
      for (let t = firstRow; t < need; t++, r++) {
        rows[r] = BigInt(b * T + t);
        if (t + 1 < upTo) indices[r * K] = BigInt(request.ids[t + 1]);
        indices[r * K + 1] = probe;
      }
    });
    const { Tensor } = this.ort;
    const feeds = this.feeds(ids, B, T, null, 0, mask);
    feeds.score_rows = new Tensor('int64', rows, [n]);
    feeds.score_ids = new Tensor('int64', indices, [n, K]);
    const gathered = (await scorer.run(feeds, ['score_log_probs'])).score_log_probs.data as Float32Array;
    r = 0;
    for (const { request, upTo, need, firstRow, result } of chunk) {
      for (let t = firstRow; t < need; t++, r++) {
        if (t + 1 < upTo) result.tokenLogProbs[t + 1] = gathered[r * K];
        if (result.probeLogProbs && request.probe !== undefined) result.probeLogProbs[t] = gathered[r * K + 1];
      }
    }
  }
}

/** Runs `make`, prefixing any error's message with the file it concerns. */
function labelled<T>(file: string, make: () => T): T {
  try {
    return make();
  } catch (error) {
    throw new Error(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
