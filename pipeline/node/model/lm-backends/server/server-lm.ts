/**
 * CausalLM over an OpenAI-compatible inference server with prompt log-probs (vLLM, SGLang's OpenAI endpoint,
 * `toolformer serve`): the model runs there — on its GPUs, spread over its machines — and the pipeline here sends token
 * ids and reads log-probs, so the same losses and the same kept calls come out as in-process.
 *
 * - Text ↔ ids with the model's own tokenizer.json, here (core/lm/text-tokenizer.ts): prompts go as token ids, never
 *   re-tokenized. On start the server's tokenizer is checked against it (`/tokenize` on probe texts): a mismatch is
 *   refused in one line.
 * - score(): `prompt_logprobs` gives each prompt token's log-prob. p_i = log p(" [" | x_{≤t}) comes exactly from a
 *   server that answers the `probe_token_id` extension (`toolformer serve`, protocol.ts); otherwise from the top-k
 *   (`prompt_logprobs: k`, k = 20 by default, vLLM's cap): at one position at most ⌊1/τ_s⌋ tokens have p ≥ τ_s, so
 *   with k ≥ ⌈1/τ_s⌉ the probe is among the top k wherever p_i ≥ τ_s — exact there — and where it is absent, the k-th
 *   log-prob is an upper bound below log τ_s, which is what this returns. Tools sampled with τ_s = 0 (Calculator,
 *   Translate) rank every position by p_i; below the top k they are ranked by that bound (counted in `boundedPositions`).
 *   The probe at the last position is read by scoring the ids with the probe appended.
 * - sample(): `n`, `seed`, `temperature`, `top_k`, `stop`, `return_token_ids`; the ids the server drew are replayed
 *   through the sampler's own rules (core/lm/sample-rules.ts), so `alive` cuts a row where the in-process sampler
 *   would. The draws themselves are the server's: `toolformer serve` draws what the in-process sampler draws (it is
 *   that sampler), another server its own.
 * - No openDecoder(): `generate` needs a model in this process.
 */
import type { CausalLM, Sample, SampleOptions, ScoreRequest, ScoreResult } from '../../../../core/lm/lm.ts';
import { bosTokenId } from '../../../../core/lm/ort-lm.ts';
import { replaySample } from '../../../../core/lm/sample-rules.ts';
import { TextTokenizer } from '../../../../core/lm/text-tokenizer.ts';
import { continuationDecoder } from '../../../../core/lm/tokens.ts';
import { HttpClient, ServerError, type HttpClientOptions } from './http-client.ts';
import type { CompletionChoice, CompletionRequest, CompletionResponse, ModelCard, PromptLogprobs, TokenizeResponse } from './protocol.ts';

export interface ServerLMOptions {
  /** The server's OpenAI base URL, ending in /v1 ("http://gpu-1:8000/v1"). */
  baseUrl: string;
  /** `--served-model`: the model name the server knows; default: the only one it lists. */
  servedModel?: string;
  /** The model's folder files, read here: tokenizer.json (and tokenizer_config.json), config.json, generation_config.json. */
  files: { tokenizer: Record<string, unknown>; tokenizerConfig?: Record<string, unknown>; config: Record<string, unknown>; generationConfig?: Record<string, unknown> };
  /** Recorded as CausalLM.id (config.json of a run): the URL and the served model, never a key. */
  id?: string;
  http?: HttpClientOptions;
  /** k of `prompt_logprobs` when p_i comes from the top-k. @default 20 */
  topLogprobs?: number;
  /** Prompts per request. @default 16 */
  promptsPerRequest?: number;
  /** Use `probe_token_id` when the server says it answers it. @default true */
  useExtensions?: boolean;
  /** Where a warning goes, one line each. @default console.error */
  onWarning?: (line: string) => void;
}

