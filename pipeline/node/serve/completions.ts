/**
 * `POST /v1/completions` of `toolformer serve` over any CausalLM: vLLM's request and answer shapes
 * (lm-backends/server/protocol.ts), checked field by field — a bad request is a 400 with OpenAI's error body, never a
 * crash or an unbounded allocation. Scoring is the LM's own score() (the prompt tokens' log-probs, and with the
 * `probe_token_id` extension p_i at every position, exactly); `prompt_logprobs: k > 0` needs the full distribution,
 * from a backend with hidden states (the ONNX one loads them for serving); generation is the LM's own sample(), so a
 * client replaying the returned ids gets what an in-process run would.
 */
import type { CausalLM, HiddenStateLM, ScoreRequest } from '../../core/lm/lm.ts';
import { logPartition } from '../../core/lm/token-math.ts';
import type { CompletionChoice, CompletionRequest, CompletionResponse, PromptLogprobs } from '../model/lm-backends/server/protocol.ts';

/** Limits of one request (vLLM's default --max-logprobs is 20). */
export const SERVE_LIMITS = { maxLogprobs: 20, maxN: 1024, maxPrompts: 256 } as const;

/** A request the server refuses: HTTP 400 with this message. */
export class BadRequest extends Error {}

/**
 * @param distributions the model with its full next-token distributions (a HiddenStateLM), made on first use: only
 *   `prompt_logprobs` k > 0 needs it; undefined when the backend cannot give them.
 */
