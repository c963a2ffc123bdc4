/**
 * Pure statistics over a pipeline run's `calls.jsonl` (one candidate call per line: tool, args, result or error,
 * position, losses, usefulness, kept, reason). Used by the run viewer; no DOM.
 *
 * Re-judging uses the pipeline's own `usefulness` on the stored losses, so the viewer's counts at τ_f are the calls
 * that reach that τ_f — the CLI's "≥ τ_f" column, before the counterfactual control drops some of them (the
 * control's margins are not in this view). A line without losses (e.g. the tool returned an error) never reaches τ_f.
 * A line whose L_b the run skipped (losses without callOnly, `usefulnessAtMost`: two-pass scoring below the run's
 * τ_f floor) is scored but decided only above its bound; below it, it is counted as `undecided`, not as kept.
 */
import { survival, usefulness } from '../../pipeline/core/scoring/judge.ts';
import type { Losses } from '../../pipeline/core/scoring/losses.ts';

export interface CallRecord {
  tool: string;
  /** min(L_a, L_b) − L_c, nats; null when the call was never scored or its L_b was skipped. */
  usefulness: number | null;
  /** L_a − L_c, nats, when the run skipped L_b: the usefulness is at most this. */
  usefulnessAtMost?: number;
}

export interface ParsedRun {
  calls: CallRecord[];
  /** 1-based line numbers that were not a JSON object with a string `tool`. */
  badLines: number[];
  /**
   * Of the bad lines, how many are a run's training texts (train.jsonl: an object with a string `text` and no
   * `tool`, the kept calls inlined in it) — the file next to calls.jsonl that users open by mistake.
   */
  trainingLines: number;
}

function isLosses(x: unknown): x is Losses {
  const l = x as Losses;
  return (
    typeof x === 'object' && x !== null &&
    Number.isFinite(l.noCall) && Number.isFinite(l.callOnly) && Number.isFinite(l.withResult)
  );
}

/** Parse JSONL text; malformed lines are counted, not fatal. */
export function parseCallsJsonl(text: string): ParsedRun {
  const calls: CallRecord[] = [];
  const badLines: number[] = [];
  let trainingLines = 0;
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line);
    } catch {
      badLines.push(i + 1);
      return;
    }
    if (typeof rec !== 'object' || rec === null || typeof rec.tool !== 'string') {
      badLines.push(i + 1);
      if (typeof rec === 'object' && rec !== null && typeof rec.text === 'string') trainingLines++;
      return;
    }
    const u = isLosses(rec.losses)
      ? usefulness(rec.losses)
      : typeof rec.usefulness === 'number' && Number.isFinite(rec.usefulness)
        ? rec.usefulness
        : null;
    const bound = rec.losses && typeof rec.usefulnessAtMost === 'number' && Number.isFinite(rec.usefulnessAtMost) ? rec.usefulnessAtMost : undefined;
    calls.push({ tool: rec.tool, usefulness: u, ...(u === null && bound !== undefined && { usefulnessAtMost: bound }) });
  });
  return { calls, badLines, trainingLines };
}

export interface ToolCount {
  tool: string;
  candidates: number;
  /** Candidates with losses. */
  scored: number;
  /** Scored candidates with usefulness ≥ τ_f (before the counterfactual control). */
  kept: number;
  /** Scored candidates without L_b whose bound reaches τ_f: each may or may not reach it (τ_f below the run's floor). */
  undecided: number;
}

/** Per-tool counts at one τ_f, sorted by tool name; a last row `all` sums them. */
export function countByTool(calls: readonly CallRecord[], tauF: number): ToolCount[] {
  const byTool = new Map<string, ToolCount>();
  for (const c of calls) {
    const row = byTool.get(c.tool) ?? { tool: c.tool, candidates: 0, scored: 0, kept: 0, undecided: 0 };
    row.candidates++;
    if (c.usefulness !== null) {
      row.scored++;
      if (c.usefulness >= tauF) row.kept++;
    } else if (c.usefulnessAtMost !== undefined) {
      row.scored++;
      if (c.usefulnessAtMost >= tauF) row.undecided++;
    }
    byTool.set(c.tool, row);
  }
  const rows = [...byTool.values()].sort((a, b) => a.tool.localeCompare(b.tool));
  const all = rows.reduce(
    (s, r) => ({ tool: 'all', candidates: s.candidates + r.candidates, scored: s.scored + r.scored, kept: s.kept + r.kept, undecided: s.undecided + r.undecided }),
    { tool: 'all', candidates: 0, scored: 0, kept: 0, undecided: 0 },
  );
  return [...rows, all];
}

/** Evenly spaced thresholds from `min` to `max` inclusive. */
export function thresholds(min: number, max: number, step: number): number[] {
  const n = Math.round((max - min) / step);
  return Array.from({ length: n + 1 }, (_, i) => +(min + i * step).toFixed(6));
}

export interface SurvivalSeries {
  tool: string;
  points: { tauF: number; kept: number }[];
}

/** Kept-vs-τ_f curves, one per tool plus `all`, over the given thresholds. */
export function survivalCurves(calls: readonly CallRecord[], taus: readonly number[]): SurvivalSeries[] {
  const tools = [...new Set(calls.map((c) => c.tool))].sort();
  const curve = (tool: string | null): SurvivalSeries => {
    const us = calls
      .filter((c) => (tool === null || c.tool === tool) && c.usefulness !== null)
      .map((c) => c.usefulness as number);
    return { tool: tool ?? 'all', points: survival(us, taus) };
  };
  return [...tools.map(curve), curve(null)];
}
