/**
 * Generation with toolkens (ToolkenGPT's inference), isomorphic.
 *
 * Reasoning mode: greedy over the concatenated logits [z_v ; z_τ + bias] (bias: the paper's flag, 3.0 GSM8K-XL,
 * 4.0 FuncQA, 10 KAMEL). When a toolken wins, tool mode writes the call's argument:
 *   - "free" (ToolkenGPT): the tool's few-shot prompt (spec.prompt, the longest variant that fits the context) with
 *     the text so far and ` [Tool(` after it; greedy, toolkens off, until ")";
 *   - "constrained" (this project's option for models too small to write arguments; named so wherever reported):
 *     the tool's programmatic proposer (spec.propose) offers calls for the text so far, and the model picks the one
 *     with the highest log-likelihood of its call text under the same tool-mode prompt.
 * The call runs through the executor (registry dispatch and the pipeline's limits); its result, in the text's own
 * form (spec.styleResult), is inserted where the toolken fired — the toolken stands for the result's first token —
 * and reasoning resumes. A call that fails (no argument, parse error, tool error) backs off to the next of the top-5
 * candidates at that position, as ToolkenGPT does. After `maxCalls` calls (failed ones count) toolkens are off.
 */
import { formatCall, parseCall } from '../call-syntax.ts';
import type { GeneratedCall, GeneratedPiece, Generation, GenerationOptions } from '../generate/generate.ts';
import { stripCalls, textStream } from '../generate/generate.ts';
import type { HiddenStateLM } from '../lm/lm.ts';
import type { ToolExecutor } from '../stages/execute.ts';
import type { ToolSpec } from '../tools/spec.ts';
import { toolkenLogits, type Toolkens } from './file.ts';

export type ToolModeKind = 'free' | 'constrained';

export interface ToolkenGenerateOptions extends GenerationOptions {
  toolkens: Toolkens;
  /** The tools' specs by name (prompt, argument syntax, proposer, result style). */
  specs: ReadonlyMap<string, ToolSpec>;
  /** How tool mode writes the argument. @default "free" */
  mode?: ToolModeKind;
  /** Added to every toolken logit in reasoning mode. @default 0 */
  bias?: number;
  /** Candidates tried at a position when calls fail (ToolkenGPT: 5). @default 5 */
  backoff?: number;
  /** Most argument tokens in free mode. @default 24 */
  maxArgumentTokens?: number;
  /**
   * Each call tool mode made where a toolken won, as soon as it settled: with its result (inserted next, as a
   * `result` piece) or its error (back-off to the next candidate follows). The web app shows both inline.
   */
  onCall?: (call: ToolkenCall) => void;
}

/** A call record with how its argument was chosen. */
export interface ToolkenCall extends GeneratedCall {
  mode: ToolModeKind;
  /** Proposals the constrained mode chose among. */
  proposals?: number;
  /** Constrained mode: the proposer's calls in its order (the model picked `input` among them). */
  proposalInputs?: string[];
}

export interface ToolkenGeneration extends Generation {
  calls: ToolkenCall[];
  /** Positions where a toolken won before back-off settled (fired and failed count here too). */
  toolkenWins: number;
}

/** The k best of the concatenated [vocab ; toolken] scores: ids ≥ V are toolken V + k. */
function topCandidates(logits: Float32Array, tool: Float32Array, k: number): number[] {
  const V = logits.length;
  const best: { id: number; score: number }[] = [];
  const consider = (id: number, score: number) => {
    if (best.length === k && score <= best[k - 1].score) return;
    best.push({ id, score });
    best.sort((a, b) => b.score - a.score);
    if (best.length > k) best.pop();
  };
  for (let v = 0; v < V; v++) consider(v, logits[v]);
  for (let t = 0; t < tool.length; t++) consider(V + t, tool[t]);
  return best.map((b) => b.id);
}

