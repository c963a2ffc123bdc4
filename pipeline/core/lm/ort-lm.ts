/**
 * `CausalLM` on ONNX Runtime, for Node and the browser alike: the `ort` module is passed in
 * (onnxruntime-node or onnxruntime-web: the same InferenceSession / Tensor API), with the model bytes,
 * config.json and tokenizer.json — no file system, no platform checks.
 *
 * The model is any Hugging Face ONNX decoder with a KV cache in the Optimum layout (input_ids, attention_mask,
 * [position_ids], past_key_values.{i}.key|value → logits, present.{i}.key|value): GPT-2, SmolLM2, Qwen2, …
 *
 * This file is the factory and the tokenizer's front (text-tokenizer.ts): create() makes the sessions, checks the graph's inputs and outputs
 * against config.json (ort-decoder-spec.ts), chooses the log-prob path and checks it. The work is done by
 * - ort-scorer.ts: score(), teacher-forced log-probs in length-bucketed batches;
 * - ort-decoder.ts: sample() and openDecoder(), KV-cache stepping and sampling;
 * both over ort-graph.ts, one run of the decoder graph.
 */
import { buildLogProbGatherOnnx, buildScoringDecoderOnnx } from '../../onnx/logprob-graph.ts';
import { withHiddenStateOutput } from '../../onnx/hidden-state.ts';
import type { CausalLM, DecodeState, HiddenStates, Sample, SampleOptions, ScoreRequest, ScoreResult } from './lm.ts';
import { checkSession, decoderSpecFromConfig, type DecoderSpec } from './ort-decoder-spec.ts';
import { type CacheStats, OrtDecoder } from './ort-decoder.ts';
import { DecoderGraph, presentNames } from './ort-graph.ts';
import { floatRows, readDecoderIO } from './ort-graph-io.ts';
import { type OrtModule, type OrtSession, toInt64 } from './ort-runtime.ts';
import { OrtScorer, type ScoreBatchShape } from './ort-scorer.ts';
import { TextTokenizer } from './text-tokenizer.ts';

export type { OrtModule, OrtSession, OrtTensor, OrtValueMetadata } from './ort-runtime.ts';
export type { ScoreBatchShape } from './ort-scorer.ts';
export { logSoftmaxGather, pickToken, rowSeeds } from './token-math.ts';

export interface OrtCausalLMOptions {
  /** Recorded as `CausalLM.id` (a path or a name). */
  id: string;
  /** The decoder's ONNX bytes (onnx/model.onnx). */
  model: Uint8Array;
  /** The file the bytes came from, for errors. @default "onnx/model.onnx" */
  file?: string;
  /**
   * Set when ONNX Runtime can also read `model` as an external-data file of this name (Node: sessionOptions
   * `extra.session.model_external_initializers_file_folder_path` is its folder; browser: sessionOptions.externalData
   * holds { path: weightsFile, data: model }). The one-session scoring graph then references the weights in it
   * instead of carrying a re-encoded copy.
   */
  weightsFile?: string;
  /** Parsed config.json. */
  config: Record<string, unknown>;
  /** Parsed tokenizer.json. */
  tokenizer: Record<string, unknown>;
  /** Parsed generation_config.json, when there is one (its eos_token_id ends generation too). */
  generationConfig?: Record<string, unknown>;
  /** Parsed tokenizer_config.json, when there is one. */
  tokenizerConfig?: Record<string, unknown>;
  /** Passed to `InferenceSession.create` for both sessions (threads, execution providers, optimisation level). */
  sessionOptions?: Record<string, unknown>;
  /**
   * Where the decoder keeps its KV cache between steps. "gpu-buffer" (pass it only with the WebGPU execution
   * provider) asks the session for present.{i}.key|value as GPU buffers (sessionOptions.preferredOutputLocation) and
   * feeds them straight back as past_key_values, as Transformers.js does on WebGPU: no round trip through JavaScript
   * per token; each replaced cache is disposed. @default "cpu"
   */
  cacheLocation?: 'cpu' | 'gpu-buffer';
  /** Most sequences per forward pass in score(). @default 16 */
  maxBatchRows?: number;
  /** Most padded tokens (rows × longest row) per forward pass in score(). @default scoreBatchTokens(config) */
  maxBatchTokens?: number;
  /**
   * Where score() turns hidden states into log-probs:
   * - "head": a scoring copy of the decoder with the LM head, log-softmax and gather inside (only the positions read
   *   are computed; logits never come back to JavaScript) — one session that also decodes: the weights are held once.
   * - "graph": the decoder's full logits come back and go through a second tiny log-softmax + gather graph.
   * - "js": the reference path, log-softmax in JavaScript (~10× slower on a 4k vocabulary).
   * "head" falls back to "graph" when the graph has no `logits` output it can rewrite. @default "head"
   */
  logProbs?: 'head' | 'graph' | 'js';
  /**
   * Also output the LM head's input h (onnx/hidden-state.ts): `hiddenStates(ids)` and every decoding state's
   * `hidden` then work (HiddenStateLM, for toolkens). Off by default: nothing else changes with it on but an extra
   * [B, T, C] copy per run. @default false
   */
  hiddenStates?: boolean;
}

