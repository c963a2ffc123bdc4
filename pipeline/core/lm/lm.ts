/**
 * The causal LM as the pipeline sees it. One interface, many backends: onnxruntime-node
 * and onnxruntime-web alike (pipeline/core/lm/ort-lm.ts, the ort module passed in), fakes in tests. The
 * backend is passed in; core code never checks which platform it runs on.
 *
 * Token ids are plain numbers; log-probabilities are natural logs (nats).
 */
export interface CausalLM {
  /** Model identifier recorded in a run's config.json (path or name). */
  readonly id: string;
  /** Longest sequence the model accepts (GPT-2 `n_positions`). */
  readonly maxLength: number;
  /**
   * A token the scorer puts before every sequence so the first text token has a context
   * (GPT-2's `<|endoftext|>`); undefined when the model has none.
   */
  readonly bosId?: number;
  /**
   * The tokens that end a generation (config.json / generation_config.json `eos_token_id`, one or a list): generate()
   * stops on any of them. Empty when the model names none. Not the same as `bosId` in general (Qwen2, Llama, SmolLM2).
   */
  readonly eosIds: readonly number[];
  /** Text → token ids, without special tokens. */
  encode(text: string): number[];
  /** Token ids → text. */
  decode(ids: readonly number[]): string;
  /**
   * Teacher-forced scoring of a batch of sequences (one forward pass per batch where possible).
   * For each request, `tokenLogProbs[t] = log p(ids[t] | ids[0..t-1])` for t ≥ 1 and `tokenLogProbs[0] = 0`;
   * with `probe`, also `probeLogProbs[t] = log p(next = probe | ids[0..t])` for every t.
   * `upTo` (exclusive) lets a backend skip the forward pass past the last token a caller needs:
   * entries at t ≥ upTo are left 0. Shapes: Float32Array of length ids.length.
   */
  score(batch: readonly ScoreRequest[]): Promise<ScoreResult[]>;
  /**
   * Sample `n` continuations of `prompt`, each stopping when `stop` appears in its decoded text
   * (the stop string is not included) or after `maxNewTokens`. Deterministic for a given seed.
   */
  sample(prompt: readonly number[], options: SampleOptions): Promise<Sample[]>;
  /**
   * Step-by-step decoding with a KV cache (generate.ts): runs the prompt once and returns a state whose `logits`
   * predict the next token; `feed(ids)` appends tokens (chosen, or inserted like a tool result) in one forward pass.
   * Optional: backends without a cache may leave it out (generate() then refuses).
   */
  openDecoder?(prompt: readonly number[]): Promise<DecodeState>;
  /**
   * Decoding forward passes so far and how many kept their KV cache on the device (WebGPU), for the web app's
   * Inference panel. Optional: backends that do not count leave it out.
   */
  readonly cacheStats?: Readonly<{ forwards: number; onDevice: number }>;
}

export interface DecodeState {
  /** [vocab] logits of the next token after everything fed so far. */
  readonly logits: Float32Array;
  /**
   * [hidden] the LM head's input at the last position (the final normed hidden state the logits are made from);
   * present when the model was loaded with hidden states (HiddenStateLM).
   */
  readonly hidden?: Float32Array;
  /** Tokens in the cache (prompt + fed). */
  readonly length: number;
  /** Append tokens; throws past the model's maxLength. */
  feed(ids: readonly number[]): Promise<void>;
  /** Frees the cache now (a WebGPU cache holds GPU buffers the garbage collector does not free); feed() then throws. */
  release?(): void;
}

export interface ScoreRequest {
  ids: readonly number[];
  /** A token id whose next-token log-prob is wanted at every position (e.g. the id of " ["). */
  probe?: number;
  /** Exclusive end of the positions the caller reads; defaults to ids.length. */
  upTo?: number;
  /**
   * First position whose `tokenLogProbs` the caller reads (a hint): a backend may compute log-probs only from
   * there on and leave earlier entries 0 (`probeLogProbs` before from − 1 too: p_i reads only its window's rows);
   * one that ignores it returns more than was asked, which is still correct.
   */
  from?: number;
  /**
   * The first n ids are a prefix many requests share (a tool's fixed prompt), a hint: a backend may forward it once,
   * keep its KV cache and forward only the rest of each request on top of it. Results are the same within float
   * rounding; nothing below `from` − 1 is computed for it, so pass n ≤ from − 1 (a larger n is cut there).
   */
  sharedPrefix?: number;
}

export interface ScoreResult {
  /** [len] log p(ids[t] | ids[<t]); index 0 is 0. */
  tokenLogProbs: Float32Array;
  /** [len] log p(probe | ids[≤t]); present when the request had a probe. */
  probeLogProbs?: Float32Array;
}

export interface SampleOptions {
  n: number;
  maxNewTokens: number;
  /** Decoded-text stop string, e.g. "]". */
  stop: string;
  /** Softmax temperature; 0 means greedy. @default 1 */
  temperature?: number;
  /** Restrict sampling to the k most likely tokens. @default 0 (no restriction) */
  topK?: number;
  seed: number;
  /**
   * Whether a sample's decoded text so far can still become what the caller reads; a row whose text fails stops
   * there (`stopped: false`), saving its remaining steps (the probe: a text that can no longer parse as a call). With
   * `alive`, a row that draws an id its tokenizer lacks stops too, with the text it had before that id (the id
   * decodes to nothing, so the text would no longer be what the model wrote).
   */
  alive?: (text: string) => boolean;
}

export interface Sample {
  /** Decoded continuation, without the stop string. */
  text: string;
  /** True when the stop string was produced; calls that never close are dropped (paper §2). */
  stopped: boolean;
  /**
   * The ids drawn, an end-of-sequence id not included (what a server returns as token_ids: `toolformer serve`). Optional:
   * a backend that cannot say leaves it out.
   */
  ids?: readonly number[];
}

/**
 * A causal LM that also hands out the LM head's input h (the final normed hidden state): logits = h · W_vᵀ.
 * ToolkenGPT's toolkens are extra rows W_τ scored as h · W_τᵀ beside the vocabulary (core/toolkens/). The ONNX
 * runtime gets h from an extra graph output (onnx/hidden-state.ts), without copying the weights.
 */
export interface HiddenStateLM extends CausalLM {
  /** C, the length of h. */
  readonly hiddenSize: number;
  /** One teacher-forced forward pass over `ids`: h [T × C] and the vocabulary logits [T × V], row-major, per position. */
  hiddenStates(ids: readonly number[]): Promise<HiddenStates>;
  /** As CausalLM.openDecoder; every state has `hidden`. */
  openDecoder(prompt: readonly number[]): Promise<DecodeState & { readonly hidden?: Float32Array }>;
}

export interface HiddenStates {
  /** [T × C] row-major: h at each position (the state that predicts token t + 1). */
  hidden: Float32Array;
  /** [T × V] row-major: the vocabulary logits at each position. */
  logits: Float32Array;
  hiddenSize: number;
  vocabSize: number;
}
