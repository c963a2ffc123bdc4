/**
 * The report's conclusion (issue 31 item 6): which factor moves the off-template and the real-format results and
 * which does not, from the committed runs only. Each factor is one or more differences of two cells (trials over
 * seeds, clustered by prompt) with Newcombe's 95 % interval from the two clustered intervals (cells.ts
 * clusteredDiff); a side with no finished run is "not measured yet". Returns the lines (report.md's last section,
 * results/conclusion.md, the eval README's block) and the rows (summary.json `conclusion`); experiment.test.ts
 * recomputes both from the committed files and checks that every number in the text is one of the rows'.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TrialRecord } from '../metrics.ts';
import type { EvalPrompt } from '../tasks.ts';
import { armKey, cell, clusteredDiff, type ArmKey, type ByArm, type ReportPaths } from './cells.ts';
import { readJsonl } from './corpus-files.ts';
import { cutsOf, MAIN_TRIALS, plannedRuns, toollessIds, trialFiles, type Cut } from './cuts.ts';
import { BASES, reportedRuns, SEEDS, type BaseId, type Run } from './plan.ts';
import { SUBJECT_TOKEN_BINS, subjectTokens } from './report-sections.ts';

/** The section's title (report.md: a level-2 heading; results/conclusion.md: level 1, which the README block drops). */
export const CONCLUSION_TITLE = 'Conclusion: which factor moves the results';

/** The factors, in the order the section states them. */
export const FACTORS = {
  data: 'finetuning data volume',
  pretraining: 'pretraining length',
  subject: 'subject length in tokens',
  phrasing: 'training template vs real format',
} as const;
type Factor = (typeof FACTORS)[keyof typeof FACTORS];

/** "not in the plan": a side whose runs never get the cut (cuts.ts plannedRuns) and have no result on it. */
export type Verdict = 'moves it up' | 'moves it down' | 'no measurable effect' | 'not measured yet' | 'not in the plan';

/** One comparison: x − y on the same kind of prompts, as shares (0–1). */
export interface FactorRow {
  factor: Factor;
  x: string;
  y: string;
  /** The cut (cuts.ts) or the prompts compared, in words. */
  prompts: string;
  /** Prompts in the cut (0 where the row compares no fixed cut). */
  promptCount: number;
  /** The cut's caveat, stated beside a result that moves (cuts.ts). */
  caveat?: string;
  /** A lever row's x arm without tools on the same cut, where it was run (a gain with tools that memory explains shows here). */
  xWithoutTools?: number;
  /** The seeds behind each side (empty: not run yet). */
  seeds: [number[], number[]];
  result?: { x: number; y: number; d: number; lo: number; hi: number };
  verdict: Verdict;
}

/** One side of a comparison: an arm's runs (their committed trials file), the trials it keeps. */
interface Side {
  label: string;
  arm: ArmKey;
  /** results/runs/<run>/<file>; absent: the run's main trials (the report's ByArm). */
  file?: string;
  keep: (t: TrialRecord) => boolean;
}