/** The tool-mode prompt: the tool's longest prompt variant that leaves `room` tokens, the text, and " [Tool(". */
function toolModePrompt(lm: HiddenStateLM, spec: ToolSpec, text: string, room: number): { ids: number[]; head: string } {
  const open = ` [${spec.name}(${spec.argument.syntax === 'quoted' ? '"' : ''}`;
  const bos = lm.bosId !== undefined ? [lm.bosId] : [];
  let last: number[] = [];
  for (const variant of spec.prompt.variants) {
    const head = variant(text) + text + open;
    last = [...bos, ...lm.encode(head)];
    if (last.length + room <= lm.maxLength) return { ids: last, head };
  }
  // Nothing fits: keep the text's end.
  const cut = Math.max(0, last.length + room - lm.maxLength);
  return { ids: [...bos, ...last.slice(bos.length + cut)], head: text + open };
}

/** Free mode: greedy from the tool-mode prompt until ")". The call input, or null. */
async function freeArgument(lm: HiddenStateLM, spec: ToolSpec, text: string, maxTokens: number): Promise<{ input: string; raw: string } | null> {
  if (spec.argument.syntax === 'none') return { input: '', raw: `${spec.name}()` };
  const { ids } = toolModePrompt(lm, spec, text, maxTokens);
  const [s] = await lm.sample(ids, { n: 1, maxNewTokens: maxTokens, stop: ')', temperature: 0, seed: 0 });
  const q = spec.argument.syntax === 'quoted' ? '"' : '';
  const raw = `${spec.name}(${q}${s?.text ?? ''})`;
  if (!s?.stopped) return null;
  const parsed = parseCall(raw);
  return parsed.ok && parsed.call.tool === spec.name ? { input: parsed.call.input, raw } : { input: '', raw: `parse_error ${raw}` };
}

/** Constrained mode: the proposer's calls scored by the model under the tool-mode prompt; the likeliest, or null. */
async function constrainedArgument(lm: HiddenStateLM, spec: ToolSpec, text: string, doc: { id: string; date?: string }) {
  const proposals = [...new Set(spec.propose?.(text, { id: doc.id, text, date: doc.date }, text.length) ?? [])];
  if (proposals.length === 0) return { proposals: [], input: null };
  const quoted = spec.argument.syntax === 'quoted';
  const rest = proposals.map((input) => lm.encode(formatCall({ tool: spec.name, input }, { quoted }).slice(`[${spec.name}(${quoted ? '"' : ''}`.length)));
  const longest = Math.max(...rest.map((r) => r.length));
  const { ids } = toolModePrompt(lm, spec, text, longest);
  const scored = await lm.score(rest.map((r) => ({ ids: [...ids, ...r].slice(0, lm.maxLength), from: ids.length })));
  let best = 0;
  let bestScore = -Infinity;
  scored.forEach((s, i) => {
    let sum = 0;
    for (let t = ids.length; t < s.tokenLogProbs.length; t++) sum += s.tokenLogProbs[t];
    if (sum > bestScore) [best, bestScore] = [i, sum];
  });
  return { proposals, input: proposals[best] };
}

