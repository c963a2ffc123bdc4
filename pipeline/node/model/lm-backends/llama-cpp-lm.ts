/**
 * `CausalLM` over a llama.cpp context (node-llama-cpp 3.21.1). Node only; loaded by llama-cpp.ts.
 *
 * Where the numbers come from: node-llama-cpp has no logits API. `LlamaContextSequence.controlledEvaluate` with
 * `generateNext: { probabilities: true }` returns, per evaluated position, the whole vocabulary's next-token
 * probabilities, computed in its addon (AddonContext.cpp SampleToken) as float32 softmax(logits) after the sampler
 * chain; with no sampling options the chain is the greedy sampler alone (temperature 0), which leaves the logits as
 * they are, so these are the raw softmax, up to the float32 sum they are divided by (corrected here: Distribution).
 * log p is then float32-exact (relative error ~1e-7) down to −87.3 nats; below it p is a float32 denormal (inexact)
 * and below −103.3 it is 0, reported here as FLOAT32_LOG_FLOOR.
 *
 * What a position costs, and what is avoided (see rawProbabilities): the addon sorts the vocabulary, softmaxes it and
 * hands back a flat JS array [token, p, token, p, …] of 2·V numbers; node-llama-cpp then copies it into a Map of V
 * entries. The Map is skipped here — the flat array is read directly, in the same order, so every number is the
 * same — which is the only part of the per-position cost the package lets a caller avoid (no call returns logits or
 * the probabilities of chosen tokens only).
 *
 * - score(): each request on its own sequence of the context, evaluated one at a time (oneAtATime: node-llama-cpp's
 *   shared batches gave a request another's probabilities); a sequence keeps its KV cache between requests and
 *   re-evaluates only past the longest common prefix with the previous request (capped at the first position whose
 *   probabilities are needed).
 * - sample(): rows spread over the sequences, each sequence evaluating the prompt once; each step draws from the
 *   row's own seeded stream (token-math pickToken on the log-probabilities, the same draws as the ONNX backend),
 *   one evaluation at a time.
 * - openDecoder(): one sequence held until release(); `logits` are the next token's log-probabilities (a shift of
 *   the logits: the same softmax, argmax and top k).
 * Hidden states (HiddenStateLM) are not offered: the API gives the LM head's input only through a separate
 * embedding context, not beside the logits of the same evaluation.
 */
