/**
 * The propose stage: positions (the LM's p_i with τ_s and top-k, plus heuristics) and, at each, LM-sampled and
 * programmatic calls. Two ways to ask the LM (sampling/lm-context.ts):
 *
 * - `prompt`: per tool, p_i under the tool's prompt P(x); at each of its top-k positions, m calls sampled from
 *   [P(x), x_{1:i−1}, " ["] (paper §2).
 * - `bare`: one p_i = p(" [" | x_{1:i−1}) over the text for all tools; each tool's τ_s and k select positions from it,
 *   and each selected position is sampled once, from [x_{1:i−1}, " ["], with the largest m of the tools that selected
 *   it. A sample's `positionTool` is the tool it names when that tool selected the position, else the first (config
 *   order) that did — so per-tool stats count the calls the LM wrote for each tool.
 *
 * Heuristic positions and programmatic proposers run beside either, unless `config.programmatic` is false
 * (`--no-programmatic`): then every candidate is the LM's own. All of it inside the searched part of the text (the
 * search budget, DocWork.searched): p_i, positions and heuristics see `searchedDoc(work)`; proposers get the whole
 * document, as at a position of an uncut one.
 */
import type { Candidate } from '../candidates.ts';
import type { AnnotateConfig } from '../config.ts';
import type { Doc } from '../document.ts';
import { heuristicPositions } from '../sampling/heuristic-positions.ts';
import { BARE_PROMPT } from '../sampling/lm-context.ts';
import { type PositionScores, type SelectedPosition, positionScores, selectPositions } from '../sampling/positions.ts';
import type { ToolPrompt } from '../tools/prompts.ts';
import { proposeCalls } from '../sampling/propose.ts';
import { sampleCalls } from '../sampling/sample-calls.ts';
import { keepSampling } from '../sampling/sampling-gate.ts';
import { fnv1a, FNV_OFFSET } from '../text/hash.ts';
import { searchedDoc } from './search-budget.ts';
import type { DocWork, PipelineParts, Stage } from './work.ts';

/** A stable 32-bit seed per (run seed, document, tool, position): sampling does not depend on order. */
export function seedFor(seed: number, ...parts: (string | number)[]): number {
  return fnv1a(parts.join('\u0000'), FNV_OFFSET ^ seed);
}

/** At most n items, evenly spaced over the list (so heuristic positions cover the whole document). */
export function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, j) => items[Math.floor((j * items.length) / n)]);
}

export function proposeStage(parts: PipelineParts, config: AnnotateConfig): Stage {
  return async function* (input) {
    for await (const work of input) {
      if (config.lmContext === 'bare') await proposeBare(parts, config, work);
      else await proposePrompted(parts, config, work);
      yield work;
    }
  };
}

/** Whether the run LM-samples calls for `tool` (decided before the run by the probe: every process decides alike). */
function samplesTool(config: AnnotateConfig, tool: string): boolean {
  const t = config.thresholds[tool];
  if (!config.lmProposals || t.m <= 0) return false;
  return config.lmContext === 'bare' || keepSampling(config.samplingProbe?.[tool], config.samplingGate);
}

/** Heuristic positions for a tool (the web explorer's pinned ones first), none without programmatic proposals. */
function heuristicFor(parts: PipelineParts, config: AnnotateConfig, tool: string, doc: Doc): number[] {
  if (!config.programmatic) return [];
  const spec = parts.registry.get(tool)!;
  const pinned = (parts.pinnedPositions?.(tool) ?? []).filter((at) => at >= 0 && at <= doc.text.length);
  const found = heuristicPositions(spec, doc.text).filter((at) => !pinned.includes(at));
  return [...pinned, ...spread(found, config.heuristicPositions - pinned.length)];
}

/** p_i over the document under `prompt`, with room for a sampled call after the position when the run samples. */
function scoresFor(parts: PipelineParts, config: AnnotateConfig, doc: Doc, prompt: ToolPrompt, sampling: boolean): Promise<PositionScores> {
  return positionScores(parts.lm, doc.text, prompt, {
    windowTokens: config.windowTokens,
    batchSize: config.batchSize,
    reserveTokens: sampling ? config.maxSampleTokens + 1 : 0,
  });
}

/** m calls sampled by the LM at a position, as candidates (a sample that is no call keeps its reason). */
async function lmCandidates(
  parts: PipelineParts,
  config: AnnotateConfig,
  prompt: ToolPrompt,
  scores: PositionScores,
  token: number,
  m: number,
  seed: number,
  candidate: (named: string | undefined) => Candidate,
): Promise<Candidate[]> {
  const samples = await sampleCalls(parts.lm, prompt, scores, token, {
    m,
    maxNewTokens: config.maxSampleTokens,
    temperature: config.temperature,
    topK: config.topK,
    seed,
    stopUnparsable: config.stopUnparsableSamples,
  });
  return samples.map((s) =>
    s.call
      ? { ...candidate(s.call.tool), tool: s.call.tool, input: s.call.input, proposer: 'lm' as const, raw: s.raw }
      : { ...candidate(undefined), input: '', proposer: 'lm' as const, raw: s.raw, outcome: s.rejected! },
  );
}