export async function completions(lm: CausalLM, served: string, raw: unknown, distributions?: () => Promise<HiddenStateLM | undefined>): Promise<CompletionResponse> {
  const request = checkRequest(lm, served, raw);
  const prompts = request.prompts;
  const choices: CompletionChoice[] = [];
  // Every prompt scored in one score() call: the backend batches them (and shares their common prefixes).
  const scored = request.scorePrompt ? await scorePrompts(lm, prompts, request, distributions) : prompts.map(() => ({}));
  for (let i = 0; i < prompts.length; i++) {
    const ids = prompts[i];
    const drawn = request.maxTokens > 0 ? await lm.sample(ids, request.sampling) : Array.from({ length: request.n }, () => null);
    drawn.forEach((sample, j) => {
      const choice: CompletionChoice = {
        index: i * request.n + j,
        text: (request.echo ? lm.decode(ids) : '') + (sample?.text ?? ''),
        finish_reason: sample === null ? 'length' : sample.stopped ? 'stop' : (sample.ids?.length ?? 0) < request.maxTokens ? 'stop' : 'length',
        stop_reason: sample?.stopped ? request.sampling.stop : null,
        ...scored[i],
      };
      if (request.returnTokenIds && sample) {
        // The end-of-sequence id that ended a row is returned, as vLLM does.
        const ended = !sample.stopped && (sample.ids?.length ?? 0) < request.maxTokens && lm.eosIds.length > 0;
        choice.token_ids = [...(sample.ids ?? []), ...(ended ? [lm.eosIds[0]] : [])];
      }
      choices.push(choice);
    });
  }
  const promptTokens = prompts.reduce((s, p) => s + p.length, 0);
  const completionTokens = choices.reduce((s, c) => s + (c.token_ids?.length ?? 0), 0);
  return {
    id: `cmpl-${Date.now().toString(36)}`,
    object: 'text_completion',
    created: Math.floor(Date.now() / 1000),
    model: served,
    choices,
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

interface CheckedRequest {
  prompts: number[][];
  n: number;
  maxTokens: number;
  echo: boolean;
  returnTokenIds: boolean;
  promptLogprobs?: number;
  probe?: number;
  /** Per prompt: score()'s from / upTo / sharedPrefix (the score_hints extension). */
  hints: Pick<ScoreRequest, 'from' | 'upTo' | 'sharedPrefix'>[];
  scorePrompt: boolean;
  sampling: { n: number; maxNewTokens: number; stop: string; temperature: number; topK: number; seed: number };
}

function checkRequest(lm: CausalLM, served: string, raw: unknown): CheckedRequest {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new BadRequest('the body must be a JSON object');
  const r = raw as Partial<Record<keyof CompletionRequest, unknown>> & Record<string, unknown>;
  if (r.model !== undefined && r.model !== served) throw new BadRequest(`the model \`${String(r.model)}\` does not exist; this server serves \`${served}\``);
  if (r.stream === true) throw new BadRequest('stream is not supported');
  const prompts = promptsOf(lm, r.prompt);
  const n = int(r.n, 'n', 1, SERVE_LIMITS.maxN, 1);
  const maxTokens = int(r.max_tokens, 'max_tokens', 0, lm.maxLength, 16);
  const echo = bool(r.echo, 'echo');
  if (maxTokens === 0 && !echo) throw new BadRequest('max_tokens must be at least 1 unless echo is true');
  const promptLogprobs = r.prompt_logprobs === undefined || r.prompt_logprobs === null ? undefined : int(r.prompt_logprobs, 'prompt_logprobs', 0, SERVE_LIMITS.maxLogprobs, 0);
  const probe = r.probe_token_id === undefined || r.probe_token_id === null ? undefined : int(r.probe_token_id, 'probe_token_id', 0, 2 ** 31 - 1, 0);
  if (r.logprobs !== undefined && r.logprobs !== null) throw new BadRequest('logprobs (of generated tokens) is not supported; use prompt_logprobs');
  const stops = r.stop === undefined || r.stop === null ? [] : typeof r.stop === 'string' ? [r.stop] : Array.isArray(r.stop) && r.stop.every((s) => typeof s === 'string') ? (r.stop as string[]) : null;
  if (stops === null || stops.length > 1) throw new BadRequest('stop must be one string (a list of one)');
  const temperature = num(r.temperature, 'temperature', 0, 100, 1);
  const topK = r.top_k === -1 ? 0 : int(r.top_k, 'top_k', 0, 1 << 20, 0);
  const seed = int(r.seed, 'seed', 0, 2 ** 32 - 1, 0);
  for (const p of prompts) {
    if (p.length + maxTokens > lm.maxLength && maxTokens > 0) throw new BadRequest(`a prompt of ${p.length} tokens with max_tokens ${maxTokens} passes the model's ${lm.maxLength}-token context`);
    if (p.length > lm.maxLength) throw new BadRequest(`a prompt of ${p.length} tokens passes the model's ${lm.maxLength}-token context`);
  }
  return {
    prompts,
    n,
    maxTokens,
    echo,
    returnTokenIds: bool(r.return_token_ids, 'return_token_ids'),
    promptLogprobs,
    probe,
    hints: hintsOf(r.score_hints, prompts),
    scorePrompt: promptLogprobs !== undefined || probe !== undefined,
    sampling: { n, maxNewTokens: maxTokens, stop: stops[0] ?? '', temperature, topK, seed },
  };
}

/** score_hints, checked: one entry (or null) per prompt, each position within its prompt. */
function hintsOf(raw: unknown, prompts: number[][]): CheckedRequest['hints'] {
  if (raw === undefined || raw === null) return prompts.map(() => ({}));
  if (!Array.isArray(raw) || raw.length !== prompts.length) throw new BadRequest('score_hints must have one entry per prompt');
  return raw.map((h, i) => {
    if (h === null) return {};
    if (typeof h !== 'object') throw new BadRequest(`score_hints[${i}] must be an object`);
    const max = prompts[i].length;
    const at = (v: unknown, name: string) => (v === undefined || v === null ? undefined : int(v, `score_hints[${i}].${name}`, 0, max, 0));
    const hint = h as Record<string, unknown>;
    return { from: at(hint.from, 'from'), upTo: at(hint.up_to, 'up_to'), sharedPrefix: at(hint.shared_prefix, 'shared_prefix') };
  });
}

/** The prompt(s) as ids: token ids as vLLM takes them, or text encoded here. */
function promptsOf(lm: CausalLM, prompt: unknown): number[][] {
  const list = Array.isArray(prompt) && prompt.length > 0 && (Array.isArray(prompt[0]) || typeof prompt[0] === 'string') ? prompt : [prompt];
  if (list.length > SERVE_LIMITS.maxPrompts) throw new BadRequest(`at most ${SERVE_LIMITS.maxPrompts} prompts per request`);
  return list.map((p, i) => {
    const ids = typeof p === 'string' ? lm.encode(p) : p;
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => Number.isInteger(id) && id >= 0 && id < 2 ** 31)) {
      throw new BadRequest(`prompt ${i} must be a non-empty string or list of token ids`);
    }
    return ids as number[];
  });
}

