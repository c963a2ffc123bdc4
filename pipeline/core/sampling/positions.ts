import type { CausalLM } from '../lm/lm.ts';
import type { ToolPrompt } from '../tools/prompts.ts';
import { singleTokenId, tokenOffsets } from '../lm/tokens.ts';

/**
 * Sampling API-call positions (paper §2): p_i = p_M(" [" | P(x), x_{1:i−1}) for every token i of x.
 * The text is cut into windows so that P(window) + window fits the model (P contains the window itself).
 */
export interface PositionScores {
  /** The text's tokens, decoded, for display (the web heat strip). [n] */
  tokens: string[];
  /** Character offset where token i starts; offsets[n] = text length. [n + 1] */
  offsets: number[];
  /** p_i: probability of " [" right before token i, under the tool's prompt. [n] */
  p: Float32Array;
  /** Per token, the window it was scored in, as [start, end) token indices (for sampling with the same context). */
  windows: Array<[number, number]>;
  /** Token ids of the text. [n] */
  ids: number[];
  /** Which prompt variant fitted the model (0 = the paper-style prompt; see tools/prompts.ts). */
  promptVariant: number;
}

export interface PositionOptions {
  /** Most text tokens per window; also capped by what fits next to the prompt. @default 96 */
  windowTokens?: number;
  /** Windows per forward pass. @default 8 */
  batchSize?: number;
  /** Tokens kept free after [P(x), x_{1:i−1}, " ["] for sampling calls there. @default 0 */
  reserveTokens?: number;
  /** false: the windows only, p_i left 0 and no forward pass (the sampling probe reads no p_i). @default true */
  withP?: boolean;
}

/** Smallest window worth scoring, in tokens; a prompt that leaves less is skipped for a shorter one. */
const MIN_WINDOW = 32;

export interface ChosenPrompt {
  /** Index into `ToolPrompt.variants` (0 = the paper-style prompt). */
  variant: number;
  render: (input: string) => string;
  /** Text tokens per window. */
  window: number;
}

/**
 * The longest prompt variant that leaves a window of at least MIN_WINDOW tokens (or the requested size):
 * P(x) contains the window, so a window costs twice its length. Small models get a shorter P(x).
 */
export function choosePrompt(lm: CausalLM, prompt: ToolPrompt, options: PositionOptions = {}): ChosenPrompt {
  const want = options.windowTokens ?? 96;
  for (let variant = 0; variant < prompt.variants.length; variant++) {
    const render = prompt.variants[variant];
    const bare = render('') === '';
    const overhead = lm.encode(render('')).length + 2; // + " [" and rounding of the joined window
    const room = lm.maxLength - (options.reserveTokens ?? 0);
    const fit = bare ? room - 2 : Math.floor((room - overhead) / 2);
    if (fit >= Math.min(want, MIN_WINDOW)) return { variant, render, window: Math.min(want, fit) };
  }
  throw new Error(`the ${prompt.tool} prompt leaves no room for text in a ${lm.maxLength}-token model`);
}

/** P(window) as ids; a bare prompt becomes [bos] (or nothing) so the first token still has a context. */
function promptIds(lm: CausalLM, chosen: ChosenPrompt, windowText: string): number[] {
  const text = chosen.render(windowText);
  if (text !== '') return lm.encode(text);
  return lm.bosId === undefined ? [] : [lm.bosId];
}

/** The prompt and window ids that call sampling conditions on: [P(x), x_{1:i−1}] for position i. */
export function promptedPrefix(lm: CausalLM, prompt: ToolPrompt, scores: PositionScores, i: number): number[] {
  const [start, end] = scores.windows[i];
  const chosen = { variant: scores.promptVariant, render: prompt.variants[scores.promptVariant], window: end - start };
  const windowText = lm.decode(scores.ids.slice(start, end));
  return [...promptIds(lm, chosen, windowText), ...scores.ids.slice(start, i)];
}

/** Per model and prompt variant: the ids every window's P(window) starts with (memo of fixedPromptIds). */
const FIXED_IDS = new WeakMap<CausalLM, WeakMap<ChosenPrompt['render'], number[]>>();