/** A pending candidate at `at` whose position `positionTool` chose (proposer and call filled in by the caller). */
function pending(doc: Doc, positionTool: string, at: number, p: number | undefined): Candidate {
  return { docId: doc.id, tool: positionTool, positionTool, at, positionP: p, input: '', proposer: 'programmatic', outcome: { kind: 'pending' } };
}

const pAtOffsets = (scores: PositionScores) => new Map(scores.offsets.slice(0, -1).map((at, i) => [at, scores.p[i]]));

/** Programmatic calls of `tool` at each of `positions` (none without programmatic proposals). */
function programmaticCandidates(parts: PipelineParts, config: AnnotateConfig, doc: Doc, tool: string, at: number, p: number | undefined): Candidate[] {
  if (!config.programmatic) return [];
  const spec = parts.registry.get(tool)!;
  return proposeCalls(spec, doc.text.slice(0, at), doc, at).map((call) => ({ ...pending(doc, tool, at, p), tool: call.tool, input: call.input }));
}

/** Per tool: its prompt's p_i, its top-k positions and its heuristic ones; LM samples and proposals at each. */
async function proposePrompted(parts: PipelineParts, config: AnnotateConfig, work: DocWork): Promise<void> {
  const doc = searchedDoc(work);
  for (const [toolIndex, tool] of work.tools.entries()) {
    parts.progress?.({ stage: 'positions', tool, done: toolIndex, total: work.tools.length });
    const t = config.thresholds[tool];
    const sample = samplesTool(config, tool);
    const prompt = parts.registry.get(tool)!.prompt; // the pre-filter stage passes registered tools only
    const scores = await scoresFor(parts, config, doc, prompt, config.lmProposals && t.m > 0);
    const lmPositions = selectPositions(scores, doc.text, t.tauS, t.k);
    const pAt = pAtOffsets(scores);
    const heuristic = heuristicFor(parts, config, tool, doc);
    work.positions[tool] = { scores, lm: lmPositions, heuristic };
    const lmAt = new Map(lmPositions.map((p) => [p.at, p]));
    const positions = [...new Set([...lmAt.keys(), ...heuristic])].sort((a, b) => a - b);
    const toSample = sample ? positions.filter((at) => lmAt.has(at)).length : 0;
    let sampled = 0;
    for (const at of positions) {
      // `positionTool`: whose prompt or proposer chose the position; `tool`: what the call names (an LM sample
      // under the QA prompt may call anything).
      const lmPos = lmAt.get(at);
      if (lmPos && sample) {
        parts.progress?.({ stage: 'sampling', tool, done: sampled++, total: toSample });
        const seed = seedFor(config.seed, doc.id, tool, at);
        work.candidates.push(...(await lmCandidates(parts, config, prompt, scores, lmPos.token, t.m, seed, () => pending(doc, tool, at, pAt.get(at)))));
      }
      work.candidates.push(...programmaticCandidates(parts, config, work.doc, tool, at, pAt.get(at)));
    }
  }
}

/** One bare-text p_i for every tool; each selected position sampled once; heuristics and proposals per tool. */
async function proposeBare(parts: PipelineParts, config: AnnotateConfig, work: DocWork): Promise<void> {
  const doc = searchedDoc(work);
  if (work.tools.length === 0) return;
  parts.progress?.({ stage: 'positions', done: 0, total: 1 });
  const sampling = work.tools.some((tool) => samplesTool(config, tool));
  const scores = await scoresFor(parts, config, doc, BARE_PROMPT, sampling);
  const pAt = pAtOffsets(scores);
  // Which tools' τ_s and k select each position (config order), and the position itself.
  const selectedBy = new Map<number, { position: SelectedPosition; tools: string[] }>();
  for (const tool of work.tools) {
    const t = config.thresholds[tool];
    const lm = selectPositions(scores, doc.text, t.tauS, t.k);
    work.positions[tool] = { scores, lm, heuristic: heuristicFor(parts, config, tool, doc) };
    if (!samplesTool(config, tool)) continue;
    for (const position of lm) {
      const entry = selectedBy.get(position.at) ?? { position, tools: [] };
      entry.tools.push(tool);
      selectedBy.set(position.at, entry);
    }
  }
  const toSample = [...selectedBy.keys()].sort((a, b) => a - b);
  for (const [done, at] of toSample.entries()) {
    parts.progress?.({ stage: 'sampling', done, total: toSample.length });
    const { position, tools } = selectedBy.get(at)!;
    const m = Math.max(...tools.map((tool) => config.thresholds[tool].m));
    const positionToolOf = (named: string | undefined) => (named !== undefined && tools.includes(named) ? named : tools[0]);
    const seed = seedFor(config.seed, doc.id, '*', at);
    work.candidates.push(...(await lmCandidates(parts, config, BARE_PROMPT, scores, position.token, m, seed, (named) => pending(doc, positionToolOf(named), at, pAt.get(at)))));
  }
  // Programmatic proposals at every tool's positions, LM-selected and heuristic, in position order per tool.
  for (const tool of work.tools) {
    const { lm, heuristic } = work.positions[tool];
    const positions = [...new Set([...lm.map((p) => p.at), ...heuristic])].sort((a, b) => a - b);
    for (const at of positions) work.candidates.push(...programmaticCandidates(parts, config, work.doc, tool, at, pAt.get(at)));
  }
}
