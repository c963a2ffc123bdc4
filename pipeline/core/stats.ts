import { type Candidate, type OutcomeKind, isKept } from './candidates.ts';
import { DEFAULT_TAU_F_FLOOR } from './config.ts';
import { survival } from './scoring/judge.ts';
import { type SamplingCounts, parseRate } from './sampling/sampling-gate.ts';
import { inlinedAtEachPosition } from './stages/inline.ts';
import type { DocWork } from './stages/stages.ts';

/** τ_f values at which stats.json reports how many scored calls reach τ_f (from stored losses, before the control). */
export const TAU_F_GRID = [DEFAULT_TAU_F_FLOOR, 0.25, 0.5, 1, 2] as const;


/** One τ_f of the stats grid: the calls that reach it, and how many more might (their L_b skipped). */
export interface ReachTauF {
  tauF: number;
  calls: number;
  undecided: number;
}

export interface ToolStats {
  /** Documents whose pre-filter passed for this tool. */
  docs: number;
  /** Documents the tool's pre-filter dropped, per reason kind (e.g. few_numbers, no_date). */
  prefilterDrops: Record<string, number>;
  /** LM-sampled calls under this tool's prompt that name no known tool or fail the schema (Gorilla's hallucination). */
  hallucination: Hallucination;
  /** LM samples under this tool's prompt in the run and how many parsed as a call (the probe's are in config.json). */
  lmSampling: SamplingCounts & { parseRate: number };
  /** Positions considered: chosen by the LM (p_i > τ_s, top k) and by heuristics (overlaps counted once). */
  positions: { lm: number; heuristic: number; total: number };
  candidates: number;
  byProposer: Record<Candidate['proposer'], number>;
  /** Counts per outcome kind (candidates.ts Outcome): kept, below_tau_f, leakage, tool_error, duplicate, … */
  reasons: Partial<Record<OutcomeKind, number>>;
  scored: number;
  /** Calls that reached the tool's τ_f and passed the counterfactual control: reasons.kept. */
  kept: number;
  /**
   * Kept calls written into train.jsonl: at a position with several kept calls only one is inlined (the most useful;
   * stages/inline.ts inlinedAtEachPosition), so inlined ≤ kept.
   */
  inlined: number;
  /**
   * Scored calls with usefulness ≥ τ_f for each τ_f of the grid (the survival curve), in grid order — before the
   * counterfactual control, which then drops some of them (reasons.below_control at the tool's own τ_f).
   * `undecided`: calls whose L_b was skipped (two-pass scoring below τ_min, a `--tau-f-floor` above this τ_f) and whose
   * bound L_a − L_c reaches this τ_f: between `calls` and `calls + undecided` reach it. 0 at and above the floor.
   */
  reachTauF: ReachTauF[];
}

/**
 * The documents whose search the budget cut: how many, the characters after each cut that no pre-filter, position
 * or proposal looked at (the text itself is written out whole), and the ids of the first SEARCH_BUDGET_IDS of them.
 */
export interface SearchBudgetStats {
  docs: number;
  charsNotSearched: number;
  first: string[];
}

/** Ids of cut documents kept in stats.json (and named on stderr); the count has them all. */
export const SEARCH_BUDGET_IDS = 10;

export interface Hallucination {
  /** LM samples that parsed as a call. */
  lmCalls: number;
  unknownTool: number;
  schemaError: number;
  /** (unknownTool + schemaError) / lmCalls, rounded to 1e-4; 0 when there were no LM calls. */
  rate: number;
}

export interface RunStats {
  docsRead: number;
  badRecords: number;
  /**
   * Input paths the reader skipped (hidden, other kinds, FIFOs and devices, symlink loops, files reached twice), by
   * reason: how many and the first few paths. Present only when something was skipped.
   */
  skippedInputs?: Record<string, { count: number; first: string[] }>;
  docsWithKeptCall: number;
  tokensScored?: number;
  /** Documents the search budget cut (config.maxDocTokens); present only when one was cut. */
  searchBudget?: SearchBudgetStats;
  /** Over all tools. */
  hallucination: Hallucination;
  tools: Record<string, ToolStats>;
}

