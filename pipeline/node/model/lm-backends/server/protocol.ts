/**
 * The OpenAI-compatible completions protocol as vLLM serves it (vllm/entrypoints/openai/protocol.py, CompletionRequest
 * and CompletionResponse; the facts are recorded in vllm-protocol.fixture.json and checked by protocol.test.ts), the
 * subset this project sends and reads — by the server backend (server-lm.ts) and by `toolformer serve` (node/serve).
 *
 * vLLM's extensions used: token-id prompts (`prompt: number[] | number[][]`), `prompt_logprobs: k` (each prompt token's
 * log-prob plus the top k at every position; null at position 0), `top_k`, `seed`, `return_token_ids` (the ids
 * drawn, `choices[i].token_ids`), `stop_reason` (the stop string that ended a choice; null for end-of-sequence).
 *
 * Two extensions of this project's, which vLLM ignores (it accepts unknown fields with a warning): `probe_token_id`
 * asks for log p(probe | prompt[0..t]) at every position t of the prompt, returned as `choices[i].probe_logprobs`
 * (length = the prompt's). A server that answers it gives p_i exactly at every position; without it p_i comes from
 * the top-k (server-lm.ts says what that bounds).
 */

export interface CompletionRequest {
  model: string;
  /** Token ids: one prompt, or a batch. */
  prompt: number[] | number[][];
  max_tokens: number;
  temperature?: number;
  top_k?: number;
  n?: number;
  seed?: number;
  stop?: string[];
  /** vLLM: the top-k log-probs (and the prompt token's own) at every prompt position. */
  prompt_logprobs?: number;
  /** OpenAI: the top-k log-probs of each generated token (with `echo`, of the prompt's tokens too). */
  logprobs?: number;
  echo?: boolean;
  /** vLLM: `choices[i].token_ids`, the ids drawn. */
  return_token_ids?: boolean;
  /** vLLM: token strings in `logprobs` as "token_id:<id>". */
  return_tokens_as_token_ids?: boolean;
  /** This project's extension (see above). */
  probe_token_id?: number;
  /**
   * This project's extension: per prompt, CausalLM.score's hints (core/lm/lm.ts ScoreRequest: the first position read,
   * the exclusive end, the shared prefix's length), so a server running this project's scorer computes what an
   * in-process run computes — the same rounding included — and skips what nobody reads. Ignored by other servers.
   */
  score_hints?: ({ from?: number; up_to?: number; shared_prefix?: number } | null)[];
}

/** vLLM's per-position entry of `prompt_logprobs`: token id (as a JSON key) → its log-prob and rank. */
export type PromptLogprobs = Record<string, { logprob: number; rank?: number | null; decoded_token?: string | null }>;

export interface CompletionChoice {
  index: number;
  text: string;
  /** "stop" (stop string or end of sequence) or "length". */
  finish_reason: string | null;
  /** vLLM: the stop string that ended the choice; null at end of sequence or length. */
  stop_reason?: string | number | null;
  prompt_logprobs?: (PromptLogprobs | null)[] | null;
  /** OpenAI legacy logprobs (with echo: the prompt's tokens first). */
  logprobs?: {
    tokens?: string[];
    token_logprobs?: (number | null)[];
    top_logprobs?: (Record<string, number> | null)[] | null;
  } | null;
  token_ids?: number[] | null;
  prompt_token_ids?: number[] | null;
  /** This project's extension: log p(probe | prompt[0..t]) for every t. */
  probe_logprobs?: number[] | null;
}

export interface CompletionResponse {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  choices: CompletionChoice[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** `GET /v1/models`: vLLM adds `max_model_len`; `toolformer serve` adds what extensions it answers. */
export interface ModelCard {
  id: string;
  object: 'model';
  owned_by?: string;
  max_model_len?: number;
  toolformer?: { probe_logprobs: boolean };
}

/** `POST /tokenize` (at the server's root, not under /v1): vLLM's TokenizeCompletionRequest and its answer. */
export interface TokenizeRequest {
  model?: string;
  prompt: string;
  add_special_tokens?: boolean;
}
export interface TokenizeResponse {
  tokens: number[];
  count: number;
  max_model_len?: number;
}

/** `POST /detokenize`. */
export interface DetokenizeRequest {
  model?: string;
  tokens: number[];
}
export interface DetokenizeResponse {
  prompt: string;
}
