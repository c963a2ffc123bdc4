/**
 * Two annotate runs of the same corpus, call by call (gguf-parity.ts): each scored call paired by its exact identity —
 * document, position, and call text with its result (`Tool(input) → result`). The tool and input alone are not unique:
 * a tool can answer one question two ways at one position (QA's "Mexico City" and "MEXICO CITY" both sit at
 * `QA(What is the capital of Mexico?)`), and a comparison keyed without the result pairs one call's L_c with the
 * other's — the whole-nat L_c "differences" of the first parity run. Identities are asserted unique in each run.
 *
 * Losses in calls.jsonl are rounded to 1e-4 nats (node/run/run-records.ts), so a |Δ| here is exact to ±1e-4.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CallRow {
  docId: string;
  at: number;
  tool: string;
  input: string;
  result?: string;
  losses?: { noCall: number; callOnly?: number; withResult: number };
  usefulness?: number;
  /** A bound written instead of usefulness when L_b was not needed (L_a − L_c already below the threshold). */
  usefulnessAtMost?: number;
  kept: boolean;
  reason: string;
}

/** The call's identity: document, character position, and the call as inlined (with its result, when it has one). */
export const callIdentity = (c: Pick<CallRow, 'docId' | 'at' | 'tool' | 'input' | 'result'>): string =>
  `${c.docId} @${c.at} ${c.tool}(${c.input})${c.result === undefined ? '' : ` → ${c.result}`}`;

/** The first parity run's key: no result. Kept to show what it paired wrongly (`oldKeyPairing`). */
const keyWithoutResult = (c: CallRow) => `${c.docId} @${c.at} ${c.tool}(${c.input})`;

