/**
 * Generation with live tools — the paper's inference (§4), isomorphic (Node and the browser run this file).
 *
 * Decoding is ordinary (greedy by default) with the KV cache, except: whenever `" ["` is among the top k tokens
 * (k = 10), it is emitted and a call starts. The call is decoded greedily until the model writes `"->"`; the text
 * between is parsed (call-syntax.ts), the call runs through the tool executor (registry dispatch, the pipeline's
 * limits: timeout, input and result length), and `" <result>]"` is fed to the model as if it had written it; then
 * decoding goes on. At most `maxCalls` calls per input (default 1, as in the paper); after that, and always with
 * `tools: false`, `" ["` is masked so the model answers alone. A call the model closes with `"]"` before any `"->"`,
 * or that runs past `maxCallTokens`, is abandoned: its text stays, nothing runs.
 */
import { parseCall, escapeCallText } from '../call-syntax.ts';
import type { CausalLM, DecodeState } from '../lm/lm.ts';
import { mulberry32 } from '../../random/mulberry32.ts';
import type { ToolExecutor } from '../stages/execute.ts';
import { pickToken } from '../lm/token-math.ts';
import { continuationDecoder } from '../lm/tokens.ts';

/** What every generation loop takes (this one and ToolkenGPT's, toolkens/generate.ts). */
export interface GenerationOptions {
  /** Tokens generated after the prompt, inserted tool results included. @default 32 */
  maxNewTokens?: number;
  /** Calls per input (failed ones count). @default 1 */
  maxCalls?: number;
  /** The document the calls are made in: the Calendar reads its date. @default today (UTC) */
  doc?: { id: string; date?: string };
  /** Streamed pieces of the continuation, in order: plain text, call text, and inserted results. */
  onText?: (piece: GeneratedPiece) => void;
  /** Stops early when aborted. */
  signal?: AbortSignal;
}

export interface GenerateOptions extends GenerationOptions {
  /** Allow calls. false masks " [" at every step. @default true */
  tools?: boolean;
  /** A call starts when " [" is among this many most likely tokens. @default 10 */
  topK?: number;
  /** 0 = greedy. @default 0 */
  temperature?: number;
  /** @default 0 */
  seed?: number;
  /** Most tokens of one call before "->". @default 48 */
  maxCallTokens?: number;
}

export interface GeneratedPiece {
  kind: 'text' | 'call' | 'result';
  text: string;
}

export interface GeneratedCall {
  tool: string;
  input: string;
  /** The tool's output, inserted; absent when the call did not run. */
  result?: string;
  /** Why nothing (or an empty result) was inserted: unparsable call, unknown tool, tool error, abandoned. */
  error?: string;
  /** The raw call text the model wrote between " [" and "->". */
  raw: string;
}

export interface Generation {
  prompt: string;
  /** The continuation as the model wrote it, calls and results inlined. */
  text: string;
  calls: GeneratedCall[];
  /** The continuation with every `[...]` call removed (what the answer is read from). */
  answerText: string;
  tokens: number;
  stopped: 'eos' | 'max_tokens' | 'context' | 'aborted';
}

/** ISO date of today (UTC). */
function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/**
 * The continuation's text as it grows: `textOf(ids)` decodes it incrementally (the prompt's tail as context, as the
 * sampler does), and `emit(kind)` hands `onText` what `generated` decodes to beyond the last emit, as one piece.
 */
export function textStream(
  lm: Pick<CausalLM, 'decode'>, head: readonly number[], generated: readonly number[], onText?: (piece: GeneratedPiece) => void,
) {
  const textOf = continuationDecoder(lm, head);
  let emitted = '';
  const emit = (kind: GeneratedPiece['kind']): void => {
    const now = textOf(generated);
    if (now.length > emitted.length) onText?.({ kind, text: now.slice(emitted.length) });
    emitted = now;
  };
  return { textOf, emit };
}

export async function generate(lm: CausalLM, executor: ToolExecutor | null, prompt: string, options: GenerateOptions = {}): Promise<Generation> {
  if (!lm.openDecoder) throw new Error(`generate: the model ${lm.id} has no KV-cache decoder`);
  const maxNew = options.maxNewTokens ?? 32;
  const tools = (options.tools ?? true) && executor !== null;
  const topK = options.topK ?? 10;
  const maxCalls = options.maxCalls ?? 1;
  const temperature = options.temperature ?? 0;
  const rng = mulberry32(options.seed ?? 0);
  const maxCallTokens = options.maxCallTokens ?? 48;
  const doc = { id: options.doc?.id ?? 'generate', date: options.doc?.date ?? today() };
  const open = singleToken(lm, ' [', 'generate');
  const bos = lm.bosId;
  const ends = new Set(lm.eosIds);

  const promptIds = lm.encode(prompt);
  const head = bos !== undefined ? [bos, ...promptIds] : promptIds;
  const room = lm.maxLength - 1;
  if (head.length > room) throw new Error(`generate: the prompt has ${promptIds.length} tokens; the model accepts at most ${room - (head.length - promptIds.length)}`);
  const state = await lm.openDecoder(head);
  // The cache is freed when the generation ends, however it ends (a WebGPU cache is GPU buffers).
  try {
    const generated: number[] = [];
    const calls: GeneratedCall[] = [];
    const { textOf, emit } = textStream(lm, head, generated, options.onText);
    const full = () => state.length >= lm.maxLength;
    let stopped: Generation['stopped'] = 'max_tokens';

    const next = (allowOpen: boolean, forceGreedy = false): number => {
      const logits = state.logits;
      if (!allowOpen) logits[open] = -Infinity;
      else if (inTopK(logits, open, topK)) return open;
      return pickToken(logits, forceGreedy ? 0 : temperature, 0, rng);
    };
    const decoding: Decoding = { lm, state, generated, textOf, full, next };

    while (generated.length < maxNew) {
      if (options.signal?.aborted) {
        stopped = 'aborted';
        break;
      }
      if (full()) {
        stopped = 'context';
        break;
      }
      const canCall = tools && calls.length < maxCalls;
      const token = next(canCall);
      if (ends.has(token)) {
        stopped = 'eos';
        break;
      }
      generated.push(token);
      await state.feed([token]);
      if (token !== open) {
        emit('text');
        continue;
      }
      const { raw, outcome } = await readCall(decoding, maxCallTokens, maxNew);
      emit('call');
      if (outcome !== 'arrow') {
        calls.push(abandonedCall(raw, outcome));
        continue;
      }
      const { record, inserted } = await runCall(raw, executor!, doc);
      calls.push(record);
      await insertResult(decoding, inserted);
      emit('result');
    }
    const text = textOf(generated);
    return { prompt, text, calls, answerText: stripCalls(text), tokens: generated.length, stopped };
  } finally {
    state.release?.();
  }
}

