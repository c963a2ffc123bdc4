/**
 * Toolken training examples from the pipeline's output (ToolkenGPT's labels, Hao et al. 2023, Ber666/ToolkenGPT):
 * a train.jsonl record is the original text with each kept call inlined, `… Population: [QA("…") -> 5,664,939]
 * 5,664,939 …`. The call is taken out again (the frozen model reads plain text), and in that text
 *   - the token where the call stood (where its result would begin) is labelled with the tool's toolken,
 *   - the result's other tokens are masked (−100 in the paper: at inference the tool writes them),
 *   - every other token keeps its own word label (or is masked too with `onlyToolkens`, the paper's option).
 * The frozen model runs once over each window; what training needs per labelled position is cached (features()):
 * h, the log-sum-exp of the vocabulary logits, the label's own logit — so training touches only W_τ. Isomorphic.
 */
import { parseCall } from '../call-syntax.ts';
import type { HiddenStateLM } from '../lm/lm.ts';
import { tokenOffsets } from '../lm/tokens.ts';

/** A call as it stood in a record: the tool, its argument and result, and `at`, its offset in the plain text. */
export interface CallSite {
  tool: string;
  input: string;
  result: string;
  at: number;
}

/**
 * The record's text without its inlined calls (exactly the original: each call was inserted as " [..]" before the
 * space that precedes its result) and the calls with their offsets. Brackets of the text itself were escaped to
 * parentheses by the pipeline, so every "[" opens a call; a call that does not parse is dropped with its brackets.
 */
export function splitInlinedCalls(text: string): { plain: string; calls: CallSite[] } {
  let plain = '';
  const calls: CallSite[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '[') {
      plain += text[i];
      continue;
    }
    let j = i + 1;
    while (j < text.length && text[j] !== ']') j += text[j] === '\\' ? 2 : 1;
    if (plain.endsWith(' ')) plain = plain.slice(0, -1);
    const parsed = parseCall(text.slice(i, j + 1));
    if (parsed.ok) calls.push({ tool: parsed.call.tool, input: parsed.call.input, result: parsed.call.result ?? '', at: plain.length });
    i = j;
  }
  return { plain, calls };
}

/**
 * The text of one train.jsonl line: a string for a record {"text": "…"}, null for a line that is none (to report
 * and skip), undefined for a blank line.
 */
export function trainText(line: string): string | null | undefined {
  if (line.trim() === '') return undefined;
  let text: unknown;
  try {
    text = (JSON.parse(line) as { text?: unknown })?.text;
  } catch {
    return null;
  }
  return typeof text === 'string' && text !== '' ? text : null;
}

/** One toolken per tool the texts call, in row order: the registry's tools first, in its order, then other names sorted. */
export function toolsCalled(texts: readonly string[], registryOrder: readonly string[]): string[] {
  const called = new Set(texts.flatMap((t) => splitInlinedCalls(t).calls.map((c) => c.tool)));
  return [...registryOrder.filter((t) => called.has(t)), ...[...called].filter((t) => !registryOrder.includes(t)).sort()];
}

/** Label of one position: a word id, a toolken (index into the tools), or nothing (masked out of the loss). */
export type Label = { word: number } | { toolken: number } | null;

/** One window of a record: the ids the model reads (BOS first where it has one) and the label of each next token. */
export interface LabelledWindow {
  ids: number[];
  /** labels[p]: what position p (the state after ids[0..p]) should predict; length ids.length − 1. */
  labels: Label[];
  /** Index of the record it came from (validation splits by record). */
  record: number;
}

export interface LabelOptions {
  /** Mask every word label: only toolken decisions count (ToolkenGPT's `only_functoken`). @default false */
  onlyToolkens?: boolean;
  /** Tokens kept after the last call of a window. @default 16 */
  tail?: number;
}

/** Words of a result that the text after the call repeats: how many characters of `after` they cover (0: none). */
function resultSpan(after: string, result: string): number {
  const lead = after.length - after.trimStart().length;
  const r = result.trim();
  if (r === '' || after.slice(lead, lead + r.length).toLowerCase() !== r.toLowerCase()) return 0;
  return lead + r.length;
}

/**
 * The labelled windows of one record. Windows hold at most lm.maxLength tokens; each starts as early as lets its first
 * call fit (with `tail` tokens after it) and takes every later call that falls inside it.
 */
