/**
 * What the LM conditions on when it picks positions and writes calls (issue 21).
 *
 * - `prompt` (the paper's §2 for a model that has never seen a call): p_i = p(" [" | P(x), x_{1:i−1}) under each
 *   tool's prompt P(x), which holds the window itself, and calls sampled from [P(x), x_{1:i−1}, " ["].
 * - `bare` (a model finetuned on text with calls inlined): p_i = p(" [" | x_{1:i−1}) on the text alone and calls
 *   sampled from [x_{1:i−1}, " ["] — the model writes its own calls, sees no text after the position (no leakage by
 *   construction) and the whole context is left for text. p_i is then the same for every tool: it is computed once
 *   per document, and each position is sampled once, whatever the tool (propose-stage.ts).
 *
 * The CLI's `--lm-context auto` chooses `bare` when calls sampled from the bare text at the tools' worked examples
 * parse at least BARE_MIN_PARSE_RATE of the time (stages/sampling-probe.ts `probeBare`), and records the counts in
 * config.json, so every process of a run decides alike.
 */
import type { SamplingCounts } from './sampling-gate.ts';
import type { ToolPrompt } from '../tools/prompts.ts';

export type LmContext = 'prompt' | 'bare';

/** The empty prompt: positions and samples on the bare text (tools/prompts.ts's last variant, alone). */
export const BARE_PROMPT: ToolPrompt = { tool: '*', variants: [() => ''] };

/**
 * Share of bare-text probe samples that must parse as a call (any tool) for `--lm-context auto` to pick `bare`.
 * The bundled model, never finetuned on calls, parses 0 of 100; a model that writes calls inline parses most.
 */
export const BARE_MIN_PARSE_RATE = 0.2;

/** Bare-text probe samples per tool (fewer than the prompted probe's: a model that writes calls shows it at once). */
export const BARE_PROBE_SAMPLES = 25;

/** `bare` when the probe's pooled parse rate reaches BARE_MIN_PARSE_RATE, else `prompt` (no samples: `prompt`). */
export function chooseLmContext(probe: Record<string, SamplingCounts>): LmContext {
  const counts = Object.values(probe);
  const samples = counts.reduce((n, c) => n + c.samples, 0);
  const parsed = counts.reduce((n, c) => n + c.parsed, 0);
  return samples > 0 && parsed / samples >= BARE_MIN_PARSE_RATE ? 'bare' : 'prompt';
}

/** The line the CLI prints about the choice: which context, and how many bare-text probe samples parsed. */
export function lmContextNotice(context: LmContext, probe: Record<string, SamplingCounts>): string {
  const counts = Object.values(probe);
  const samples = counts.reduce((n, c) => n + c.samples, 0);
  const parsed = counts.reduce((n, c) => n + c.parsed, 0);
  return `LM context: ${context} (${parsed} of ${samples} calls sampled from the bare text at the worked examples parsed; --lm-context prompt|bare to choose)`;
}