/** One generation's decoding state, as the call's steps below read and extend it. */
interface Decoding {
  lm: CausalLM;
  state: DecodeState;
  /** The continuation's token ids so far (calls and results included). */
  generated: number[];
  /** The decoded text of some of the continuation's ids. */
  textOf: (ids: number[]) => string;
  /** The context is full. */
  full: () => boolean;
  /** The next token: " [" when allowed and in the top k, else the sampler's (greedy when forced). */
  next: (allowOpen: boolean, forceGreedy?: boolean) => number;
}

type CallEnd = 'arrow' | 'closed' | 'long' | 'context';

/** Decodes a call greedily until "->" (or "]" / a length cap / the context's end abandons it): its raw text and how it ended. */
async function readCall({ state, generated, textOf, full, next }: Decoding, maxCallTokens: number, maxNew: number): Promise<{ raw: string; outcome: CallEnd }> {
  const before = generated.length;
  let raw = '';
  for (let i = 0; i < maxCallTokens && generated.length < maxNew; i++) {
    if (full()) return { raw, outcome: 'context' };
    const t = next(false, true);
    generated.push(t);
    await state.feed([t]);
    raw = textOf(generated.slice(before));
    if (raw.includes('->')) return { raw, outcome: 'arrow' };
    if (/(^|[^\\])\]/.test(raw)) return { raw, outcome: 'closed' };
  }
  return { raw, outcome: 'long' };
}

/** A call that ended before "->": its text stays, nothing runs. */
function abandonedCall(raw: string, outcome: Exclude<CallEnd, 'arrow'>): GeneratedCall {
  const parsed = parseCall(raw.replace(/\]\s*$/, ''));
  return { tool: parsed.ok ? parsed.call.tool : '', input: parsed.ok ? parsed.call.input : '', raw,
    error: outcome === 'closed' ? 'closed without "->"' : 'no "->" before the length limit' };
}

/** Parses the call before "->" and runs it: its record and the escaped result to insert ('' when nothing came back). */
async function runCall(raw: string, executor: ToolExecutor, doc: { id: string; date: string }): Promise<{ record: GeneratedCall; inserted: string }> {
  const callText = raw.slice(0, raw.indexOf('->')).trim();
  const parsed = parseCall(callText);
  const record: GeneratedCall = { tool: parsed.ok ? parsed.call.tool : '', input: parsed.ok ? parsed.call.input : '', raw: callText };
  if (!parsed.ok) {
    record.error = `parse_error: ${parsed.error}`;
    return { record, inserted: '' };
  }
  const r = await executor.execute({ tool: parsed.call.tool, input: parsed.call.input }, doc);
  if (!r.ok) {
    record.error = r.error;
    return { record, inserted: '' };
  }
  record.result = r.value;
  return { record, inserted: escapeCallText(r.value) };
}

/** Feeds e(c, r) — " <result>]" as the model would have written it, e(c, ε) " ]" when nothing came back — as far as the context holds. */
async function insertResult({ lm, state, generated }: Decoding, inserted: string): Promise<void> {
  const ids = lm.encode(inserted === '' ? ' ]' : ` ${inserted}]`);
  const fit = ids.slice(0, Math.max(0, lm.maxLength - state.length));
  if (fit.length > 0) {
    generated.push(...fit);
    await state.feed(fit);
  }
}

/** The token id of `text`, which must be one token (" [" is one in GPT-2-style BPEs). */
export function singleToken(lm: Pick<CausalLM, 'encode'>, text: string, what: string): number {
  const ids = lm.encode(text);
  if (ids.length !== 1) throw new Error(`${what}: ${JSON.stringify(text)} is ${ids.length} tokens in this tokenizer; calls need it to be one`);
  return ids[0];
}

/** Whether `id` is among the k largest logits (ties count for it). */
export function inTopK(logits: Float32Array, id: number, k: number): boolean {
  if (k <= 0) return false;
  const x = logits[id];
  let above = 0;
  for (let v = 0; v < logits.length; v++) if (logits[v] > x && ++above >= k) return false;
  return true;
}

/** Removes inlined calls `[Tool(…) -> …]` (and an unclosed trailing one) from generated text. */
export function stripCalls(text: string): string {
  let out = '';
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\' && depth > 0) {
      i++;
      continue;
    }
    if (ch === '[') depth++;
    else if (ch === ']' && depth > 0) depth--;
    else if (depth === 0) out += ch;
  }
  return out.replace(/\s+/g, ' ').trim();
}