/** Texts whose ids the server's tokenizer must give as ours does (words, numbers, the call syntax, spaces, Unicode). */
export const TOKENIZER_PROBES = [
  'The capital of France is Paris.',
  ' [Divide(400 / 1400) -> 0.29] of the vote',
  'In 1789, 13 states; 3.14159 × 2 = 6.28',
  '  two  spaces\tand a tab\nnew line',
  'Zürich, São Paulo, 東京, Москва — “quotes”',
];

export class ServerLM implements CausalLM {
  readonly id: string;
  readonly maxLength: number;
  readonly bosId: number | undefined;
  readonly eosIds: readonly number[];
  /** Positions whose p_i is the top-k bound, not exact (see above), since the LM was opened. */
  boundedPositions = 0;

  private constructor(
    private readonly http: HttpClient,
    private readonly tokenizer: TextTokenizer,
    private readonly model: string,
    private readonly exactProbe: boolean,
    private readonly o: ServerLMOptions,
    maxLength: number,
  ) {
    const { config, tokenizerConfig, generationConfig } = o.files;
    this.id = o.id ?? `${o.baseUrl}#${model}`;
    this.maxLength = maxLength;
    this.bosId = bosTokenId(config, tokenizerConfig);
    this.eosIds = [...new Set([...idsOf(config.eos_token_id), ...idsOf(generationConfig?.eos_token_id)])];
  }

  /** Connects: lists the server's models, picks the served one, checks its tokenizer against the local one. */
  static async open(o: ServerLMOptions): Promise<ServerLM> {
    const base = o.baseUrl.replace(/\/+$/, '');
    if (!/^https?:\/\/[^/]+.*\/v1$/.test(base)) throw new Error(`--model ${o.baseUrl}: a server is named by its OpenAI base URL ending in /v1 (http://host:8000/v1)`);
    const http = new HttpClient(base, o.http);
    const listed = await http.get<{ data?: ModelCard[] }>('/models');
    const cards = Array.isArray(listed.data) ? listed.data : [];
    const card = o.servedModel ? cards.find((c) => c.id === o.servedModel) : cards.length === 1 ? cards[0] : undefined;
    if (!card) {
      const names = cards.map((c) => c.id).join(', ') || 'none';
      throw new Error(o.servedModel ? `${base}: serves no model ${o.servedModel} (it serves: ${names})` : `${base}: serves ${cards.length} models (${names}); name one with --served-model`);
    }
    const tokenizer = new TextTokenizer(o.files.tokenizer, o.files.tokenizerConfig);
    const local = Number(o.files.config.n_positions ?? o.files.config.n_ctx ?? o.files.config.max_position_embeddings);
    const maxLength = Math.min(...[local, card.max_model_len ?? Infinity].filter((x) => Number.isFinite(x) && x > 0));
    if (!Number.isFinite(maxLength)) throw new Error(`${base}: neither config.json nor the server says the model's context length`);
    const lm = new ServerLM(http, tokenizer, card.id, (o.useExtensions ?? true) && card.toolformer?.probe_logprobs === true, o, maxLength);
    await lm.checkTokenizer(base.replace(/\/v1$/, ''));
    return lm;
  }

  /** The server's ids for the probe texts against ours; refused in one line on the first difference. */
  private async checkTokenizer(root: string): Promise<void> {
    const client = new HttpClient(root, { ...this.o.http, attempts: 1 });
    for (const text of TOKENIZER_PROBES) {
      let theirs: TokenizeResponse;
      try {
        theirs = await client.post<TokenizeResponse>('/tokenize', { model: this.model, prompt: text, add_special_tokens: false });
      } catch (error) {
        if (error instanceof ServerError && error.status === 404) {
          (this.o.onWarning ?? console.error)(`warning: ${root}/tokenize is not there: the server's tokenizer cannot be checked against the model's tokenizer.json`);
          return;
        }
        throw error;
      }
      const ours = this.tokenizer.encode(text);
      if (!Array.isArray(theirs.tokens) || theirs.tokens.length !== ours.length || theirs.tokens.some((id, i) => id !== ours[i])) {
        throw new Error(
          `${root}: the server's tokenizer differs from the model's tokenizer.json on ${JSON.stringify(text)} ` +
            `(server ${JSON.stringify(theirs.tokens?.slice(0, 12))}, local ${JSON.stringify(ours.slice(0, 12))}): pass the served model's own folder as --tokenizer`,
        );
      }
    }
  }