/**
 * The ids P(window) starts with whatever the window: the tool's instruction and worked example up to "Input: ", as
 * the longest common token prefix of the prompt around two unlike inputs (a boundary token that merges with the
 * window's first characters is left out). Each window is still checked against it before its cache is shared.
 */
function fixedPromptIds(lm: CausalLM, render: ChosenPrompt['render']): number[] {
  let byRender = FIXED_IDS.get(lm);
  if (!byRender) FIXED_IDS.set(lm, (byRender = new WeakMap()));
  let ids = byRender.get(render);
  if (!ids) {
    const [a, b] = [lm.encode(render('a b')), lm.encode(render('1. Z'))];
    let n = 0;
    while (n < a.length && n < b.length && a[n] === b[n]) n++;
    byRender.set(render, (ids = a.slice(0, n)));
  }
  return ids;
}

const startsWith = (ids: readonly number[], prefix: readonly number[]) => prefix.length <= ids.length && prefix.every((id, i) => ids[i] === id);

export async function positionScores(
  lm: CausalLM,
  text: string,
  prompt: ToolPrompt,
  options: PositionOptions = {},
): Promise<PositionScores> {
  const open = singleTokenId(lm, ' [');
  const ids = lm.encode(text);
  const offsets = tokenOffsets(lm, ids);
  const chosen = choosePrompt(lm, prompt, options);
  const size = chosen.window;
  const windows: Array<[number, number]> = [];
  const requests: { ids: number[]; promptLength: number; start: number; end: number }[] = [];
  for (let start = 0; start < ids.length; start += size) {
    const end = Math.min(ids.length, start + size);
    const prefix = promptIds(lm, chosen, lm.decode(ids.slice(start, end)));
    requests.push({ ids: [...prefix, ...ids.slice(start, end)], promptLength: prefix.length, start, end });
    for (let i = start; i < end; i++) windows.push([start, end]);
  }
  const p = new Float32Array(ids.length);
  const batchSize = options.batchSize ?? 8;
  for (let b = 0; options.withP !== false && b < requests.length; b += batchSize) {
    const chunk = requests.slice(b, b + batchSize);
    // Only the window's rows are read (from: the prompt's last token on); the fixed prompt is a prefix every window
    // shares, so a backend forwards it once per process and each window on top of its KV cache.
    const fixed = fixedPromptIds(lm, chosen.render);
    const results = await lm.score(
      chunk.map((r) => ({ ids: r.ids, probe: open, from: Math.max(1, r.promptLength), ...(fixed.length > 0 && startsWith(r.ids, fixed) ? { sharedPrefix: fixed.length } : {}) })),
    );
    chunk.forEach((r, j) => {
      const probe = results[j].probeLogProbs!;
      // p_i for token i of the window is predicted at the token just before it: the prompt's last token for i = start.
      // With no prompt and no bos, the window's first token has no context: p stays 0 there.
      for (let i = r.start; i < r.end; i++) {
        const t = r.promptLength - 1 + (i - r.start);
        p[i] = t < 0 ? 0 : Math.exp(probe[t]);
      }
    });
  }
  return { tokens: ids.map((id) => lm.decode([id])), offsets, p, windows, ids, promptVariant: chosen.variant };
}

export interface SelectedPosition {
  /** Token index i. */
  token: number;
  /** Character offset where the call is inserted. */
  at: number;
  /** p_i. */
  p: number;
}

/**
 * Keep the top k positions with p_i > τ_s (paper §2). Pure, so τ_s and k can be moved without the model.
 * Only word boundaries qualify (the token starts with whitespace), so a call never splits a word.
 */
export function selectPositions(scores: PositionScores, text: string, tauS: number, k: number): SelectedPosition[] {
  const all: SelectedPosition[] = [];
  for (let i = 0; i < scores.p.length; i++) {
    const at = scores.offsets[i];
    if (scores.p[i] > tauS && /\s/.test(text[at] ?? '')) all.push({ token: i, at, p: scores.p[i] });
  }
  return all.sort((a, b) => b.p - a.p || a.token - b.token).slice(0, k).sort((a, b) => a.token - b.token);
}
