/**
 * The experiment's finetuning arms (issue 20), built from one annotate run (pure: records in, records out).
 *
 *   a  kept      the pipeline's train.jsonl as written (calls kept by min(L_a, L_b) − L_c ≥ τ_f and the control)
 *   b  all       every proposed call that ran (has a result), no loss filter, no control, no leakage guard: one per
 *                position (a seeded pick where several were proposed at one place), all positions of a document
 *   c  random    as many calls per tool as (a) keeps, drawn uniformly from the same pool as (b) (any document,
 *                any position): the proposers without the filter's choice, at (a)'s density
 *   d  no-calls  (a)'s documents without calls (the paper's CC baseline), windows anchored where (a)'s calls were
 *   e  kb-prose  (a) plus the templated KB prose annotated by the same pipeline (train subjects only)
 *   f  full      (a)'s recipe on the whole non-held-out corpus (issue 31 item 3: the data-volume confound)
 * In every arm, calls whose argument names a held-out subject are removed first (withoutHeldOutCalls).
 * The control (base mixture alone, `--mix 1`) takes (a)'s file only to satisfy the trainer; it draws no C* row.
 */
import { formatCall } from '../../core/call-syntax.ts';
import { escapeBrackets, inlineCalls } from '../../core/stages/inline.ts';
import type { Candidate } from '../../core/candidates.ts';
import { toolSpec } from '../../core/tools/registry.ts';
import { mulberry32, type Random } from '../../random/mulberry32.ts';
import type { CorpusDoc } from './heldout.ts';

export const ARMS = ['a', 'b', 'c', 'd', 'e', 'f'] as const;
export type Arm = (typeof ARMS)[number];
export const ARM_NAMES: Record<Arm | 'control', string> = {
  a: 'kept calls (the pipeline)',
  b: 'every proposed call, no filter',
  c: 'random calls, (a)\'s count per tool',
  // Not call-free: the base mixture every arm and the control share (finetune.ts, MIXTURE_SCHEDULE) has 30 % rows
  // that begin with a synthetic `[QA(…) -> …]` prefix; (d) has no pipeline calls, and the name says so.
  d: 'no pipeline calls (CC baseline; base mixture with 30 % synthetic call rows)',
  e: '(a) + KB prose',
  f: 'kept calls, whole non-held-out corpus',
  control: 'base mixture only (30 % synthetic call rows)',
};

/** A train.jsonl record as annotate writes it (the fields the arms use). */
export interface TrainRecord {
  id: string;
  text: string;
  source?: string;
  calls?: { tool: string; input: string; result: string; at: number }[];
  anchors?: number[];
}

/** A calls.jsonl row (annotate's record of every candidate, kept or not). */
export type CallRow = Pick<Candidate, 'docId' | 'tool' | 'input' | 'at' | 'result' | 'error'> & {
  kept: boolean;
  /** The candidate's outcome as the file writes it (candidates.ts reasonText): kind, then ": " and the detail. */
  reason: string;
};

/** e(c, r) as the pipeline writes it (stages.ts callText): quoted arguments and result formatting from the spec. */
export function callText(tool: string, input: string, result: string): string {
  const spec = toolSpec(tool);
  const written = spec?.formatResult ? spec.formatResult(result) : result;
  return formatCall({ tool, input }, { quoted: spec?.argument.syntax === 'quoted', result: written });
}

function inline(doc: CorpusDoc, calls: readonly CallRow[]): TrainRecord {
  const cands = calls.map((c) => ({ ...c, usefulness: 0, losses: { noCall: 0, callOnly: 0, withResult: 0 } }) as unknown as Candidate);
  const out = inlineCalls(doc.text, cands, (c) => callText(c.tool, c.input, c.result!));
  return { id: doc.id, text: out.text, source: doc.source, calls: out.calls.map(({ tool, input, result, at }) => ({ tool, input, result, at })) };
}

/** The pool (b) and (c) draw from: candidates that ran and returned a non-empty result. */
export function ranCalls(rows: readonly CallRow[]): CallRow[] {
  return rows.filter((r) => typeof r.result === 'string' && r.result.trim() !== '' && !r.error);
}

const key = (r: Pick<CallRow, 'docId' | 'at'>) => `${r.docId}\u0000${r.at}`;

