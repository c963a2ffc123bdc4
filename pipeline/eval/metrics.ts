/**
 * Scoring for `toolformer eval` (pure): the paper's metric — the answer appears among the first words generated,
 * normalised for case, punctuation and number format — and the per-family summary.
 */
import type { Generation } from '../core/generate/generate.ts';
import type { EvalPrompt } from './tasks.ts';

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

/** One greedy generation, as written to trials.jsonl (what the experiment's report pools over seeds). */
export interface TrialRecord {
  id: string;
  family: string;
  phrasing?: string;
  real?: boolean;
  tools: boolean;
  correct: boolean;
  text: string;
  /** `proposals`: a constrained toolken call's proposer calls, in the proposer's order (the model picked `input`). */
  calls: { tool: string; input: string; result?: string; proposals?: string[] }[];
}

export function trial(prompt: EvalPrompt, tools: boolean, generation: Generation): Trial {
  return { prompt, tools, generation, correct: prompt.answers.length > 0 && answerFound(generation.answerText, prompt.answers) };
}

/** Wilson score interval for k successes in n trials (95 % by default): [low, high] as shares. */
export function wilson(k: number, n: number, z = 1.96): [number, number] {
  if (n === 0) return [0, 1];
  const p = k / n;
  const d = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / d;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** One cluster of trials (all trials of one prompt, over seeds): k correct of n. */
export interface Cluster {
  k: number;
  n: number;
}

/**
 * A Wilson interval for a share estimated from clustered trials (the same prompt under several seeds is one
 * cluster), GLMM-free: the ratio estimator p = Σk / Σn, its cluster-robust variance
 *   V = C / (C − 1) · Σ_i (k_i − p·n_i)² / (Σn)²        (C clusters)
 * and an effective sample size n_eff = p(1 − p) / V, between C (every cluster's trials agree) and Σn (independent
 * trials); when p is 0 or 1, V is 0 and n_eff = C, the number of distinct prompts. The interval is Wilson's at
 * (p·n_eff, n_eff). Pooling seeds as if they were new prompts (wilson(Σk, Σn)) is too narrow whenever a prompt's
 * seeds agree, which is the usual case.
 */
export function clusteredWilson(clusters: readonly Cluster[], z = 1.96): { p: number; lo: number; hi: number; nEff: number; clusters: number } {
  const live = clusters.filter((c) => c.n > 0);
  const C = live.length;
  const N = live.reduce((a, c) => a + c.n, 0);
  if (C === 0) return { p: 0, lo: 0, hi: 1, nEff: 0, clusters: 0 };
  const p = live.reduce((a, c) => a + c.k, 0) / N;
  const V = C < 2 ? 0 : (C / (C - 1)) * live.reduce((a, c) => a + (c.k - p * c.n) ** 2, 0) / (N * N);
  // V = 0 with 0 < p < 1: every prompt sits exactly at p, no sign of clustering; with p at 0 or 1 nothing can be
  // estimated within prompts, so count the prompts.
  const nEff = V > 0 ? Math.min(N, Math.max(C, (p * (1 - p)) / V)) : p === 0 || p === 1 ? C : N;
  const [lo, hi] = wilson(p * nEff, nEff, z);
  return { p, lo, hi, nEff, clusters: C };
}

/**
 * The majority baseline of a set of prompts: the best share a constant answer gets (the most often accepted
 * answer, normalised), e.g. always "Monday" on weekday prompts. 0 for prompts without answers.
 */
export function majorityRate(prompts: readonly EvalPrompt[]): number {
  const withAnswers = prompts.filter((p) => p.answers.length > 0);
  if (withAnswers.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const p of withAnswers) {
    for (const a of new Set(p.answers.map((x) => normalise(x).join(' ')))) counts.set(a, (counts.get(a) ?? 0) + 1);
  }
  return Math.max(...counts.values()) / prompts.length;
}

/** A family expects no call when none of its prompts names a tool (relevance; a stated date the Calendar cannot answer). */
export const expectsNoCall = (prompts: readonly EvalPrompt[]): boolean => prompts.every((p) => !p.tool);

export interface PhrasingSummary {
  phrasing: string;
  real: boolean;
  n: number;
  withTools: number;
  /** null when the eval ran with tools only. */
  withoutTools: number | null;
  callsMade: number;
  noCall: number;
}

export interface FamilySummary {
  family: string;
  n: number;
  /** 95 % Wilson intervals of withTools / withoutTools / noCall. */
  withToolsCI?: [number, number];
  withoutToolsCI?: [number, number];
  noCallCI?: [number, number];
  /** False when the eval ran with tools only (--no-without-tools). */
  withoutToolsRun?: boolean;
  /** Majority (constant-answer) baseline; for no-call families the share a model that never calls gets (1). */
  majority?: number;
  /** Whether the family's right behaviour is to make no call. */
  noCallExpected?: boolean;
  phrasings?: PhrasingSummary[];
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

const count = (xs: boolean[]): number => xs.filter(Boolean).length;

export function summarise(family: string, greedyWith: Trial[], greedyWithout: Trial[], sampled: Trial[][]): FamilySummary {
  const withTools = share(greedyWith.map((t) => t.correct));
  const withoutTools = share(greedyWithout.map((t) => t.correct));
  const prompts = greedyWith.map((t) => t.prompt);
  const noCallExpected = family === 'relevance' || expectsNoCall(prompts);
  const names = [...new Set(prompts.map((p) => p.phrasing ?? 'default'))];
  const phrasings = names.map((phrasing): PhrasingSummary => {
    const idx = prompts.flatMap((p, i) => ((p.phrasing ?? 'default') === phrasing ? [i] : []));
    const w = idx.map((i) => greedyWith[i]);
    const wo = idx.map((i) => greedyWithout[i]).filter(Boolean);
    return {
      phrasing, real: idx.some((i) => prompts[i].real === true), n: idx.length,
      withTools: share(w.map((t) => t.correct)), withoutTools: wo.length === 0 ? null : share(wo.map((t) => t.correct)),
      callsMade: share(w.map((t) => t.generation.calls.length > 0)), noCall: share(w.map((t) => t.generation.calls.length === 0)),
    };
  });
  const calls = greedyWith.flatMap((t) => t.generation.calls.map((c) => ({ c, p: t.prompt })));
  const k = sampled.length;
  const perPrompt = greedyWith.map((_, i) => sampled.map((trials) => trials[i]?.correct ?? false));
  const n = greedyWith.length;
  return {
    family,
    n,
    withToolsCI: wilson(count(greedyWith.map((t) => t.correct)), n),
    withoutToolsCI: greedyWithout.length === 0 ? undefined : wilson(count(greedyWithout.map((t) => t.correct)), greedyWithout.length),
    withoutToolsRun: greedyWithout.length > 0,
    noCallCI: wilson(count(greedyWith.map((t) => t.generation.calls.length === 0)), n),
    majority: noCallExpected && prompts.every((p) => p.answers.length === 0) ? 1 : majorityRate(prompts),
    noCallExpected,
    phrasings,
    withTools,
    withoutTools,
    ratio: noCallExpected ? null : withoutTools === 0 ? (withTools > 0 ? Infinity : null) : withTools / withoutTools,
    callsMade: share(greedyWith.map((t) => t.generation.calls.length > 0)),
    callsValid: calls.length === 0 ? 0 : share(calls.map(({ c }) => c.result !== undefined)),
    callsCorrect: calls.length === 0 ? 0 : share(calls.map(({ c, p }) => c.result !== undefined && answerFound(c.result, p.answers))),
    rightTool: calls.length === 0 ? 0 : share(calls.map(({ c, p }) => c.tool === p.tool)),
    passAtK: noCallExpected || k === 0 ? null : share(perPrompt.map((r) => r.some(Boolean))),
    passHatK: noCallExpected || k === 0 ? null : share(perPrompt.map((r) => r.every(Boolean))),
    noCall: share(greedyWith.map((t) => t.generation.calls.length === 0)),
  };
}