/** calls.jsonl of a run folder, only the documents in `docs` when given. */
export function readCalls(dir: string, docs?: ReadonlySet<string>): CallRow[] {
  const rows = readFileSync(join(dir, 'calls.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as CallRow);
  return docs ? rows.filter((c) => docs.has(c.docId)) : rows;
}

/** Calls by identity; throws naming the run and the identity when one occurs twice. */
export function byIdentity(rows: readonly CallRow[], run: string): Map<string, CallRow> {
  const map = new Map<string, CallRow>();
  for (const c of rows) {
    const id = callIdentity(c);
    if (map.has(id)) throw new Error(`${run}: two calls share the identity ${id}`);
    map.set(id, c);
  }
  return map;
}

const LOSSES = ['noCall', 'callOnly', 'withResult'] as const;
export type LossName = (typeof LOSSES)[number];

/** A call judged differently by the two runs, with the reference's distance to τ_f. */
export interface Flip {
  call: string;
  tauF: number;
  /** usefulness (or its bound) in the reference run and in the other. */
  reference: number;
  other: number;
  /** |reference − τ_f|, nats. */
  distanceToTauF: number;
  /** The reasons the two runs give (kept, below_tau_f, below_control: the counterfactual control's margin). */
  reasons: [string, string];
}

/** τ_f of a tool as the run's config.json records it. */
function tauFOf(dir: string): (tool: string) => number {
  const { config } = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { config: { thresholds: Record<string, { tauF: number }> } };
  return (tool) => config.thresholds[tool].tauF;
}

/** The usefulness a call's verdict was taken on (or the bound written in its place); undefined for unscored calls. */
const usefulnessOf = (c: CallRow) => c.usefulness ?? c.usefulnessAtMost;

/** train.jsonl lines of the documents in `docs` (all when undefined). */
function trainLines(dir: string, docs?: ReadonlySet<string>): string[] {
  const lines = readFileSync(join(dir, 'train.jsonl'), 'utf8').split('\n').filter(Boolean);
  return docs ? lines.filter((l) => docs.has((JSON.parse(l) as { id: string }).id)) : lines;
}

/**
 * A train.jsonl line without the losses and usefulness it records for each inlined call: the finetuning data itself
 * (text, inlined calls and their results, positions), which one backend's rounding of a loss's fourth decimal leaves alone.
 */
export function withoutLosses(line: string): string {
  const row = JSON.parse(line) as { calls?: Record<string, unknown>[] };
  return JSON.stringify({ ...row, calls: row.calls?.map(({ losses: _l, usefulness: _u, ...call }) => call) });
}

/**
 * `other` against `reference` over the documents in `docs` (every document when undefined): calls in both, calls in one
 * only, the largest |Δ| of each loss and of usefulness over the paired calls, verdict flips with their distance to
 * τ_f, how many of the reference's scored calls lie within that largest |Δ| of usefulness from τ_f (where a flip was
 * possible), and whether the kept calls and train.jsonl are identical.
 */
export function compareRuns(referenceDir: string, otherDir: string, docs?: ReadonlySet<string>) {
  const tauF = tauFOf(referenceDir);
  const reference = byIdentity(readCalls(referenceDir, docs), referenceDir);
  const other = byIdentity(readCalls(otherDir, docs), otherDir);
  const maxAbsDelta: Record<LossName, number> = { noCall: 0, callOnly: 0, withResult: 0 };
  const flips: Flip[] = [];
  let paired = 0;
  /** The largest |Δ| of min(L_a, L_b) − L_c itself: what a verdict is taken on (losses moving together cancel). */
  let maxAbsDeltaUsefulness = 0;
  for (const [id, c] of other) {
    const r = reference.get(id);
    if (!r) continue;
    paired++;
    for (const k of LOSSES) {
      const [a, b] = [r.losses?.[k], c.losses?.[k]];
      if (a !== undefined && b !== undefined) maxAbsDelta[k] = Math.max(maxAbsDelta[k], round4(Math.abs(a - b)));
    }
    const [ur, uc] = [r.usefulness, c.usefulness];
    if (ur !== undefined && uc !== undefined) maxAbsDeltaUsefulness = Math.max(maxAbsDeltaUsefulness, round4(Math.abs(ur - uc)));
    if (r.kept !== c.kept) {
      const t = tauF(c.tool);
      const [u, v] = [usefulnessOf(r), usefulnessOf(c)];
      flips.push({ call: id, tauF: t, reference: u ?? NaN, other: v ?? NaN, distanceToTauF: round4(Math.abs((u ?? NaN) - t)), reasons: [r.reason, c.reason] });
    }
  }
  const margins = [...reference.values()].flatMap((c) => (usefulnessOf(c) === undefined ? [] : [Math.abs(usefulnessOf(c)! - tauF(c.tool))]));
  const kept = (m: Map<string, CallRow>) => [...m].filter(([, c]) => c.kept).map(([id]) => id).sort();
  const [keptRef, keptOther] = [kept(reference), kept(other)];
  return {
    calls: other.size,
    referenceCalls: reference.size,
    paired,
    onlyInReference: [...reference.keys()].filter((id) => !other.has(id)),
    onlyInOther: [...other.keys()].filter((id) => !reference.has(id)),
    maxAbsDelta,
    maxAbsDeltaUsefulness,
    flips,
    /** The reference's smallest |usefulness − τ_f| over its scored calls, nats. */
    smallestMarginToTauF: round4(Math.min(...margins)),
    /** The reference's scored calls whose margin to τ_f is within the largest |Δ| of usefulness: where a flip was possible. */
    withinDeltaOfTauF: margins.filter((m) => m <= maxAbsDeltaUsefulness).length,
    kept: keptOther.length,
    referenceKept: keptRef.length,
    keptIdentical: JSON.stringify(keptOther) === JSON.stringify(keptRef),
    trainIdentical: JSON.stringify(trainLines(otherDir, docs)) === JSON.stringify(trainLines(referenceDir, docs)),
    trainIdenticalButLosses: JSON.stringify(trainLines(otherDir, docs).map(withoutLosses)) === JSON.stringify(trainLines(referenceDir, docs).map(withoutLosses)),
  };
}

/**
 * The first parity run's pairing, replayed: calls keyed without their result (the last one of a key wins, as a Map
 * built from the rows keeps it), compared with the pairing by identity. How many keys are shared by several calls,
 * and how many paired calls' L_c differ by ≥ 0.01 nats (ten times the largest |Δ| any backend here shows) under each.
 */
export function oldKeyPairing(referenceDir: string, otherDir: string, docs?: ReadonlySet<string>) {
  const reference = readCalls(referenceDir, docs);
  const other = readCalls(otherDir, docs);
  const count = new Map<string, number>();
  for (const c of reference) count.set(keyWithoutResult(c), (count.get(keyWithoutResult(c)) ?? 0) + 1);
  const oldMap = new Map(reference.map((c) => [keyWithoutResult(c), c]));
  const newMap = byIdentity(reference, referenceDir);
  const farApart = (pair: (c: CallRow) => CallRow | undefined) =>
    other.filter((c) => {
      const r = pair(c);
      return r?.losses && c.losses && Math.abs(r.losses.withResult - c.losses.withResult) >= APART;
    }).length;
  return {
    keysSharedByCalls: [...count.values()].filter((n) => n > 1).length,
    callsUnderSharedKeys: [...count.values()].filter((n) => n > 1).reduce((a, b) => a + b, 0),
    lcApartKeyedWithoutResult: farApart((c) => oldMap.get(keyWithoutResult(c))),
    lcApartByIdentity: farApart((c) => newMap.get(callIdentity(c))),
    largestLcGapKeyedWithoutResult: largestGap(other, (c) => oldMap.get(keyWithoutResult(c))),
  };
}

/** nats: two L_c this far apart are not one call's L_c on two backends. */
const APART = 0.01;

function largestGap(rows: readonly CallRow[], pair: (c: CallRow) => CallRow | undefined): number {
  let max = 0;
  for (const c of rows) {
    const r = pair(c);
    if (r?.losses && c.losses) max = Math.max(max, Math.abs(r.losses.withResult - c.losses.withResult));
  }
  return round4(max);
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