export function labelRecord(
  lm: Pick<HiddenStateLM, 'encode' | 'decode' | 'bosId' | 'maxLength'>,
  text: string,
  tools: readonly string[],
  record: number,
  options: LabelOptions = {},
): LabelledWindow[] {
  const { plain, calls } = splitInlinedCalls(text);
  const known = calls.filter((c) => tools.includes(c.tool));
  if (known.length === 0) return [];
  const ids = lm.encode(plain);
  const offsets = tokenOffsets(lm, ids);
  // Per token: its label as a target (the toolken where a call stands, masked for the result's other tokens).
  const target: Label[] = ids.map((id) => (options.onlyToolkens ? null : { word: id }));
  const callTokens: number[] = [];
  for (const c of known) {
    const j = offsets.findIndex((o, t) => t < ids.length && offsets[t + 1] > c.at);
    if (j < 0) continue;
    const end = c.at + resultSpan(plain.slice(c.at), c.result);
    for (let t = j + 1; t < ids.length && offsets[t] < end; t++) target[t] = null;
    target[j] = { toolken: tools.indexOf(c.tool) };
    callTokens.push(j);
  }
  const bos = lm.bosId !== undefined ? [lm.bosId] : [];
  const room = lm.maxLength - bos.length;
  const tail = options.tail ?? 16;
  const windows: LabelledWindow[] = [];
  let covered = -1;
  for (const j of callTokens.sort((a, b) => a - b)) {
    if (j < covered) continue;
    const end = Math.min(ids.length, Math.max(j + 1 + tail, Math.min(ids.length, room)));
    const start = Math.max(0, Math.min(j, end - room));
    const stop = Math.min(end, start + room);
    const slice = ids.slice(start, stop);
    // With BOS, position 0 (BOS) predicts slice[0]; without, the first token has no label.
    const labels = bos.length ? target.slice(start, stop) : target.slice(start + 1, stop);
    if (!bos.length && j === start) continue; // the call is the window's first token: nothing predicts it
    windows.push({ ids: [...bos, ...slice], labels, record });
    covered = stop;
  }
  return windows;
}

/**
 * What training reads per labelled position, computed once with the frozen model (n positions, C = hidden size):
 * h, log Σ_v exp(z_v) over the vocabulary, the label's own vocabulary logit (word labels), the largest vocabulary
 * logit (for "does a toolken win" counts), the label (−1 word, k toolken) and the record (for the split).
 */
export interface ToolkenFeatures {
  hiddenSize: number;
  /** [n × C] */
  hidden: Float32Array;
  /** [n] */
  logSumExp: Float32Array;
  /** [n] the vocabulary logit of the word label (0 for toolken labels) */
  wordLogit: Float32Array;
  /** [n] */
  maxWordLogit: Float32Array;
  /** [n] −1 for a word label, else the toolken index */
  label: Int32Array;
  /** [n] */
  record: Int32Array;
  /** Positions in all. */
  n: number;
}

/** Runs the frozen model over each window once (h and logits from one pass) and keeps the labelled positions. */
export async function features(
  lm: HiddenStateLM,
  windows: readonly LabelledWindow[],
  options: { maxPositions?: number; onWindow?: (done: number, total: number) => void; signal?: AbortSignal } = {},
): Promise<ToolkenFeatures> {
  const C = lm.hiddenSize;
  const wanted = windows.reduce((s, w) => s + w.labels.filter((l) => l !== null).length, 0);
  const cap = Math.min(wanted, options.maxPositions ?? Infinity);
  const f: ToolkenFeatures = {
    hiddenSize: C, hidden: new Float32Array(cap * C), logSumExp: new Float32Array(cap), wordLogit: new Float32Array(cap),
    maxWordLogit: new Float32Array(cap), label: new Int32Array(cap), record: new Int32Array(cap), n: 0,
  };
  for (const [i, w] of windows.entries()) {
    if (f.n >= cap || options.signal?.aborted) break;
    const { hidden, logits, vocabSize: V } = await lm.hiddenStates(w.ids);
    for (let p = 0; p < w.labels.length && f.n < cap; p++) {
      const l = w.labels[p];
      if (l === null) continue;
      const row = logits.subarray(p * V, (p + 1) * V);
      let max = -Infinity;
      for (let v = 0; v < V; v++) if (row[v] > max) max = row[v];
      let sum = 0;
      for (let v = 0; v < V; v++) sum += Math.exp(row[v] - max);
      f.hidden.set(hidden.subarray(p * C, (p + 1) * C), f.n * C);
      f.logSumExp[f.n] = max + Math.log(sum);
      f.maxWordLogit[f.n] = max;
      f.wordLogit[f.n] = 'word' in l ? row[l.word] : 0;
      f.label[f.n] = 'word' in l ? -1 : l.toolken;
      f.record[f.n] = w.record;
      f.n++;
    }
    options.onWindow?.(i + 1, windows.length);
  }
  return f;
}
