import type { CausalLM } from './lm.ts';
import type { ToolPrompt } from './prompts.ts';
import { singleTokenId, tokenOffsets } from './tokens.ts';

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
}

export interface PositionOptions {
  /** Most text tokens per window; also capped by what fits next to the prompt. @default 96 */
  windowTokens?: number;
  /** Windows per forward pass. @default 8 */
  batchSize?: number;
}

/** The prompt's token overhead for a window: P(x) has x inside it, so a window costs twice its length. */
export function windowBudget(lm: CausalLM, prompt: ToolPrompt, options: PositionOptions = {}): number {
  const overhead = lm.encode(prompt.render('')).length + 2; // + " [" and rounding of the joined window
  const fit = Math.floor((lm.maxLength - overhead) / 2);
  if (fit < 8) throw new Error(`the ${prompt.tool} prompt leaves no room for text in a ${lm.maxLength}-token model`);
  return Math.min(options.windowTokens ?? 96, fit);
}

/** The prompt and window ids that position sampling conditions on, for window [start, end) and position i. */
export function promptedPrefix(lm: CausalLM, prompt: ToolPrompt, scores: PositionScores, i: number): number[] {
  const [start, end] = scores.windows[i];
  const windowText = lm.decode(scores.ids.slice(start, end));
  return [...lm.encode(prompt.render(windowText)), ...scores.ids.slice(start, i)];
}

export async function positionScores(
  lm: CausalLM,
  text: string,
  prompt: ToolPrompt,
  options: PositionOptions = {},
): Promise<PositionScores> {
  const open = singleTokenId(lm, ' [');
  const ids = lm.encode(text);
  const offsets = tokenOffsets(lm, ids);
  const size = windowBudget(lm, prompt, options);
  const windows: Array<[number, number]> = [];
  const requests: { ids: number[]; promptLength: number; start: number; end: number }[] = [];
  for (let start = 0; start < ids.length; start += size) {
    const end = Math.min(ids.length, start + size);
    const promptIds = lm.encode(prompt.render(lm.decode(ids.slice(start, end))));
    requests.push({ ids: [...promptIds, ...ids.slice(start, end)], promptLength: promptIds.length, start, end });
    for (let i = start; i < end; i++) windows.push([start, end]);
  }
  const p = new Float32Array(ids.length);
  const batchSize = options.batchSize ?? 8;
  for (let b = 0; b < requests.length; b += batchSize) {
    const chunk = requests.slice(b, b + batchSize);
    const results = await lm.score(chunk.map((r) => ({ ids: r.ids, probe: open })));
    chunk.forEach((r, j) => {
      const probe = results[j].probeLogProbs!;
      // p_i for token i of the window is predicted at the token just before it: the prompt's last token for i = start.
      for (let i = r.start; i < r.end; i++) p[i] = Math.exp(probe[r.promptLength - 1 + (i - r.start)]);
    });
  }
  return { tokens: ids.map((id) => lm.decode([id])), offsets, p, windows, ids };
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