/** Rows of logits are never larger than this many bytes per forward pass (keeps memory flat on big vocabularies). */
const MAX_LOGITS_BYTES = 16 * 1024 * 1024;

/**
 * Activations one score() forward pass may hold, bytes: ONNX Runtime's arena keeps a pass's peak for the session's
 * life, so this is memory the process holds beside the weights (issue 28: peak RSS ≤ 1.5× the fp32 file at 135M).
 */
const SCORE_ACTIVATION_BYTES = 64 * 2 ** 20;

/**
 * Activation bytes per token per unit of the layer's widths (hidden + MLP inner), measured on the 135M shape (576 +
 * 1,536): a 4,096-token pass took the process from 674 to 995 MiB, 2,048 to 842, 1,024 to 756.
 */
const ACTIVATION_BYTES_PER_WIDTH = 40;

/**
 * Default `maxBatchTokens`: as many tokens as SCORE_ACTIVATION_BYTES allows at the model's widths, 256 to 4,096 — the
 * 135M shape 794, the bundled model 1,310 (`npm start` there: the same CPU and byte-identical files as at 4,096). In one
 * process smaller passes are not slower (135M, pre-packed weights: 0.171 CPU s per ~110-token sequence with 794-token
 * passes, 0.184 with 1,588). Larger passes looked cheaper in `npm start` only while weight pre-packing was off and
 * every pass re-packed the weights (load-model.ts; pipeline/bench/results/old-vs-new-start-135m*.md).
 */
export function scoreBatchTokens(config: Record<string, unknown>): number {
  const hidden = configNumber(config, 'hidden_size', 'n_embd');
  if (hidden === undefined) return 4096;
  const inner = configNumber(config, 'intermediate_size', 'n_inner') ?? 4 * hidden;
  return Math.max(256, Math.min(4096, Math.floor(SCORE_ACTIVATION_BYTES / (ACTIVATION_BYTES_PER_WIDTH * (hidden + inner)))));
}

/** The first of config.json's `keys` that holds a positive number (Llama and GPT-2 name the same width differently). */
function configNumber(config: Record<string, unknown>, ...keys: string[]): number | undefined {
  return keys.map((k) => config[k]).find((x): x is number => typeof x === 'number' && x > 0);
}

/** Most |head − full-logits| log-prob difference (nats) the "head" path's self-check accepts. */
const HEAD_CHECK_TOLERANCE = 1e-3;

export class OrtCausalLM implements CausalLM {
  readonly maxLength: number;
  /** config.json's `bos_token_id` (GPT-2: <|endoftext|>); the scorer puts it before every sequence. */
  readonly bosId: number | undefined;
  /** config.json's and generation_config.json's `eos_token_id`s (DecoderSpec.eosTokenIds). */
  readonly eosIds: readonly number[];
  readonly spec: DecoderSpec;
  /** sample() and openDecoder(): KV-cache stepping over the same decoder session. */
  private readonly decoder: OrtDecoder;

  private constructor(
    readonly id: string,
    private readonly graph: DecoderGraph,
    private readonly tokenizer: TextTokenizer,
    private readonly scorer: OrtScorer,
    bosId: number | undefined,
    /** config.json's hidden_size / n_embd (the width of the LM head's input). */
    private readonly width = 0,
  ) {
    this.spec = graph.spec;
    this.maxLength = graph.spec.maxLength;
    this.bosId = bosId;
    this.eosIds = graph.spec.eosTokenIds;
    this.decoder = new OrtDecoder(graph, this);
  }

  /**
   * Called once per score() forward pass with its shape: `rows` × `length` padded tokens, of which `tokens` are
   * real (benchmarks replay these shapes on a bare session to measure the runtime's limit).
   */
  get onScoreBatch(): ((batch: ScoreBatchShape) => void) | undefined {
    return this.scorer.onScoreBatch;
  }
  set onScoreBatch(callback: ((batch: ScoreBatchShape) => void) | undefined) {
    this.scorer.onScoreBatch = callback;
  }