  encode(text: string): number[] {
    return this.tokenizer.encode(text);
  }

  decode(ids: readonly number[]): string {
    return this.tokenizer.decode(ids);
  }

  async score(batch: readonly ScoreRequest[]): Promise<ScoreResult[]> {
    const results: ScoreResult[] = new Array(batch.length);
    // One request per group of prompts that ask the same (probe or none).
    const groups = new Map<number | undefined, number[]>();
    batch.forEach((r, i) => groups.set(r.probe, [...(groups.get(r.probe) ?? []), i]));
    const size = this.o.promptsPerRequest ?? 16;
    const work: Promise<void>[] = [];
    for (const [probe, members] of groups) {
      for (let from = 0; from < members.length; from += size) {
        const part = members.slice(from, from + size);
        work.push(this.scoreGroup(part.map((i) => batch[i]), probe).then((rs) => rs.forEach((r, j) => (results[part[j]] = r))));
      }
    }
    await Promise.all(work);
    return results;
  }

  private async scoreGroup(requests: readonly ScoreRequest[], probe: number | undefined): Promise<ScoreResult[]> {
    const topK = probe !== undefined && !this.exactProbe ? this.o.topLogprobs ?? 20 : 0;
    // Without the extension the probe's log-prob after the last token is read by scoring the probe appended.
    const prompts = requests.map((r) => (topK > 0 ? [...r.ids, probe!] : [...r.ids]));
    for (const p of prompts) if (p.length > this.maxLength) throw new Error(`score: ${p.length} tokens, the served model accepts at most ${this.maxLength}`);
    // echo with max_tokens 0: score the prompt, draw nothing (vLLM: echo_without_generation).
    const body: CompletionRequest = { model: this.model, prompt: prompts, max_tokens: 0, echo: true, temperature: 0, prompt_logprobs: topK };
    if (probe !== undefined && this.exactProbe) body.probe_token_id = probe;
    if (this.exactProbe) body.score_hints = requests.map((r) => ({ from: r.from, up_to: r.upTo, shared_prefix: r.sharedPrefix }));
    const response = await this.http.post<CompletionResponse>('/completions', body);
    const choices = choicesByPrompt(response, prompts.length, 1, '/completions');
    return requests.map((r, i) => this.readScore(r, prompts[i], choices[i][0], probe, topK));
  }

  private readScore(request: ScoreRequest, prompt: readonly number[], choice: CompletionChoice, probe: number | undefined, topK: number): ScoreResult {
    const n = request.ids.length;
    const entries = choice.prompt_logprobs;
    const where = `/completions prompt of ${prompt.length} tokens`;
    if (!Array.isArray(entries)) throw new ServerError(`${where}: the answer has no prompt_logprobs (a server without vLLM's prompt_logprobs extension cannot score)`);
    if (entries.length !== prompt.length) throw new ServerError(`${where}: the answer's prompt_logprobs has ${entries.length} entries, not ${prompt.length}`);
    const tokenLogProbs = new Float32Array(n);
    for (let t = 1; t < n; t++) tokenLogProbs[t] = logprobOf(entries[t], request.ids[t], `${where}, position ${t}`);
    const result: ScoreResult = { tokenLogProbs };
    if (probe === undefined) return result;
    const probeLogProbs = new Float32Array(n);
    if (topK === 0) {
      const exact = choice.probe_logprobs;
      if (!Array.isArray(exact) || exact.length !== n || !exact.every(Number.isFinite)) {
        throw new ServerError(`${where}: the answer's probe_logprobs is missing or not ${n} numbers`);
      }
      probeLogProbs.set(exact);
    } else {
      for (let t = 0; t < n; t++) {
        const entry = entries[t + 1];
        if (!entry) throw new ServerError(`${where}: no prompt_logprobs at position ${t + 1}`);
        const found = entry[String(probe)]?.logprob;
        if (found !== undefined && Number.isFinite(found)) probeLogProbs[t] = found;
        else {
          probeLogProbs[t] = kthLargest(entry, topK);
          this.boundedPositions++;
        }
      }
    }
    result.probeLogProbs = probeLogProbs;
    return result;
  }