const noHallucination = (): Hallucination => ({ lmCalls: 0, unknownTool: 0, schemaError: 0, rate: 0 });

function countHallucination(h: Hallucination, kind: OutcomeKind): void {
  if (kind === 'unclosed_call' || kind === 'parse_error') return; // not a call at all
  h.lmCalls++;
  if (kind === 'unknown_tool') h.unknownTool++;
  if (kind === 'schema_error') h.schemaError++;
  h.rate = Math.round(((h.unknownTool + h.schemaError) / h.lmCalls) * 1e4) / 1e4;
}

export function emptyStats(tools: readonly string[]): RunStats {
  const stats: RunStats = { docsRead: 0, badRecords: 0, docsWithKeptCall: 0, hallucination: noHallucination(), tools: {} };
  for (const t of tools) {
    stats.tools[t] = {
      docs: 0,
      prefilterDrops: {},
      hallucination: noHallucination(),
      lmSampling: { samples: 0, parsed: 0, parseRate: 0 },
      positions: { lm: 0, heuristic: 0, total: 0 },
      candidates: 0,
      byProposer: { lm: 0, programmatic: 0 },
      reasons: {},
      scored: 0,
      kept: 0,
      inlined: 0,
      reachTauF: TAU_F_GRID.map((tauF) => ({ tauF, calls: 0, undecided: 0 })),
    };
  }
  return stats;
}

/** Fold one judged document into the stats (mutates and returns `stats`). */
export function addDoc(stats: RunStats, work: DocWork): RunStats {
  stats.docsRead++;
  if (work.candidates.some(isKept)) stats.docsWithKeptCall++;
  if (work.searched?.cut) {
    addSearchBudget(stats, { docs: 1, charsNotSearched: work.doc.text.length - work.searched.end, first: [work.doc.id] });
  }
  for (const [tool, kind] of Object.entries(work.skippedKind ?? {})) {
    const s = stats.tools[tool];
    if (s) s.prefilterDrops[kind] = (s.prefilterDrops[kind] ?? 0) + 1;
  }
  for (const tool of work.tools) {
    const s = stats.tools[tool];
    if (!s) continue;
    s.docs++;
    const p = work.positions[tool];
    if (!p) continue;
    s.positions.lm += p.lm.length;
    s.positions.heuristic += p.heuristic.length;
    s.positions.total += new Set([...p.lm.map((x) => x.at), ...p.heuristic]).size;
  }
  for (const c of work.candidates) {
    if (c.proposer !== 'lm') continue;
    const sampling = stats.tools[c.positionTool]?.lmSampling;
    if (!sampling) continue;
    sampling.samples++;
    const kind = c.outcome.kind;
    if (kind !== 'unclosed_call' && kind !== 'parse_error') sampling.parsed++;
    sampling.parseRate = parseRate(sampling);
  }
  for (const c of work.candidates) {
    const s = stats.tools[c.positionTool];
    if (!s) continue;
    s.candidates++;
    s.byProposer[c.proposer]++;
    const kind = c.outcome.kind;
    s.reasons[kind] = (s.reasons[kind] ?? 0) + 1;
    if (c.proposer === 'lm') {
      countHallucination(s.hallucination, kind);
      countHallucination(stats.hallucination, kind);
    }
    // A call whose L_b was skipped is scored too: its usefulness is below τ_min, at most its bound, so it is undecided
    // at the grid's τ_f from τ_min down to its bound (none with the default floor, the grid's first value).
    if (c.usefulness !== undefined || c.usefulnessAtMost !== undefined) s.scored++;
    if (c.usefulness !== undefined) {
      survival([c.usefulness], TAU_F_GRID).forEach(({ kept }, i) => (s.reachTauF[i].calls += kept));
    } else if (c.usefulnessAtMost !== undefined) {
      survival([c.usefulnessAtMost], TAU_F_GRID).forEach(({ kept }, i) => (s.reachTauF[i].undecided += kept));
    }
    if (isKept(c)) s.kept++;
  }
  for (const c of inlinedAtEachPosition(work.candidates.filter(isKept))) {
    const s = stats.tools[c.positionTool];
    if (s) s.inlined++;
  }
  return stats;
}