  static async create(ort: OrtModule, options: OrtCausalLMOptions): Promise<OrtCausalLM> {
    const spec = decoderSpecFromConfig(options.config, options.generationConfig);
    const tokenizer = new TextTokenizer(options.tokenizer, options.tokenizerConfig);
    const file = options.file ?? 'onnx/model.onnx';
    const mode = options.logProbs ?? 'head';
    const cacheOnDevice = options.cacheLocation === 'gpu-buffer';
    // The decoder session's options: the cache outputs stay on the device when asked (the gather session has none).
    const decoderOptions = cacheOnDevice
      ? { ...options.sessionOptions, preferredOutputLocation: Object.fromEntries(presentNames(spec.numLayers).map((n) => [n, 'gpu-buffer'])) }
      : options.sessionOptions;
    // "head": ONE session whose graph both decodes and scores (buildScoringDecoderOnnx keepDecoderOutputs), so the
    // weights are held once. A graph this rewrite does not understand loads as it is, on the "graph" path.
    const combined =
      mode === 'head'
        ? tryOrNull(() => buildScoringDecoderOnnx(options.model, { keepDecoderOutputs: true, weightsFile: options.weightsFile, hiddenStates: options.hiddenStates }))
        : null;
    // The graph as it is, or with hidden_states added (the weights stay where they are: weightsFile, or referenced bytes).
    const plain = options.hiddenStates ? withHiddenStateOutput(options.model, { weightsFile: options.weightsFile }) : options.model;
    if (!plain) throw new Error(`${file}: hidden states asked for, but the node making "logits" is not an LM head this runtime recognises (MatMul, Gemm, MatMulNBits, MatMulBnb4, dynamic-quant MatMulInteger)`);
    let session = combined ? await ort.InferenceSession.create(combined, decoderOptions).catch(() => null) : null;
    const scoring = session !== null;
    session ??= await ort.InferenceSession.create(plain, decoderOptions).catch((error: unknown) => {
      throw new Error(`${file}: ${error instanceof Error ? error.message : String(error)}`);
    });
    let io;
    try {
      checkSession(session, spec, file);
      io = readDecoderIO(session, file, session.outputMetadata, scoring ? SCORING_INPUTS : []);
    } catch (error) {
      await session.release();
      throw error;
    }
    const gather = await ort.InferenceSession.create(buildLogProbGatherOnnx(io.logitsType), options.sessionOptions);
    const vocabSize = typeof options.config.vocab_size === 'number' ? options.config.vocab_size : undefined;
    const bosId = bosTokenId(options.config, options.tokenizerConfig);
    const graph = new DecoderGraph(ort, session, spec, io, vocabSize, cacheOnDevice);
    // Full logits come back for every token forwarded — except with the in-graph head, which bounds the rows read.
    const logitsRows = vocabSize ? Math.max(1, Math.floor(MAX_LOGITS_BYTES / 4 / vocabSize)) : Infinity;
    const limits = (withHead: boolean) => ({
      maxBatchRows: options.maxBatchRows ?? 16,
      maxBatchTokens: Math.max(1, Math.min(options.maxBatchTokens ?? scoreBatchTokens(options.config), withHead ? Infinity : logitsRows)),
      maxRowsRead: withHead && Number.isFinite(logitsRows) ? logitsRows : undefined,
    });
    const width = configNumber(options.config, 'hidden_size', 'n_embd') ?? 0;
    const make = (scorer: OrtScorer) => new OrtCausalLM(options.id, graph, tokenizer, scorer, bosId, width);
    if (scoring) {
      const withHead = new OrtScorer(graph, { head: session, gather: null, ...limits(true) });
      // float16 logits: both paths round the same float16 products, summed in a different order.
      const tolerance = io.logitsType === 'float16' ? 5e-2 : HEAD_CHECK_TOLERANCE;
      if (await headAgrees(withHead, new OrtScorer(graph, { head: null, gather, ...limits(false) }), vocabSize, tolerance)) {
        await gather.release();
        return make(withHead);
      }
      // The same session serves the full-logits path (score_rows empty, num_logits_to_keep 0).
    }
    if (mode === 'js') {
      await gather.release();
      return make(new OrtScorer(graph, { head: null, gather: null, ...limits(false) }));
    }
    return make(new OrtScorer(graph, { head: null, gather, ...limits(false) }));
  }

  /** Decoding runs so far (sample, openDecoder) and how many kept their KV cache on the device. */
  get cacheStats(): Readonly<CacheStats> {
    return this.decoder.stats;
  }