/** prompt_logprobs (vLLM's shape: null, then per position the prompt token's log-prob and the top k) and probe_logprobs. */
async function scorePrompts(
  lm: CausalLM,
  prompts: number[][],
  request: CheckedRequest,
  distributions?: () => Promise<HiddenStateLM | undefined>,
): Promise<Pick<CompletionChoice, 'prompt_logprobs' | 'probe_logprobs'>[]> {
  const results = await lm.score(prompts.map((ids, i) => ({ ids, probe: request.probe, ...request.hints[i] })));
  const k = request.promptLogprobs ?? 0;
  return Promise.all(
    prompts.map(async (ids, i) => {
      const scored = results[i];
      const top = k > 0 ? await topLogprobs(lm, await distributions?.(), ids, k) : null;
      const prompt_logprobs: (PromptLogprobs | null)[] = [null];
      for (let t = 1; t < ids.length; t++) {
        const entry: PromptLogprobs = { ...(top?.[t - 1] ?? {}) };
        entry[String(ids[t])] ??= { logprob: scored.tokenLogProbs[t], decoded_token: lm.decode([ids[t]]) };
        prompt_logprobs.push(entry);
      }
      return { prompt_logprobs, ...(scored.probeLogProbs ? { probe_logprobs: Array.from(scored.probeLogProbs) } : {}) };
    }),
  );
}

/** Per position t, the k most likely next tokens after ids[0..t] (ranks 1..k), from the full distribution. */
async function topLogprobs(lm: CausalLM, hidden: HiddenStateLM | undefined, ids: number[], k: number): Promise<PromptLogprobs[]> {
  if (!hidden) throw new BadRequest('prompt_logprobs > 0 needs the full distribution, which this backend does not give; use prompt_logprobs 0 with probe_token_id');
  const { logits, vocabSize: V } = await hidden.hiddenStates(ids);
  const rows: PromptLogprobs[] = [];
  for (let t = 0; t < ids.length - 1; t++) {
    const row = logits.subarray(t * V, (t + 1) * V);
    const logZ = logPartition(row);
    const best = topIndices(row, k);
    const entry: PromptLogprobs = {};
    best.forEach((v, rank) => (entry[String(v)] = { logprob: row[v] - logZ, rank: rank + 1, decoded_token: lm.decode([v]) }));
    rows.push(entry);
  }
  return rows;
}

/** Indices of the k largest values, largest first (ties: the lower index first). */
function topIndices(row: Float32Array, k: number): number[] {
  const best: number[] = [];
  for (let v = 0; v < row.length; v++) {
    if (best.length === k && row[v] <= row[best[k - 1]]) continue;
    let at = best.length;
    while (at > 0 && row[best[at - 1]] < row[v]) at--;
    best.splice(at, 0, v);
    if (best.length > k) best.pop();
  }
  return best;
}

function int(value: unknown, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) throw new BadRequest(`${name} must be an integer in [${min}, ${max}]`);
  return value as number;
}

function num(value: unknown, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) throw new BadRequest(`${name} must be a number in [${min}, ${max}]`);
  return value;
}

function bool(value: unknown, name: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new BadRequest(`${name} must be true or false`);
  return value;
}