import type { Llama, LlamaContext, LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import type { CausalLM, DecodeState, Sample, SampleOptions, ScoreRequest, ScoreResult } from '../../../core/lm/lm.ts';
import { mulberry32 } from '../../../random/mulberry32.ts';
import { rowSeeds } from '../../../core/lm/token-math.ts';
import { stepSampleRow, type SampleRowsState } from '../../../core/lm/sample-step.ts';
import { continuationDecoder } from '../../../core/lm/tokens.ts';

export type LlamaCppModule = typeof import('node-llama-cpp');

/** log of float32's smallest denormal: what a probability that underflowed to 0 reports. */
export const FLOAT32_LOG_FLOOR = Math.log(1.401298464324817e-45);

type ContextPlan = (kvBytesPerSequence: number, contextSize: number, vocabSize: number) => { sequences: number; batchSize: number };

/** A pool of the context's sequences: acquire waits for a free one. */
class SequencePool {
  private waiting: ((s: LlamaContextSequence) => void)[] = [];
  constructor(private free: LlamaContextSequence[]) {}
  get size() {
    return this.free.length;
  }
  acquire(): Promise<LlamaContextSequence> {
    const s = this.free.pop();
    return s ? Promise.resolve(s) : new Promise((resolve) => this.waiting.push(resolve));
  }
  release(s: LlamaContextSequence): void {
    const next = this.waiting.shift();
    if (next) next(s);
    else this.free.push(s);
  }
  async with<T>(f: (s: LlamaContextSequence) => Promise<T>): Promise<T> {
    const s = await this.acquire();
    try {
      return await f(s);
    } finally {
      this.release(s);
    }
  }
}

export class LlamaCppLM implements CausalLM {
  readonly eosIds: readonly number[];
  readonly bosId: number | undefined;
  readonly maxLength: number;
  private readonly vocabSize: number;
  /** The last evaluation started (oneAtATime). */
  private evaluating: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly id: string,
    private readonly llama: Llama,
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    private readonly pool: SequencePool,
  ) {
    this.maxLength = Math.min(model.trainContextSize, context.contextSize);
    this.bosId = model.tokens.bos ?? undefined;
    // The file's eos_token_id alone: llama.cpp also guesses an end-of-turn token from token texts (<|endoftext|> in a
    // Qwen2 vocabulary, where it pads), which the model's own config does not name.
    this.eosIds = model.tokens.eos === null ? [] : [model.tokens.eos as unknown as number];
    this.vocabSize = [...model.iterateAllTokens()].length;
  }

  static async create(
    _lib: LlamaCppModule,
    llama: Llama,
    model: LlamaModel,
    options: { id: string; threads: number; sequences?: number; batchSize?: number },
    plan: ContextPlan,
  ): Promise<LlamaCppLM> {
    // One cell more than the model reads: node-llama-cpp keeps a free cell and shifts the context (erasing its start)
    // before filling the last one, which moved the scores of a full-length request.
    const contextSize = model.trainContextSize + 1;
    const vocab = [...model.iterateAllTokens()].length;
    const auto = plan(kvBytesPerSequence(model, contextSize), contextSize, vocab);
    const sequences = options.sequences ?? auto.sequences;
    const context = await model.createContext({
      contextSize,
      sequences,
      batchSize: options.batchSize ?? auto.batchSize,
      threads: options.threads,
      flashAttention: false,
      experimentalKvCacheKeyType: 'F32',
      experimentalKvCacheValueType: 'F32',
    });
    rawProbabilities(context);
    const pool = new SequencePool(Array.from({ length: sequences }, () => context.getSequence()));
    return new LlamaCppLM(options.id, llama, model, context, pool);
  }

  encode(text: string): number[] {
    return this.model.tokenize(text, true) as unknown as number[];
  }

  decode(ids: readonly number[]): string {
    return this.model.detokenize(ids as unknown as Token[], true);
  }

  /** Whether `id` is a real token of the tokenizer (not an UNUSED "[PAD…]" slot of a padded vocabulary). */
  hasToken(id: number): boolean {
    return id >= 0 && id < this.vocabSize && !this.model.getTokenAttributes(id as Token).unused;
  }

  async score(batch: readonly ScoreRequest[]): Promise<ScoreResult[]> {
    return Promise.all(batch.map((request) => this.pool.with((seq) => this.scoreOne(seq, request))));
  }

  private async scoreOne(seq: LlamaContextSequence, request: ScoreRequest): Promise<ScoreResult> {
    const { ids, probe } = request;
    this.checkIds(ids, 'score');
    const n = ids.length;
    const upTo = Math.min(request.upTo ?? n, n);
    const tokenLogProbs = new Float32Array(n);
    const probeLogProbs = probe === undefined ? undefined : new Float32Array(n);
    // Position p's probabilities give tokenLogProbs[p + 1] and probeLogProbs[p].
    const first = Math.max(0, (request.from ?? 0) - 1);
    const last = probe === undefined ? upTo - 2 : upTo - 1;
    if (last >= first) {
      const rows = await this.evaluate(seq, ids.slice(0, last + 1), first);
      for (let p = first; p <= last; p++) {
        const row = rows[p - first];
        if (p + 1 < upTo) tokenLogProbs[p + 1] = logProb(row, ids[p + 1]);
        if (probeLogProbs) probeLogProbs[p] = logProb(row, probe!);
      }
    }
    return probeLogProbs ? { tokenLogProbs, probeLogProbs } : { tokenLogProbs };
  }

  /**
   * Puts `ids` in `seq` (reusing its cached common prefix, up to `first`) and returns the next-token probabilities
   * at positions first..ids.length − 1.
   */
  private evaluate(seq: LlamaContextSequence, ids: readonly number[], first: number): Promise<Distribution[]> {
    return this.oneAtATime(() => this.evaluateNow(seq, ids, first));
  }

  /**
   * Runs `f` (a sequence's erase and evaluation) after every evaluation started before it has finished. node-llama-cpp
   * 3.21.1 decodes the evaluations of several sequences in flight together in one shared batch, and there a
   * sequence's probabilities were intermittently not its own: p_i of one document's windows changed with the
   * documents scored beside it, by factors of 3 to 16 (measured against ONNX Runtime over corpus/sample.jsonl with 8
   * sequences: 1 to 6 documents of 30 wrong per pass, a different set each pass; with 1 sequence, or one evaluation at
   * a time, none). The sequences stay: each keeps its own KV cache, reused past the common prefix.
   */
  private oneAtATime<T>(f: () => Promise<T>): Promise<T> {
    const run = this.evaluating.then(f, f);
    this.evaluating = run.catch(() => undefined);
    return run;
  }

  private async evaluateNow(seq: LlamaContextSequence, ids: readonly number[], first: number): Promise<Distribution[]> {
    const cached = seq.contextTokens as unknown as number[];
    let common = 0;
    while (common < first && common < cached.length && cached[common] === ids[common]) common++;
    if (common < seq.nextTokenIndex) await seq.eraseContextTokenRanges([{ start: common, end: seq.nextTokenIndex }]);
    const input = ids.slice(common).map((token, i) => (common + i >= first ? ([token, { generateNext: { probabilities: true } }] as const) : token));
    const out = await seq.controlledEvaluate(input as Parameters<LlamaContextSequence['controlledEvaluate']>[0]);
    const rows: Distribution[] = [];
    for (let p = first; p < ids.length; p++) rows.push(distribution(out[p - common], p));
    return rows;
  }

  async sample(prompt: readonly number[], options: SampleOptions): Promise<Sample[]> {
    const { n, seed } = options;
    const temperature = options.temperature ?? 1;
    if (prompt.length === 0) throw new Error('sample: the prompt is empty; pass at least one token');
    if (!(temperature >= 0)) throw new Error(`sample: temperature must be ≥ 0, got ${temperature}`);
    this.checkIds(prompt, 'sample: prompt');
    if (prompt.length >= this.maxLength) throw new Error(`sample: the prompt has ${prompt.length} tokens; the model accepts at most ${this.maxLength} in all`);
    const steps = Math.min(options.maxNewTokens, this.maxLength - prompt.length);
    if (n <= 0) return [];
    const samples: Sample[] = Array.from({ length: n }, () => ({ text: '', stopped: false }));
    if (steps <= 0) return samples;
    const state: SampleRowsState = {
      temperature, topK: options.topK ?? 0, stop: options.stop, alive: options.alive,
      rngs: rowSeeds(seed, n).map(mulberry32), samples,
      generated: new Map(Array.from({ length: n }, (_, row) => [row, [] as number[]])),
      continuation: continuationDecoder(this, prompt), eosTokenIds: this.eosIds, hasToken: (id) => this.hasToken(id),
    };
    // Row r runs on lane r mod lanes; each lane decodes its rows one after another on one sequence, the lanes in
    // turn (oneAtATime: one evaluation at a time).
    const lanes = Math.min(n, this.pool.size);
    await Promise.all(Array.from({ length: lanes }, (_, lane) => this.pool.with(async (seq) => {
      for (let row = lane; row < n; row += lanes) await this.sampleRow(seq, prompt, row, steps, state);
    })));
    // The ids drawn, as the ONNX sampler reports them (Sample.ids).
    for (let row = 0; row < n; row++) samples[row].ids = state.generated.get(row);
    return samples;
  }

  private async sampleRow(seq: LlamaContextSequence, prompt: readonly number[], row: number, steps: number, state: SampleRowsState): Promise<void> {
    let [probabilities] = await this.evaluate(seq, prompt, prompt.length - 1);
    for (let step = 0; step < steps; step++) {
      const token = stepSampleRow(row, logProbRow(probabilities, this.vocabSize), state);
      if (token === undefined || step === steps - 1) return;
      const out = await this.oneAtATime(() => seq.controlledEvaluate([[token as Token, { generateNext: { probabilities: true } }]]));
      probabilities = distribution(out[0], seq.nextTokenIndex - 1);
    }
  }

  async openDecoder(prompt: readonly number[]): Promise<DecodeState> {
    if (prompt.length === 0) throw new Error('openDecoder: the prompt is empty; pass at least one token');
    this.checkIds(prompt, 'openDecoder: prompt');
    const seq = await this.pool.acquire();
    let released = false;
    let length = 0;
    const state = {
      logits: new Float32Array(0) as Float32Array,
      get length() {
        return length;
      },
      feed: async (ids: readonly number[]): Promise<void> => {
        if (ids.length === 0) return;
        if (released) throw new Error('openDecoder: this state was released');
        this.checkIds(ids, 'openDecoder: fed tokens');
        if (length + ids.length > this.maxLength) throw new Error(`openDecoder: ${length + ids.length} tokens; the model accepts at most ${this.maxLength}`);
        const all = [...(seq.contextTokens as unknown as number[]), ...ids];
        const [probabilities] = await this.evaluate(seq, all, all.length - 1);
        length = all.length;
        state.logits = logProbRow(probabilities, this.vocabSize);
      },
      release: () => {
        if (released) return;
        released = true;
        this.pool.release(seq);
      },
    };
    try {
      await this.oneAtATime(() => seq.clearHistory());
      await state.feed(prompt);
    } catch (error) {
      state.release();
      throw error;
    }
    return state;
  }

  /** Frees the context, the model and the llama.cpp instance (LoadedLM.release of the backend registry). */
  async release(): Promise<void> {
    await this.context.dispose();
    await this.model.dispose();
    await this.llama.dispose();
  }

  private checkIds(ids: readonly number[], what: string): void {
    for (const id of ids) {
      if (!Number.isInteger(id) || id < 0 || id >= this.vocabSize) throw new Error(`${what}: token id ${id} is outside the model's ${this.vocabSize} ids`);
    }
    if (ids.length > this.maxLength) throw new Error(`${what}: ${ids.length} tokens; the model accepts at most ${this.maxLength}`);
  }
}

