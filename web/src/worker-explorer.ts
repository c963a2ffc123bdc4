/**
 * The model worker's explorer jobs (worker.ts dispatches them): one analysis of a text through the pipeline's own
 * stages, scored in two passes at the page's τ_min, and the L_b of calls that pass skipped, scored on demand when the
 * τ_f slider goes below τ_min (then the control and the judge for those calls only, as a full scoring would do them).
 * The user's own call is always scored in full (L_b and its control whatever its L_a − L_c): it is what they asked about.
 */
import { type Candidate, hasCallOnly, usefulnessBound } from '../../pipeline/core/candidates.ts';
import type { AnnotateConfig, ToolThresholds } from '../../pipeline/core/config.ts';
import { defaultConfig } from '../../pipeline/core/default-config.ts';
import type { Doc } from '../../pipeline/core/document.ts';
import type { PositionScores } from '../../pipeline/core/sampling/positions.ts';
import { usefulness } from '../../pipeline/core/scoring/judge.ts';
import { scoreCallOnly } from '../../pipeline/core/scoring/scoring.ts';
import { annotate, controlMarginFor, controlStage, judgeStage, planPositions, type DocWork, type StageProgress } from '../../pipeline/core/stages/stages.ts';
import { type Analysis, type AnalyzeParams, type FillParams, type FillResult, TAU_F_SLIDER_MIN } from './analysis-types.ts';
import type { BrowserParts } from './browser-parts.ts';

/** The worker's progress message for the job: a stage label, `done` of `total`. */
export type PostProgress = (stage: string, done: number, total: number) => void;

/**
 * The run's settings: τ_s = 0 (every top-k position is proposed; τ_s is re-judged on the page) and τ_f = τ_min for
 * every tool, so L_b is scored where L_a − L_c ≥ τ_min (tauMinFor: min(τ_f, tauFFloor), both τ_min here; the
 * explorer has no stats grid whose floor would lower it). LM samples stop once they can no longer parse as a call.
 */
function explorerConfig(params: Partial<Pick<AnalyzeParams, 'k' | 'm' | 'seed' | 'lmContext' | 'programmatic' | 'stopUnparsable'>>, tools: readonly string[], parts: BrowserParts, tauMin: number): AnnotateConfig {
  const thresholds: Record<string, ToolThresholds> = Object.fromEntries(
    tools.map((t) => {
      const own = parts.registry.get(t)!.thresholds;
      return [t, { ...own, tauS: 0, tauF: tauMin, k: params.k ?? own.k, m: params.m ?? own.m }];
    }),
  );
  return defaultConfig({
    tools: [...tools], thresholds, tauFFloor: tauMin, ...(params.seed !== undefined && { seed: params.seed }), lmProposals: (params.m ?? 0) > 0,
    lmContext: params.lmContext ?? 'prompt', programmatic: params.programmatic ?? true,
    stopUnparsableSamples: params.stopUnparsable ?? true,
  });
}

/** The tools a run uses: those asked for and the own call's (analyzeText refuses an own call's unknown tool). */
const runTools = (parts: BrowserParts, tools: readonly string[], own?: { tool: string } | null) =>
  [...new Set([...tools, ...(own ? [own.tool] : [])])].filter((t) => parts.registry.get(t));

async function* one<T>(x: T) {
  yield x;
}

/** One explorer run: the pipeline's stages on the text, L_b only where L_a − L_c ≥ params.tauMin. */
export async function analyzeText(p: BrowserParts, params: AnalyzeParams, post: PostProgress): Promise<Analysis> {
  const t0 = performance.now();
  const { lm } = p;
  const tauMin = params.tauMin ?? TAU_F_SLIDER_MIN;
  if (params.own && !p.registry.get(params.own.tool)) {
    throw new Error(`your own call's tool "${params.own.tool}" is not one of the page's tools: ${p.registry.tools.map((t) => t.name).join(', ')}`);
  }
  const own = params.own && params.own.at >= 0 && params.own.at <= params.text.length ? params.own : null;
  p.setOwn(own);
  const tools = runTools(p, params.tools, own);
  const config = explorerConfig(params, tools, p, tauMin);
  const doc: Doc = { id: 'explorer', text: params.text, date: params.date };
  // The stages' own progress (how many tools, sampled positions, calls), passed on to the page as it comes.
  const progress = (s: StageProgress) => post(stageLabel(s), s.done, s.total);
  const candidates: Candidate[] = [];
  let skipped: Record<string, string> = {};
  // The stage's own positions (p_i for the heat strip, heuristic positions), so τ_s re-judging sees what it chose.
  const scores: { tool: string; s: PositionScores; heuristic: number[] }[] = [];
  for await (const work of annotate({ ...p, progress }, config, one(doc))) {
    candidates.push(...work.candidates);
    skipped = work.skipped;
    for (const [tool, positions] of Object.entries(work.positions)) scores.push({ tool, s: positions.scores, heuristic: positions.heuristic });
  }
  const ownIndex = own ? candidates.findIndex((c) => c.proposer === 'programmatic' && c.tool === own.tool && c.input === own.input && c.at === own.at) : -1;
  if (ownIndex >= 0) await scoreInFull(p, config, tools, params.text, candidates, candidates[ownIndex], post);
  const first = scores[0]?.s;
  const tokens = first?.tokens ?? lm.encode(params.text).map((t) => lm.decode([t]));
  return {
    text: params.text,
    tokens,
    offsets: first?.offsets ?? [],
    tools: scores.map(({ tool, s, heuristic }) => ({ tool, p: Array.from(s.p), heuristic })),
    syntax: Object.fromEntries(p.registry.tools.map((t) => [t.name, t.argument.syntax])),
    candidates,
    skipped,
    ownIndex,
    k: params.k,
    controlMargins: Object.fromEntries(tools.map((t) => [t, controlMarginFor(config, t)])),
    tauMin,
    ms: performance.now() - t0,
  };
}