  async sample(prompt: readonly number[], options: SampleOptions): Promise<Sample[]> {
    if (options.n <= 0) return [];
    if (prompt.length >= this.maxLength) throw new Error(`sample: the prompt has ${prompt.length} tokens; the model accepts at most ${this.maxLength} in all`);
    const body: CompletionRequest = {
      model: this.model,
      prompt: [...prompt],
      n: options.n,
      max_tokens: Math.max(1, Math.min(options.maxNewTokens, this.maxLength - prompt.length)),
      temperature: options.temperature ?? 1,
      seed: options.seed,
      return_token_ids: true,
      ...(options.topK ? { top_k: options.topK } : {}),
      ...(options.stop ? { stop: [options.stop] } : {}),
    };
    const response = await this.http.post<CompletionResponse>('/completions', body);
    const [choices] = choicesByPrompt(response, 1, options.n, '/completions');
    const continuation = continuationDecoder(this, prompt);
    const rules = { stop: options.stop, alive: options.alive, eosIds: this.eosIds, hasToken: (id: number) => this.tokenizer.hasToken(id), continuation };
    return choices.map((choice) => {
      if (Array.isArray(choice.token_ids)) {
        const endedBySequence = choice.finish_reason === 'stop' && (choice.stop_reason ?? null) === null;
        const drawn = endedBySequence && this.eosIds.length > 0 && !this.eosIds.includes(choice.token_ids.at(-1)!) ? [...choice.token_ids, this.eosIds[0]] : choice.token_ids;
        return replaySample(drawn, rules);
      }
      // A server that does not return the ids: its text, stopped when its stop string ended it.
      const stopped = choice.stop_reason === options.stop || (choice.finish_reason === 'stop' && choice.stop_reason === undefined);
      return { text: choice.text, stopped: stopped && (!options.alive || options.alive(choice.text)) };
    });
  }
}

/** The answer's choices grouped per prompt (index = prompt × n + j), checked complete. */
function choicesByPrompt(response: CompletionResponse, prompts: number, n: number, path: string): CompletionChoice[][] {
  const choices = Array.isArray(response?.choices) ? response.choices : null;
  if (!choices || choices.length !== prompts * n) {
    throw new ServerError(`${path}: the answer has ${choices ? choices.length : 'no'} choices for ${prompts} prompt(s) × n ${n}`);
  }
  const out: CompletionChoice[][] = Array.from({ length: prompts }, () => []);
  const sorted = [...choices].sort((a, b) => a.index - b.index);
  sorted.forEach((c, i) => out[Math.floor(i / n)].push(c));
  return out;
}

/** The log-prob of `id` in one position's entry (vLLM always includes the prompt token's own). */
function logprobOf(entry: PromptLogprobs | null | undefined, id: number, where: string): number {
  const value = entry?.[String(id)]?.logprob;
  if (typeof value !== 'number' || Number.isNaN(value)) throw new ServerError(`${where}: no log-prob for the prompt's token ${id}`);
  return Math.max(value, -1e30); // -inf from a server stays finite for float32 sums
}

/** The k-th largest log-prob of an entry: an upper bound of every token not among the top k. */
function kthLargest(entry: PromptLogprobs, k: number): number {
  const values = Object.values(entry).map((v) => v.logprob).filter(Number.isFinite).sort((a, b) => b - a);
  return values.length === 0 ? -1e30 : values[Math.min(k, values.length) - 1];
}

const idsOf = (eos: unknown): number[] =>
  Array.isArray(eos) ? eos.filter((v): v is number => Number.isInteger(v)) : Number.isInteger(eos) ? [eos as number] : [];