export async function generateWithToolkens(lm: HiddenStateLM, executor: ToolExecutor | null, prompt: string, options: ToolkenGenerateOptions): Promise<ToolkenGeneration> {
  const t = options.toolkens;
  if (lm.hiddenSize !== t.hiddenSize) throw new Error(`toolkens: made for hidden size ${t.hiddenSize}, the model's is ${lm.hiddenSize}`);
  const mode = options.mode ?? 'free';
  const maxNew = options.maxNewTokens ?? 32;
  const maxCalls = options.maxCalls ?? 1;
  const bias = options.bias ?? 0;
  const doc = { id: options.doc?.id ?? 'generate', date: options.doc?.date };
  const bos = lm.bosId;
  // The model's end tokens (CausalLM.eosIds), not its start token: they differ for Qwen2, Llama, SmolLM2.
  const ends = new Set(lm.eosIds);
  const head = [...(bos !== undefined ? [bos] : []), ...lm.encode(prompt)];
  if (head.length >= lm.maxLength) throw new Error(`generate: the prompt has ${head.length} tokens; the model accepts fewer than ${lm.maxLength}`);
  const state = await lm.openDecoder(head);
  try {
    const generated: number[] = [];
    const calls: ToolkenCall[] = [];
    const { textOf, emit } = textStream(lm, head, generated, options.onText);
    let stopped: Generation['stopped'] = 'max_tokens';
    let toolkenWins = 0;
    const V = state.logits.length;
    while (generated.length < maxNew) {
      if (options.signal?.aborted) {
        stopped = 'aborted';
        break;
      }
      if (state.length >= lm.maxLength) {
        stopped = 'context';
        break;
      }
      const canCall = executor !== null && calls.length < maxCalls && state.hidden !== undefined;
      const tool = canCall ? toolkenLogits(t, state.hidden!, bias) : new Float32Array(0);
      const candidates = topCandidates(state.logits, tool, canCall ? options.backoff ?? 5 : 1);
      let fed: number[] | null = null;
      let kind: GeneratedPiece['kind'] = 'text';
      for (const id of candidates) {
        if (id < V) {
          fed = [id];
          break;
        }
        toolkenWins++;
        const spec = options.specs.get(t.tools[id - V]);
        if (!spec) continue;
        const text = prompt + textOf(generated);
        const call = await runCall(lm, executor!, spec, text, mode, doc, options.maxArgumentTokens ?? 24);
        calls.push(call);
        options.onCall?.(call);
        if (call.result === undefined || call.error) continue; // back off to the next candidate
        const ids = lm.encode(`${/\s$/.test(text) ? '' : ' '}${call.result}`);
        fed = ids.slice(0, Math.max(0, lm.maxLength - state.length));
        kind = 'result';
        break;
      }
      fed ??= [candidates.find((id) => id < V) ?? argmax(state.logits)];
      if (kind === 'text' && ends.has(fed[0])) {
        stopped = 'eos';
        break;
      }
      if (fed.length === 0) {
        stopped = 'context';
        break;
      }
      generated.push(...fed);
      await state.feed(fed);
      emit(kind);
    }
    const text = textOf(generated);
    return { prompt, text, calls, answerText: stripCalls(text), tokens: generated.length, stopped, toolkenWins };
  } finally {
    state.release?.();
  }
}

async function runCall(lm: HiddenStateLM, executor: ToolExecutor, spec: ToolSpec, text: string, mode: ToolModeKind, doc: { id: string; date?: string }, maxArg: number): Promise<ToolkenCall> {
  const record: ToolkenCall = { tool: spec.name, input: '', raw: '', mode };
  if (mode === 'constrained') {
    const chosen = await constrainedArgument(lm, spec, text, doc);
    record.proposals = chosen.proposals.length;
    record.proposalInputs = chosen.proposals;
    if (chosen.input === null) return { ...record, error: 'no proposal for this context' };
    record.input = chosen.input;
    record.raw = formatCall({ tool: spec.name, input: chosen.input }, { quoted: spec.argument.syntax === 'quoted' });
  } else {
    const written = await freeArgument(lm, spec, text, maxArg);
    if (!written) return { ...record, error: 'no ")" before the length limit' };
    record.raw = written.raw;
    if (written.raw.startsWith('parse_error')) return { ...record, error: `parse_error: ${written.raw.slice(12)}` };
    record.input = written.input;
  }
  const r = await executor.execute({ tool: spec.name, input: record.input }, doc);
  if (!r.ok) return { ...record, error: r.error };
  if (r.value.trim() === '') return { ...record, error: 'empty result' };
  record.result = spec.styleResult?.(r.value, record.input, text) ?? r.value;
  return record;
}

function argmax(xs: Float32Array): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i] > xs[best]) best = i;
  return best;
}