function addSearchBudget(stats: RunStats, part: SearchBudgetStats): void {
  const total = (stats.searchBudget ??= { docs: 0, charsNotSearched: 0, first: [] });
  total.docs += part.docs;
  total.charsNotSearched += part.charsNotSearched;
  total.first = [...total.first, ...part.first].slice(0, SEARCH_BUDGET_IDS);
}

/**
 * Stats written before a field existed, brought to today's shape with the value the field had implicitly then (a
 * copy; the input is not changed), so a run checkpointed by an earlier version resumes and merges:
 * - reachTauF[i].undecided: 0 (before --tau-f-floor could exceed the grid's first τ_f, every grid count was exact).
 * A field that cannot be derived (e.g. a tool's `inlined`) stays missing, and the shape check names it.
 */
export function withCurrentFields(stats: unknown): unknown {
  if (typeof stats !== 'object' || stats === null) return stats;
  const copy = structuredClone(stats) as { tools?: Record<string, { reachTauF?: unknown }> };
  for (const tool of Object.values(copy.tools ?? {})) {
    if (!Array.isArray(tool?.reachTauF)) continue;
    for (const entry of tool.reachTauF as Array<Partial<ReachTauF>>) {
      if (typeof entry === 'object' && entry !== null && entry.undecided === undefined) entry.undecided = 0;
    }
  }
  return copy;
}

const addCounts = (total: Record<string, number>, part: Record<string, number>) => {
  for (const [key, n] of Object.entries(part)) total[key] = (total[key] ?? 0) + n;
};

function addHallucination(total: Hallucination, part: Hallucination): void {
  total.lmCalls += part.lmCalls;
  total.unknownTool += part.unknownTool;
  total.schemaError += part.schemaError;
  total.rate = total.lmCalls ? Math.round(((total.unknownTool + total.schemaError) / total.lmCalls) * 1e4) / 1e4 : 0;
}

/**
 * Add `part` into `total` (mutates and returns `total`): the stats of a run cut into chunks, summed in chunk order,
 * equal the stats of the run in one piece — every field of RunStats and ToolStats is summed here, and keys new to
 * `total` (reason kinds, pre-filter drops) are appended in `part`'s order, which is their first-occurrence order.
 */
export function mergeStats(total: RunStats, part: RunStats): RunStats {
  total.docsRead += part.docsRead;
  total.badRecords += part.badRecords;
  total.docsWithKeptCall += part.docsWithKeptCall;
  if (part.tokensScored !== undefined) total.tokensScored = (total.tokensScored ?? 0) + part.tokensScored;
  if (part.searchBudget) addSearchBudget(total, part.searchBudget);
  addHallucination(total.hallucination, part.hallucination);
  for (const [tool, p] of Object.entries(part.tools)) {
    const t = total.tools[tool];
    t.docs += p.docs;
    addCounts(t.prefilterDrops, p.prefilterDrops);
    addHallucination(t.hallucination, p.hallucination);
    t.lmSampling.samples += p.lmSampling.samples;
    t.lmSampling.parsed += p.lmSampling.parsed;
    t.lmSampling.parseRate = parseRate(t.lmSampling);
    t.positions.lm += p.positions.lm;
    t.positions.heuristic += p.positions.heuristic;
    t.positions.total += p.positions.total;
    t.candidates += p.candidates;
    t.byProposer.lm += p.byProposer.lm;
    t.byProposer.programmatic += p.byProposer.programmatic;
    addCounts(t.reasons, p.reasons);
    t.scored += p.scored;
    t.kept += p.kept;
    t.inlined += p.inlined;
    p.reachTauF.forEach(({ calls, undecided }, i) => {
      t.reachTauF[i].calls += calls;
      t.reachTauF[i].undecided += undecided;
    });
  }
  return total;
}
