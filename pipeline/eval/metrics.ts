/**
 * Scoring for `toolformer eval` (pure): the paper's metric — the answer appears among the first words generated,
 * normalised for case, punctuation and number format — and the per-family summary.
 */
import type { Generation } from '../core/generate/generate.ts';
import type { EvalPrompt, Family } from './tasks.ts';

/** Words of the continuation read for the answer (the paper reads "the first words"; LAMA uses a small window). */
export const ANSWER_WORDS = 5;

/** Lower case, accents folded, "1,234" → "1234", "85.0" → "85", punctuation → spaces. */
export function normalise(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/\b(\d+)\.0+\b/g, '$1')
    .replace(/[^a-z0-9.\s]|\.(?!\d)/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

/** Whether any answer's words occur contiguously within the first ANSWER_WORDS (+ its own extra words) words. */
export function answerFound(continuation: string, answers: readonly string[]): boolean {
  const words = normalise(continuation);
  return answers.some((a) => {
    const want = normalise(a);
    if (want.length === 0) return false;
    const window = words.slice(0, ANSWER_WORDS + want.length - 1);
    for (let i = 0; i + want.length <= window.length; i++) {
      if (want.every((w, j) => window[i + j] === w)) return true;
    }
    return false;
  });
}

export interface Trial {
  prompt: EvalPrompt;
  tools: boolean;
  generation: Generation;
  correct: boolean;
}

export function trial(prompt: EvalPrompt, tools: boolean, generation: Generation): Trial {
  return { prompt, tools, generation, correct: prompt.answers.length > 0 && answerFound(generation.answerText, prompt.answers) };
}

export interface FamilySummary {
  family: Family;
  n: number;
  /** Greedy accuracy with tools / without. */
  withTools: number;
  withoutTools: number;
  /** withTools / withoutTools (Infinity when without is 0 and with > 0). */
  ratio: number | null;
  /** Greedy, with tools: share of prompts with a call; calls that parsed and returned a result; whose result holds the answer. */
  callsMade: number;
  callsValid: number;
  callsCorrect: number;
  /** Tools fitting the family among the calls made. */
  rightTool: number;
  /** Over k sampled trials with tools: some trial right / all trials right (τ-bench pass^k). */
  passAtK: number | null;
  passHatK: number | null;
  /** Share of prompts with no call (greedy, with tools): the relevance score. */
  noCall: number;
}

const share = (xs: boolean[]): number => (xs.length === 0 ? 0 : xs.filter(Boolean).length / xs.length);

export function summarise(family: Family, greedyWith: Trial[], greedyWithout: Trial[], sampled: Trial[][]): FamilySummary {
  const withTools = share(greedyWith.map((t) => t.correct));
  const withoutTools = share(greedyWithout.map((t) => t.correct));
  const calls = greedyWith.flatMap((t) => t.generation.calls.map((c) => ({ c, p: t.prompt })));
  const k = sampled.length;
  const perPrompt = greedyWith.map((_, i) => sampled.map((trials) => trials[i]?.correct ?? false));
  return {
    family,
    n: greedyWith.length,
    withTools,
    withoutTools,
    ratio: family === 'relevance' ? null : withoutTools === 0 ? (withTools > 0 ? Infinity : null) : withTools / withoutTools,
    callsMade: share(greedyWith.map((t) => t.generation.calls.length > 0)),
    callsValid: calls.length === 0 ? 0 : share(calls.map(({ c }) => c.result !== undefined)),
    callsCorrect: calls.length === 0 ? 0 : share(calls.map(({ c, p }) => c.result !== undefined && answerFound(c.result, p.answers))),
    rightTool: calls.length === 0 ? 0 : share(calls.map(({ c, p }) => c.tool === p.tool)),
    passAtK: family === 'relevance' || k === 0 ? null : share(perPrompt.map((r) => r.some(Boolean))),
    passHatK: family === 'relevance' || k === 0 ? null : share(perPrompt.map((r) => r.every(Boolean))),
    noCall: share(greedyWith.map((t) => t.generation.calls.length === 0)),
  };
}