/** Shares as the section writes them: % with one decimal; points signed. */
export const share = (x: number): string => (100 * x).toFixed(1);
export const points = (x: number): string => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`;

/**
 * The levers, each read on every cut the runs have (cuts.ts): the data volume ((f) against (a)) and the pretraining
 * length (each longer-pretrained base's (a) against (a) on models/default; a base with no run yet is one "not measured
 * yet" row). Then the two fixed comparisons: the subject's length in tokens and the training template against the
 * real format.
 */
export function conclusionSection(p: ReportPaths, byArm: ByArm, prompts: EvalPrompt[]): { lines: string[]; factors: FactorRow[] } {
  const runs = reportedRuns();
  const runsOf = (arm: ArmKey, file?: string): SeedTrials => (!file || file === MAIN_TRIALS)
    ? (byArm.get(arm) ?? []).map((r) => ({ seed: r.run.seed, trials: r.trials }))
    : derivedTrials(p, arm, file);
  const toolless = toollessIds(prompts);
  const cuts = trialFiles(p, runs).flatMap((file) => cutsOf(file, runs.flatMap((r) => armTrials(p, byArm, r, file)), toolless));
  const withTools = (keep: (t: TrialRecord) => boolean) => (t: TrialRecord) => t.tools && keep(t);
  const levers: [Factor, ArmKey, ArmKey][] = [
    [FACTORS.data, 'f', 'a'],
    ...(Object.keys(BASES) as BaseId[]).map((b): [Factor, ArmKey, ArmKey] => [FACTORS.pretraining, `a-${b}`, 'a']),
  ];
  const leverRows = levers.flatMap(([factor, x, y]) => {
    const ran = runs.some((r) => armKey(r) === x && trialFiles(p, [r]).some((f) => runsOf(x, f).length > 0));
    if (!ran) return [{ factor, x: `(${x}) with tools`, y: `(${y}) with tools`, prompts: 'every cut', promptCount: 0, seeds: [[], runsOf(y).map((r) => r.seed)], verdict: 'not measured yet' } as FactorRow];
    return cuts.map((c) => {
      const row = compare(factor, { label: `(${x}) with tools`, arm: x, file: c.file, keep: withTools(c.keep) },
        { label: `(${y}) with tools`, arm: y, file: c.file, keep: withTools(c.keep) }, runsOf, c);
      const planned = plannedRuns(c.file)?.map(armKey);
      if (!row.result && planned && [x, y].some((arm) => !planned.includes(arm))) return { ...row, verdict: 'not in the plan' as const };
      const without = cell(runsOf(x, c.file).map((r) => r.trials), (t) => !t.tools && c.keep(t), (t) => t.correct);
      return without.n ? { ...row, xWithoutTools: without.k / without.n } : row;
    });
  });
  const tokens = subjectTokens(prompts);
  const [short, , long] = SUBJECT_TOKEN_BINS;
  const capitalsOf = (has: (n: number) => boolean) => (t: TrialRecord) => t.tools && tokens.has(t.id) && has(tokens.get(t.id)!);
  const all = (t: TrialRecord) => t.tools;
  const fixed: [Factor, Side, Side, string][] = [
    ...(['a', 'e'] as const).map((arm): [Factor, Side, Side, string] => [FACTORS.subject,
      { label: `(${arm}) with tools, subjects of ${short.label}`, arm, keep: capitalsOf(short.has) },
      { label: `(${arm}) with tools, subjects of ${long.label} tokens`, arm, keep: capitalsOf(long.has) }, 'capitals']),
    ...(['a', 'e'] as const).map((arm): [Factor, Side, Side, string] => [FACTORS.phrasing,
      { label: `(${arm}) with tools, positive control`, arm, file: 'positive-trials.jsonl', keep: all },
      { label: `(${arm}) with tools, Factbook cloze (training-format cut)`, arm, file: 'factbook-train-cut-trials.jsonl', keep: all },
      'held-out capital subjects']),
  ];
  const fixedRows = fixed.map(([factor, x, y, what]) => compare(factor, x, y, runsOf, { label: what, prompts: 0 }));
  const factors = [...leverRows, ...fixedRows];
  return { lines: render(factors), factors };
}

type SeedTrials = { seed: number; trials: TrialRecord[] }[];

/** One run's trials of a file (the main trials from ByArm, which also reads out/). */
function armTrials(p: ReportPaths, byArm: ByArm, r: Run, file: string): TrialRecord[] {
  if (file === MAIN_TRIALS) return byArm.get(armKey(r))?.find((x) => x.run.seed === r.seed && x.run.steps === r.steps)?.trials ?? [];
  const f = join(p.committed(r), file);
  return existsSync(f) ? readJsonl<TrialRecord>(f) : [];
}

/** The arm's runs (one per seed) whose derived-set trials (results/runs/<run>/<file>) are committed. */
function derivedTrials(p: ReportPaths, arm: ArmKey, file: string): SeedTrials {
  return reportedRuns().filter((r) => armKey(r) === arm).flatMap((r) => {
    const f = join(p.committed(r), file);
    return existsSync(f) ? [{ seed: r.seed, trials: readJsonl<TrialRecord>(f) }] : [];
  });
}

function compare(factor: Factor, x: Side, y: Side, runsOf: (arm: ArmKey, file?: string) => SeedTrials, cut: Pick<Cut, 'label' | 'prompts' | 'caveat'>): FactorRow {
  const [rx, ry] = [runsOf(x.arm, x.file), runsOf(y.arm, y.file)];
  const score = (t: TrialRecord) => t.correct;
  const [cx, cy] = [cell(rx.map((r) => r.trials), x.keep, score), cell(ry.map((r) => r.trials), y.keep, score)];
  const row: FactorRow = { factor, x: x.label, y: y.label, prompts: cut.label, promptCount: cut.prompts, ...(cut.caveat ? { caveat: cut.caveat } : {}),
    seeds: [cx.n ? rx.map((r) => r.seed) : [], cy.n ? ry.map((r) => r.seed) : []], verdict: 'not measured yet' };
  if (cx.n === 0 || cy.n === 0) return row;
  const result = clusteredDiff(cx, cy);
  const verdict: Verdict = result.lo > 0 ? 'moves it up' : result.hi < 0 ? 'moves it down' : 'no measurable effect';
  return { ...row, result, verdict };
}

function render(rows: FactorRow[]): string[] {
  const L: string[] = [];
  L.push('Generated from the committed runs (results/runs/) by conclusion.ts: each lever (finetuning data volume, pretraining length) is read on ' +
    'every eval cut the runs have (cuts.ts: every trials file in a run\'s results folder, and in it every family × format group that calls for a ' +
    'tool, beside the eval set\'s pooled off-template and real-format cuts), then the two fixed comparisons. Each row is x − y in points, with a ' +
    '95 % Newcombe interval from the two intervals clustered by prompt; "moves it" when the interval excludes 0.', '');
  L.push('| factor | x | y | cut (prompts) | seeds (x; y) | x, % | y, % | x − y, points [95 %] | reading |', '|---|---|---|---|---|---:|---:|---|---|');
  const seeds = (s: number[]) => (s.length ? s.join(', ') : 'none');
  for (const r of rows) {
    const res = r.result;
    L.push(`| ${r.factor} | ${r.x} | ${r.y} | ${r.prompts}${r.promptCount ? ` (${r.promptCount})` : ''} | ${seeds(r.seeds[0])}; ${seeds(r.seeds[1])} | ${res ? share(res.x) : '–'} | ${res ? share(res.y) : '–'} | ` +
      `${res ? `${points(res.d)} [${points(res.lo)}, ${points(res.hi)}]` : '–'} | ${r.verdict} |`);
  }
  L.push('', ...reading(rows));
  return L;
}

/** The levers the implication speaks of, in words. */
const LEVER_WORDS: Partial<Record<Factor, string>> = { [FACTORS.data]: 'more annotated finetuning data', [FACTORS.pretraining]: 'a longer-pretrained base' };

/**
 * The rows in words: what moves (each row, with its cut and interval), what does not, what is not measured, the
 * caveats of the cuts that move, then what it implies. Exported for conclusion.test.ts, which reads the combinations
 * of verdicts the committed runs do not show, and plants a result on a cut.
 */
export function reading(readRows: FactorRow[]): string[] {
  // A row no run is planned to fill is listed once and read no further: it is neither pending nor measured.
  const unplanned = readRows.filter((r) => r.verdict === 'not in the plan');
  const rows = readRows.filter((r) => r.verdict !== 'not in the plan');
  const all = Object.values(FACTORS);
  const of = (f: Factor) => rows.filter((r) => r.factor === f);
  const seedsIn = (side: number[]) => SEEDS.filter((seed) => side.includes(seed)).length;
  const complete = (r: FactorRow) => r.result !== undefined && r.seeds.every((side) => seedsIn(side) === SEEDS.length);
  const list = (items: string[]) => (items.length ? items.join('; ') : 'none');
  const interval = (r: FactorRow) => `${points(r.result!.d)} [${points(r.result!.lo)}, ${points(r.result!.hi)}]`;
  const moving = rows.filter((r) => r.verdict.startsWith('moves'));
  const still = all.flatMap((f) => {
    const flat = of(f).filter((r) => r.verdict === 'no measurable effect');
    if (!flat.length) return [];
    return [of(f).some((r) => r.verdict.startsWith('moves')) ? `${f} on the other cuts measured` : f];
  });
  const open = all.flatMap((f) => {
    const missing = of(f).filter((r) => !complete(r));
    if (!missing.length) return [];
    if (missing.length === of(f).length && missing.every((r) => !r.result)) return [f];
    return missing.map((r) => `${f}, ${r.x} on ${r.prompts}${r.result ? ` (so far ${Math.min(...r.seeds.map(seedsIn))} of ${SEEDS.length} seeds)` : ''}`);
  });
  const caveats = [...new Map(moving.filter((r) => r.caveat).map((r) => [r.prompts, r.caveat!])).entries()].map(([cut, c]) => `${cut}: ${c}`);
  const memory = moving.filter((r) => r.xWithoutTools !== undefined).map((r) => `${r.x.replace(' with tools', '')} without tools on ${r.prompts}: ${share(r.xWithoutTools!)} %`);
  const L = [
    `- Moves the results: ${list(moving.map((r) => `${r.factor}, ${r.x} − ${r.y} on ${r.prompts}: ${interval(r)} (${r.verdict})`))}.`,
    `- No measurable effect where measured: ${list(still)}.`,
    `- Not measured yet: ${list(open)}.`,
    ...(unplanned.length ? [`- Not in the plan (no run of one side gets the cut, so it is not read): ${list(unplanned.map((r) => `${r.factor}, ${r.x} − ${r.y} on ${r.prompts}`))}.`] : []),
    ...(caveats.length ? [`- Caveats of the cuts where a result moves: ${caveats.join('; ')}.`] : []),
    ...(memory.length ? [`- The same arm without tools, where a lever moves a result (what memory alone answers): ${memory.join('; ')}.`] : []),
  ];
  L.push(`- What it implies for the model a user needs: ${implication(rows, complete)}`);
  return L;
}

/** The implication: what the phrasing rows show, what each lever does on which cuts, and that model size is untested. */
function implication(rows: FactorRow[], complete: (r: FactorRow) => boolean): string {
  const of = (f: Factor) => rows.filter((r) => r.factor === f);
  const levers = [FACTORS.data, FACTORS.pretraining];
  const lever = (f: Factor) => LEVER_WORDS[f]!;
  const up = (f: Factor) => of(f).filter((r) => r.verdict === 'moves it up');
  const down = (f: Factor) => of(f).filter((r) => r.verdict === 'moves it down');
  const measured = (f: Factor) => of(f).every(complete);
  const unmeasured = (f: Factor) => of(f).every((r) => !r.result);
  const cutsOfRows = (rs: FactorRow[]) => [...new Set(rs.map((r) => r.prompts))].join(', ');
  const verb = (fs: Factor[], singular: string, plural: string) => `${fs.map(lever).join(' and ')} ${fs.length > 1 ? plural : singular}`;
  const sentences: string[] = [];
  // The arms that answer in their training template far more often than in the real format (the rows' x labels start "(arm)").
  const carriers = of(FACTORS.phrasing).filter((r) => r.verdict === 'moves it up').map((r) => r.x.split(' ')[0]);
  if (carriers.length) {
    sentences.push(`${carriers.join(' and ')} answer${carriers.length > 1 ? '' : 's'} held-out subjects in the template it was finetuned on far more often ` +
      "than in the Factbook's own format: the calls are learned; what fails is carrying them to phrasings and formats the finetuning did not show");
  }
  const raising = levers.filter((f) => up(f).length > 0);
  for (const f of raising) {
    const flat = of(f).some((r) => r.verdict === 'no measurable effect');
    sentences.push(`${lever(f)} raises the results on ${cutsOfRows(up(f))}${up(f).some((r) => r.caveat) ? ' (with the caveats above)' : ''}` +
      `${flat ? ', with no measurable effect on the other cuts measured' : ''}`);
  }
  // A lever that only lowers a result (an interval below 0) is said so, and counts as not raising it.
  const lowering = levers.filter((f) => down(f).length > 0 && up(f).length === 0);
  if (lowering.length) sentences.push(`${verb(lowering, 'lowers', 'lower')} the results on ${cutsOfRows(lowering.flatMap(down))}`);
  const quiet = levers.filter((f) => !raising.includes(f) && !lowering.includes(f));
  if (!raising.length && !lowering.length && levers.every(measured)) {
    // "No measurable effect" bounds the effect, it does not make it 0: say how large a gain the intervals leave open.
    const openGain = Math.max(...levers.flatMap((f) => of(f).map((r) => r.result!.hi)));
    sentences.push('neither more annotated finetuning data nor a longer-pretrained base raises the results on any cut ' +
      `(the largest gain their intervals leave open is ${points(openGain)} points)`);
  } else {
    const flat = quiet.filter((f) => measured(f));
    if (flat.length) sentences.push(`${verb(flat, 'does', 'do')} not move the results on any cut`);
    const pending = quiet.filter((f) => !measured(f));
    if (pending.length) {
      const yet = pending.some((f) => !unmeasured(f)) ? 'not measured on every cut and seed yet' : 'not measured yet';
      sentences.push(`whether ${pending.map(lever).join(' or ')} moves the results is ${yet}`);
    }
  }
  sentences.push('the model\'s own size was not varied in these runs, so what a larger model would do is not measured');
  return sentences.map((x) => x[0].toUpperCase() + x.slice(1) + '.').join(' ');
}
