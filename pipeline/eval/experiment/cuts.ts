/**
 * The eval cuts the conclusion reads (issue 47 item 1: "every lever on every eval cut the runs have"), found from the
 * committed trials rather than listed by hand: every trials file any run's results folder holds (trials.jsonl, the
 * eval set, and each derived set's <set>-trials.jsonl), and in each file every family × format group whose prompts
 * call for a tool, plus the eval set's two pooled cuts (off-template, real-format). A new set evaluated on the runs
 * is a new cut without a line of code here.
 */
import { existsSync, readdirSync } from 'node:fs';
import type { TrialRecord } from '../metrics.ts';
import type { EvalPrompt } from '../tasks.ts';
import type { ReportPaths } from './cells.ts';
import { DOSE_EXISTING_RUNS, DOSE_RUNS, type Run } from './plan.ts';

/** The eval set's trials (with tools for every run, without for the baselines). */
export const MAIN_TRIALS = 'trials.jsonl';

export interface Cut {
  /** Stable id: the file, and the family and format group when the cut is one. */
  id: string;
  label: string;
  /** The trials file in results/runs/<run>/. */
  file: string;
  /** Prompts in the cut (over the trials read). */
  prompts: number;
  keep: (t: TrialRecord) => boolean;
  /** What a reader must know before trusting a result on this cut (stated beside any result that moves). */
  caveat?: string;
}

/**
 * The derived sets by file: a name for the reader, where it has them the caveats stated with its results, and where
 * only some runs get the set, which (`runs`; absent: every reported run).
 */
const KNOWN_SETS: Record<string, { name: string; caveat?: (prompts: number) => string; runs?: () => Run[] }> = {
  'positive-trials.jsonl': { name: 'positive control (the training templates)', caveat: () => 'the finetuning templates themselves: it shows the calls were learned, not that they carry over' },
  'factbook-train-cut-trials.jsonl': {
    name: 'Factbook cloze, training-format cut',
    caveat: (n) => `built after the first Factbook cut failed (post hoc), ${n} prompts of one relation, one pretraining run per base, and its sections were in every base's pretraining text`,
  },
  'fresh-trials.jsonl': {
    name: 'fresh in-format set (pre-registered)',
    caveat: (n) => `${n} prompts registered before its runs (preregistration.md); its sections were in every base's pretraining text (fresh-in-format-exposure.json)`,
    // The dose lane's runs and the existing runs it finetunes again (dose-lane.ts); not (f), whose whole-corpus
    // annotation only the main lane makes.
    runs: () => [...DOSE_EXISTING_RUNS, ...DOSE_RUNS],
  },
};

/** The runs planned to get the trials file `file`, or undefined where every reported run does. */
export const plannedRuns = (file: string): Run[] | undefined => KNOWN_SETS[file]?.runs?.();

/** The trials files the runs have: the eval set's first, then every derived set's that any run's results folder holds. */
export function trialFiles(p: ReportPaths, runs: readonly Run[]): string[] {
  const files = new Set<string>();
  for (const r of runs) {
    const dir = p.committed(r);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir)) if (f.endsWith('-trials.jsonl')) files.add(f);
  }
  return [MAIN_TRIALS, ...[...files].sort()];
}

/**
 * The cuts of one trials file, from its trials (any runs'): for the eval set the two pooled cuts, then each family ×
 * format group; prompts known to need no call (`toolless`: the eval set's no-call families) are no cut.
 */
export function cutsOf(file: string, trials: readonly TrialRecord[], toolless: ReadonlySet<string>): Cut[] {
  const withTool = trials.filter((t) => !toolless.has(t.id));
  const groups = new Map<string, { family: string; real: boolean; ids: Set<string> }>();
  for (const t of withTool) {
    const key = `${t.family}|${t.real === true}`;
    const g = groups.get(key) ?? { family: t.family, real: t.real === true, ids: new Set<string>() };
    g.ids.add(t.id);
    groups.set(key, g);
  }
  const known = KNOWN_SETS[file];
  const families = new Set([...groups.values()].map((g) => g.family));
  const out: Cut[] = [];
  const count = (keep: (t: TrialRecord) => boolean) => new Set(withTool.filter(keep).map((t) => t.id)).size;
  if (file === MAIN_TRIALS) {
    const off = (t: TrialRecord) => !toolless.has(t.id) && t.real !== true;
    const real = (t: TrialRecord) => !toolless.has(t.id) && t.real === true;
    out.push({ id: `${file}|off-template`, label: 'off-template (the tool families\' eval phrasings)', file, prompts: count(off), keep: off });
    out.push({ id: `${file}|real-format`, label: 'real-format cloze (Factbook and SOTU)', file, prompts: count(real), keep: real });
  }
  for (const [key, g] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const keep = (t: TrialRecord) => t.family === g.family && (t.real === true) === g.real && !toolless.has(t.id);
    const format = g.real ? 'real format' : 'templates';
    const label = known ? `${known.name}${families.size > 1 ? `, ${g.family}, ${format}` : ''}` : `${g.family}, ${format}${file === MAIN_TRIALS ? '' : ` (${file})`}`;
    out.push({ id: `${file}|${key}`, label, file, prompts: g.ids.size, keep, ...(known?.caveat ? { caveat: known.caveat(g.ids.size) } : {}) });
  }
  return out;
}

/** The eval set's prompts that need no call (their families are scored by the no-call rate, not by an answer). */
export const toollessIds = (prompts: readonly EvalPrompt[]): Set<string> => new Set(prompts.filter((q) => !q.tool).map((q) => q.id));
