/**
 * When a kept call matches a label (README "What counts as a match"), and precision / recall over a set. Pure.
 *
 * - Position: the call's offset, moved past whitespace (a call goes before " Madrid"), is within one character of
 *   the label's offset (so "before $36" and "before 36", "before (Liberty" and "before Liberty" both count).
 * - Tool: the same.
 * - Result: correct for the tool, as its spec compares results (`sameResult` in tools/<name>/index.ts): numbers
 *   equal at the label's precision; a QA answer that begins with the labelled answer; a Calendar result that names
 *   the labelled year and no day or month the set does not know; a translation sharing at least half its words with
 *   an accepted one (word F1 ≥ 0.5).
 */
import { foldText } from '../../core/text/compare.ts';
import { toolSpec } from '../../core/tools/registry.ts';
import { TOOLS, type Label, type Passage, type Split, type ToolName } from './labels.ts';

export interface KeptCall {
  docId: string;
  tool: string;
  input: string;
  result: string;
  at: number;
}

export function positionMatches(text: string, callAt: number, labelAt: number): boolean {
  let p = callAt;
  while (p < text.length && /\s/.test(text[p])) p++;
  return Math.abs(p - labelAt) <= 1;
}

/** The result is one of the label's, as the tool compares its results (ToolSpec.sameResult). */
export function resultMatches(tool: ToolName, result: string, label: Label): boolean {
  const same = toolSpec(tool)?.sameResult ?? ((r: string, w: string) => foldText(r) === foldText(w));
  return [label.result, ...(label.accept ?? [])].some((want) => same(result, want));
}

export function callMatches(text: string, call: KeptCall, label: Label): boolean {
  return call.tool === label.tool && positionMatches(text, call.at, label.at) && resultMatches(label.tool, call.result, label);
}

export interface Counts {
  passages: number;
  labels: number;
  kept: number;
  /** Kept calls that match a label. */
  keptCorrect: number;
  /** Labels matched by a kept call. */
  labelsFound: number;
}

export interface Scores extends Counts {
  precision: number | null;
  recall: number | null;
  keptPer100: number;
}

export type Report = Record<Split, Record<ToolName | 'all', Scores>>;

export interface Judged {
  passage: Passage;
  call: KeptCall;
  label: Label | null;
}

/** Score kept calls against the labels, per split and tool; also each kept call with the label it matched. */
export function evaluate(passages: readonly Passage[], kept: readonly KeptCall[]): { report: Report; judged: Judged[]; missed: Array<{ passage: Passage; label: Label }> } {
  const byDoc = new Map<string, KeptCall[]>();
  for (const c of kept) byDoc.set(c.docId, [...(byDoc.get(c.docId) ?? []), c]);
  const zero = (): Counts => ({ passages: 0, labels: 0, kept: 0, keptCorrect: 0, labelsFound: 0 });
  const counts = {} as Record<Split, Record<ToolName | 'all', Counts>>;
  for (const split of ['dev', 'test'] as const) counts[split] = Object.fromEntries([...TOOLS, 'all'].map((t) => [t, zero()])) as Record<ToolName | 'all', Counts>;
  const judged: Judged[] = [];
  const missed: Array<{ passage: Passage; label: Label }> = [];
  for (const p of passages) {
    const c = counts[p.split];
    for (const t of [...TOOLS, 'all'] as const) c[t].passages++;
    const calls = byDoc.get(p.id) ?? [];
    for (const call of calls) {
      const label = p.labels.find((l) => callMatches(p.text, call, l)) ?? null;
      judged.push({ passage: p, call, label });
      for (const t of [call.tool as ToolName, 'all'] as const) {
        if (!c[t]) continue;
        c[t].kept++;
        if (label) c[t].keptCorrect++;
      }
    }
    for (const label of p.labels) {
      const found = calls.some((call) => callMatches(p.text, call, label));
      if (!found) missed.push({ passage: p, label });
      for (const t of [label.tool, 'all'] as const) {
        c[t].labels++;
        if (found) c[t].labelsFound++;
      }
    }
  }
  const report = {} as Report;
  for (const split of ['dev', 'test'] as const) {
    report[split] = {} as Record<ToolName | 'all', Scores>;
    for (const [t, k] of Object.entries(counts[split]) as Array<[ToolName | 'all', Counts]>) {
      report[split][t] = {
        ...k,
        precision: k.kept === 0 ? null : round(k.keptCorrect / k.kept),
        recall: k.labels === 0 ? null : round(k.labelsFound / k.labels),
        keptPer100: k.passages === 0 ? 0 : round((100 * k.kept) / k.passages),
      };
    }
  }
  return { report, judged, missed };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