  /** Cache and logits types and optional inputs, read from the session (ort-graph-io.ts). */
  get io() {
    return this.graph.io;
  }

  /** Forward passes of shared prefixes (ScoreRequest.sharedPrefix) so far: once per prompt, while it stays cached. */
  get prefixForwards(): number {
    return this.scorer.prefixes.forwards;
  }

  /** Where score() makes log-probs: "head" is the one session that also decodes (OrtCausalLMOptions.logProbs). */
  get logProbPath(): 'head' | 'graph' | 'js' {
    return this.scorer.path;
  }

  encode(text: string): number[] {
    return this.tokenizer.encode(text);
  }

  /** Exact inverse of encode() (no clean-up of spaces before punctuation, special tokens kept). */
  decode(ids: readonly number[]): string {
    return this.tokenizer.decode(ids);
  }

  /** Whether the tokenizer has this id (the model's vocabulary can be larger: rows padded past the tokenizer's). */
  hasToken(id: number): boolean {
    return this.tokenizer.hasToken(id);
  }

  score(batch: readonly ScoreRequest[]): Promise<ScoreResult[]> {
    return this.scorer.score(batch);
  }

  sample(prompt: readonly number[], options: SampleOptions): Promise<Sample[]> {
    return this.decoder.sample(prompt, options);
  }

  openDecoder(prompt: readonly number[]): Promise<DecodeState> {
    return this.decoder.open(prompt);
  }

  /** C, the length of the LM head's input h; 0 when the model was loaded without hidden states. */
  get hiddenSize(): number {
    return this.graph.hasHiddenStates ? this.width : 0;
  }

  /**
   * HiddenStateLM.hiddenStates: one forward pass of `ids` (batch 1, no cache): h [T × C] and the logits [T × V].
   * Needs the model loaded with `hiddenStates: true`.
   */
  async hiddenStates(ids: readonly number[]): Promise<HiddenStates> {
    if (!this.graph.hasHiddenStates) throw new Error(`${this.id}: loaded without hidden states (pass hiddenStates: true)`);
    if (ids.length === 0) throw new Error('hiddenStates: no tokens');
    this.graph.checkIds(ids, 'hiddenStates');
    const out = await this.graph.forward(toInt64(ids), 1, ids.length, null, false, 0, undefined, 0);
    const hidden = Float32Array.from(floatRows(out.hidden_states));
    const logits = Float32Array.from(floatRows(out.logits));
    return { hidden, logits, hiddenSize: out.hidden_states.dims[2], vocabSize: out.logits.dims[2] };
  }

  /** Frees the ONNX Runtime sessions. */
  async release(): Promise<void> {
    await this.graph.session.release();
    await this.scorer.release();
  }
}

/**
 * The "head" path's self-check. The rewrite assumed a [B, T, C] hidden state before a MatMul head; check it on two
 * short rows against the full-logits path before trusting it: false when the two disagree or the scoring graph fails.
 */
async function headAgrees(withHead: OrtScorer, fullLogits: OrtScorer, vocabSize: number | undefined, tolerance: number): Promise<boolean> {
  const ids = [0, 1, 2, 3].map((i) => i % (vocabSize ?? 1));
  const requests: ScoreRequest[] = [{ ids }, { ids: ids.slice(0, 3), probe: ids[1] }];
  return Promise.all([withHead.score(requests), fullLogits.score(requests)]).then(
    ([a, b]) =>
      a.every((r, i) =>
        [...r.tokenLogProbs, ...(r.probeLogProbs ?? [])].every((x, j) => {
          const y = [...b[i].tokenLogProbs, ...(b[i].probeLogProbs ?? [])][j];
          return Number.isFinite(x) && Math.abs(x - y) <= tolerance;
        }),
      ),
    () => false,
  );
}

/** The inputs buildScoringDecoderOnnx adds (fed empty on decoding runs). */
const SCORING_INPUTS = ['score_rows', 'score_ids'];

/**
 * The BOS id the scorer prepends: config.json's `bos_token_id`, unless tokenizer_config.json says the tokenizer
 * has no BOS token (`"bos_token": null`: Qwen2 / Qwen2.5, whose config.json still names <|endoftext|>).
 */
export function bosTokenId(config: Record<string, unknown>, tokenizerConfig?: Record<string, unknown>): number | undefined {
  if (tokenizerConfig && 'bos_token' in tokenizerConfig && tokenizerConfig.bos_token === null) return undefined;
  return typeof config.bos_token_id === 'number' ? config.bos_token_id : undefined;
}

function tryOrNull<T>(make: () => T | null): T | null {
  try {
    return make();
  } catch {
    return null;
  }
}