/**
 * Lower a stored analysis' τ_min to `params.tauMin`: L_b for the calls whose bound L_a − L_c reaches it (each in the
 * window the first scoring planned: planPositions over the same scored calls), then the control for the calls whose
 * usefulness newly reaches τ_min, and the judge at τ_min for those — what a full scoring at the lower τ_min stores.
 * Only the changed candidates come back, by index.
 */
export async function fillCallOnly(p: BrowserParts, params: FillParams, post: PostProgress): Promise<FillResult> {
  const t0 = performance.now();
  const { analysis, tauMin } = params;
  const candidates = analysis.candidates.map((c) => structuredClone(c));
  const tools = runTools(p, analysis.candidates.map((c) => c.tool), null);
  const config = explorerConfig({}, tools, p, tauMin);
  const missing = await scoreSkippedCallOnly(p, config, analysis.text, candidates, (c) => usefulnessBound(c.losses!) >= tauMin, post);
  // Calls whose usefulness is now at or above τ_min and was below the old one: the control and the judge have not
  // seen them at a τ_f they reach. Pending again, they go through the pipeline's own control and judge stages.
  const changed = candidates.filter((c) => c.losses && hasCallOnly(c.losses) && usefulness(c.losses) < analysis.tauMin && (missing.includes(c) || usefulness(c.losses) >= tauMin));
  await controlAndJudge(p, config, config, tools, analysis.text, candidates, changed, post);
  return {
    tauMin,
    updates: changed.map((c) => ({ index: candidates.indexOf(c), candidate: c })),
    callOnlyScored: missing.length,
    ms: performance.now() - t0,
  };
}

/**
 * The own call in full, in place: its L_b if the first pass skipped it, and its control if it is below τ_f (the
 * control stage measures only calls that reach τ_f, here τ_min), then the judge at τ_min, as for any call.
 */
async function scoreInFull(p: BrowserParts, config: AnnotateConfig, tools: string[], text: string, candidates: Candidate[], own: Candidate, post: PostProgress): Promise<void> {
  if (!own.losses) return; // rejected before scoring: nothing to score
  await scoreSkippedCallOnly(p, config, text, candidates, (c) => c === own, post);
  if (!hasCallOnly(own.losses) || usefulness(own.losses) >= config.thresholds[own.tool].tauF) return;
  // τ_f −∞ for the control: of the pending calls (the own call only), every one is measured.
  await controlAndJudge(p, explorerConfig({}, tools, p, -Infinity), config, tools, text, candidates, [own], post);
}

/**
 * L_b, in place, for the scored calls without it that `wanted` picks, each in the window the first scoring planned
 * (planPositions over the same scored calls gives the same windows; only the positions of wanted calls are planned
 * again): the requests scoring's pass 2 would have made. Returns the calls scored.
 */
async function scoreSkippedCallOnly(p: BrowserParts, config: AnnotateConfig, text: string, candidates: readonly Candidate[], wanted: (c: Candidate) => boolean, post: PostProgress): Promise<Candidate[]> {
  const scored = candidates.filter((c) => c.losses !== undefined);
  const at = new Set(scored.filter((c) => !hasCallOnly(c.losses!) && wanted(c)).map((c) => c.at));
  const missing = planPositions(p, config, text, scored.filter((c) => at.has(c.at))).flatMap(({ calls, texts, plan }) =>
    calls.flatMap((c, j) => (plan && !hasCallOnly(c.losses!) && wanted(c) ? [{ c, window: plan.window, callOnly: texts[j].callOnly }] : [])));
  post('calls scored (L_b)', 0, missing.length);
  let done = 0;
  const callOnly = await scoreCallOnly(p.lm, missing, { batchSize: config.batchSize, onBatch: (d) => post('calls scored (L_b)', (done += d.length), missing.length) });
  missing.forEach(({ c }, i) => (c.losses = { ...c.losses!, callOnly: callOnly[i] }));
  return missing.map(({ c }) => c);
}

/** `calls` pending again, through the pipeline's own control stage (at `controlConfig`'s τ_f) and judge (at `judgeConfig`'s). */
async function controlAndJudge(p: BrowserParts, controlConfig: AnnotateConfig, judgeConfig: AnnotateConfig, tools: string[], text: string, candidates: Candidate[], calls: readonly Candidate[], post: PostProgress): Promise<void> {
  for (const c of calls) {
    c.outcome = { kind: 'pending' };
    delete c.usefulnessAtMost;
  }
  const work: DocWork = { doc: { id: 'explorer', text }, searched: { end: text.length, cut: false }, tools, skipped: {}, skippedKind: {}, positions: {}, candidates };
  const progress = (s: StageProgress) => post(stageLabel(s), s.done, s.total);
  for await (const _ of judgeStage(judgeConfig)(controlStage({ ...p, progress }, controlConfig)(one(work))));
}

/** The explorer's status line for a stage, naming its units: "Scoring: calls scored (12/40)". */
function stageLabel(s: StageProgress): string {
  switch (s.stage) {
    // The bare LM context computes one p_i for every tool and samples each position once: no tool to name.
    case 'positions': return s.tool ? `p_i(" [") of ${s.tool}; tools done` : 'p_i(" [") on the bare text';
    case 'sampling': return s.tool ? `LM samples at ${s.tool}'s positions; positions done` : 'LM samples from the bare text; positions done';
    case 'executing': return 'tool calls run';
    case 'scoring': return 'calls scored';
    case 'control': return 'calls checked against a distractor';
  }
}