/**
 * One position's next-token distribution as the addon returns it, with its float32 normaliser corrected: the addon
 * divides every exp(l − max) by one float32 sum over the vocabulary, whose rounding grows with the vocabulary (3.2e-4
 * nats at 49,152 tokens, measured) and shifts every log p alike; the returned probabilities summed in float64 give
 * that shift back, so log p = log p̃ − log Σ p̃ is float32-exact per entry.
 */
interface Distribution {
  /** [token, p̃, token, p̃, …], 2·V numbers, the addon's order (most probable first). */
  pairs: readonly number[];
  /** log Σ p̃ over the vocabulary, in float64 (summed in the addon's order). */
  logNorm: number;
}

/** What controlledEvaluate puts at a position asked for probabilities: the raw pairs, in `confidence` (rawProbabilities). */
type EvaluateOutput = { next: { confidence?: unknown } } | undefined;

function distribution(output: EvaluateOutput, position: number): Distribution {
  const pairs = output?.next.confidence;
  if (!(pairs instanceof RawPairs)) throw new Error(`llama.cpp returned no probabilities at position ${position}`);
  let sum = 0;
  for (let i = 1; i < pairs.values.length; i += 2) sum += pairs.values[i];
  return { pairs: pairs.values, logNorm: Math.log(sum) };
}