function byDoc(rows: readonly CallRow[], docs: ReadonlyMap<string, CorpusDoc>): TrainRecord[] {
  const groups = new Map<string, CallRow[]>();
  for (const r of rows) groups.set(r.docId, [...(groups.get(r.docId) ?? []), r]);
  return [...groups].flatMap(([id, calls]) => {
    const doc = docs.get(id);
    return doc ? [inline(doc, calls)] : [];
  });
}

function pickOnePerPosition(rows: readonly CallRow[], rng: Random): CallRow[] {
  const groups = new Map<string, CallRow[]>();
  for (const r of rows) groups.set(key(r), [...(groups.get(key(r)) ?? []), r]);
  return [...groups.values()].map((g) => g[Math.floor(rng.next() * g.length)]);
}

/** (b): one call per proposed position, every position that has a call that ran. */
export function armAll(rows: readonly CallRow[], docs: ReadonlyMap<string, CorpusDoc>, seed: number): TrainRecord[] {
  return byDoc(pickOnePerPosition(ranCalls(rows), mulberry32(seed)), docs);
}

/** Calls per tool in a set of records. */
export function callsPerTool(records: readonly TrainRecord[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) for (const c of r.calls ?? []) out[c.tool] = (out[c.tool] ?? 0) + 1;
  return out;
}

/** (c): per tool, (a)'s count of positions drawn uniformly (without replacement) from the calls that ran. */
export function armRandom(rows: readonly CallRow[], docs: ReadonlyMap<string, CorpusDoc>, perTool: Record<string, number>, seed: number): TrainRecord[] {
  const rng = mulberry32(seed);
  const onePer = pickOnePerPosition(ranCalls(rows), rng);
  const chosen: CallRow[] = [];
  const taken = new Set<string>();
  for (const [tool, n] of Object.entries(perTool).sort()) {
    const pool = onePer.filter((r) => r.tool === tool && !taken.has(key(r)));
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(rng.next() * (i + 1));
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    for (const r of pool.slice(0, n)) {
      chosen.push(r);
      taken.add(key(r));
    }
  }
  return byDoc(chosen, docs);
}

/** (d): the original texts of (a)'s records (brackets escaped as in (a)), anchored at (a)'s call offsets. */
export function armNoCalls(kept: readonly TrainRecord[], docs: ReadonlyMap<string, CorpusDoc>): TrainRecord[] {
  return kept.flatMap((r) => {
    const doc = docs.get(r.id);
    if (!doc) return [];
    return [{ id: r.id, text: escapeBrackets(doc.text), source: doc.source, anchors: (r.calls ?? []).map((c) => c.at) }];
  });
}

/**
 * Removes every call whose argument names a held-out subject ("[QA("What is the capital of Algeria?") -> Algiers]" in
 * a neighbour's section would teach a held-out fact): a record keeps its other calls (re-inlined by the pipeline's
 * inlineCalls from the original text) and is dropped when none is left. Returns the records and the calls removed.
 */
export function withoutHeldOutCalls(records: readonly TrainRecord[], docs: ReadonlyMap<string, CorpusDoc>, subjects: readonly string[]): { records: TrainRecord[]; removed: number } {
  let removed = 0;
  const out = records.flatMap((r) => {
    const calls = r.calls ?? [];
    const keep = calls.filter((c) => !mentionsAny(c.input, subjects));
    removed += calls.length - keep.length;
    if (keep.length === calls.length) return [r];
    const doc = docs.get(r.id);
    if (keep.length === 0 || !doc) return [];
    const rows = keep.map((c) => ({ docId: r.id, tool: c.tool, input: c.input, at: c.at, result: c.result, kept: true, reason: 'kept' as const }));
    return [inline(doc, rows)];
  });
  return { records: out, removed };
}

/** Candidates whose argument names none of the subjects (the pool of arms b and c). */
export function withoutHeldOutRows(rows: readonly CallRow[], subjects: readonly string[]): CallRow[] {
  return rows.filter((r) => !mentionsAny(r.input, subjects));
}

/** Names a held-out subject (word-bounded): such a text may not enter any arm. */
export function mentionsAny(text: string, subjects: readonly string[]): boolean {
  return subjects.some((s) => new RegExp(`(^|[^\\p{L}])${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}])`, 'u').test(text));
}