/** log p of `token` (FLOAT32_LOG_FLOOR where it underflowed to 0 or is absent). */
function logProb(row: Distribution, token: number): number {
  const { pairs } = row;
  for (let i = 0; i < pairs.length; i += 2) {
    if (pairs[i] === token) return pairs[i + 1] > 0 ? Math.log(pairs[i + 1]) - row.logNorm : FLOAT32_LOG_FLOOR;
  }
  return FLOAT32_LOG_FLOOR;
}

/** [V] log-probabilities. */
function logProbRow(row: Distribution, V: number): Float32Array {
  const out = new Float32Array(V).fill(FLOAT32_LOG_FLOOR);
  const { pairs } = row;
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i] < V && pairs[i + 1] > 0) out[pairs[i]] = Math.log(pairs[i + 1]) - row.logNorm;
  return out;
}

/** The addon's flat [token, p̃, …] array, marked so it cannot be mistaken for a confidence number. */
class RawPairs {
  constructor(readonly values: readonly number[]) {}
}

type SampleToken = (index: number, sampler: unknown, probabilities?: boolean, confidence?: boolean) => Promise<unknown>;

/**
 * Makes `context`'s controlledEvaluate hand back the addon's flat probability array instead of the Map it builds from
 * it (node-llama-cpp 3.21.1 LlamaContext.js reviveTokenProbabilities: a Map of V entries per position, then walked
 * again here — the measured bulk of the JS-side cost). The context's addon handle (`_ctx`, internal) has its
 * sampleToken wrapped for this context only: where probabilities are asked for, the array is returned in the
 * confidence slot (which controlledEvaluate passes through untouched) and the probabilities slot is left empty, so no
 * Map is built. Nothing else in this context asks for confidence. Throws one line if the package's internals moved.
 */
function rawProbabilities(context: LlamaContext): void {
  const addon = (context as unknown as { _ctx?: { sampleToken?: SampleToken } })._ctx;
  const original = addon?.sampleToken;
  if (typeof original !== 'function') throw new Error('node-llama-cpp: LlamaContext._ctx.sampleToken is not where 3.21.1 has it; install node-llama-cpp@3.21.1');
  // An own property of this addon object (the prototype's method is read-only, so it is defined, not assigned).
  const sampleToken: SampleToken = async (...args) => {
    const [index, sampler, probabilities] = args;
    if (probabilities !== true) return original.apply(addon, args);
    const [token, pairs] = (await original.call(addon, index, sampler, true, false)) as [number, number[] | undefined];
    return [token, undefined, pairs === undefined ? undefined : new RawPairs(pairs)];
  };
  Object.defineProperty(addon, 'sampleToken', { value: sampleToken });
}

/** Bytes of a float32 KV cache for one sequence of `contextSize` tokens, from the GGUF's architecture metadata. */
function kvBytesPerSequence(model: LlamaModel, contextSize: number): number {
  const a = model.fileInfo.architectureMetadata as Record<string, unknown> & { attention?: Record<string, unknown> };
  const num = (v: unknown, fallback: number) => (typeof v === 'number' ? v : fallback);
  const layers = num(a.block_count, 1);
  const embd = num(a.embedding_length, 1);
  const heads = num(a.attention?.head_count, 1);
  const kvHeads = num(a.attention?.head_count_kv, heads);
  const headDim = num(a.attention?.key_length, embd / heads);
  return 2 * layers * contextSize * kvHeads * headDim * 4;
}
