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
import { reportedRuns, SEEDS } from './plan.ts';
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

export type Verdict = 'moves it up' | 'moves it down' | 'no measurable effect' | 'not measured yet';

/** One comparison: x − y on the same kind of prompts, as shares (0–1). */
export interface FactorRow {
  factor: Factor;
  x: string;
  y: string;
  prompts: string;
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

export function conclusionSection(p: ReportPaths, byArm: ByArm, prompts: EvalPrompt[]): { lines: string[]; factors: FactorRow[] } {
  const toolFamilies = new Set(prompts.filter((q) => q.tool).map((q) => q.family));
  const offTemplate = (t: TrialRecord) => t.tools && toolFamilies.has(t.family) && t.real !== true;
  const realFormat = (t: TrialRecord) => t.tools && t.real === true;
  const tokens = subjectTokens(prompts);
  const [short, , long] = SUBJECT_TOKEN_BINS;
  const capitalsOf = (has: (n: number) => boolean) => (t: TrialRecord) => t.tools && tokens.has(t.id) && has(tokens.get(t.id)!);
  const withTools = (t: TrialRecord) => t.tools;
  const OFF = 'off-template (the tool families\' eval phrasings)';
  const REAL = 'real-format cloze (Factbook and SOTU)';
  const pairs: [Factor, Side, Side, string][] = [
    [FACTORS.data, { label: '(f) with tools', arm: 'f', keep: offTemplate }, { label: '(a) with tools', arm: 'a', keep: offTemplate }, OFF],
    [FACTORS.data, { label: '(f) with tools', arm: 'f', keep: realFormat }, { label: '(a) with tools', arm: 'a', keep: realFormat }, REAL],
    [FACTORS.pretraining, { label: '(a-pt10x) with tools', arm: 'a-pt10x', keep: offTemplate }, { label: '(a) with tools', arm: 'a', keep: offTemplate }, OFF],
    [FACTORS.pretraining, { label: '(a-pt10x) with tools', arm: 'a-pt10x', keep: realFormat }, { label: '(a) with tools', arm: 'a', keep: realFormat }, REAL],
    ...(['a', 'e'] as const).map((arm): [Factor, Side, Side, string] => [FACTORS.subject,
      { label: `(${arm}) with tools, subjects of ${short.label}`, arm, keep: capitalsOf(short.has) },
      { label: `(${arm}) with tools, subjects of ${long.label} tokens`, arm, keep: capitalsOf(long.has) }, 'capitals']),
    ...(['a', 'e'] as const).map((arm): [Factor, Side, Side, string] => [FACTORS.phrasing,
      { label: `(${arm}) with tools, positive control`, arm, file: 'positive-trials.jsonl', keep: withTools },
      { label: `(${arm}) with tools, Factbook cloze (training-format cut)`, arm, file: 'factbook-train-cut-trials.jsonl', keep: withTools },
      'held-out capital subjects']),
  ];
  const runsOf = (side: Side) => side.file ? derivedTrials(p, side.arm, side.file) : (byArm.get(side.arm) ?? []).map((r) => ({ seed: r.run.seed, trials: r.trials }));
  const factors = pairs.map(([factor, x, y, what]) => compare(factor, [x, runsOf(x)], [y, runsOf(y)], what));
  return { lines: render(factors), factors };
}

type SeedTrials = { seed: number; trials: TrialRecord[] }[];

/** The arm's runs (one per seed) whose derived-set trials (results/runs/<run>/<file>) are committed. */
function derivedTrials(p: ReportPaths, arm: ArmKey, file: string): SeedTrials {
  return reportedRuns().filter((r) => armKey(r) === arm).flatMap((r) => {
    const f = join(p.committed(r), file);
    return existsSync(f) ? [{ seed: r.seed, trials: readJsonl<TrialRecord>(f) }] : [];
  });
}

function compare(factor: Factor, [x, rx]: [Side, SeedTrials], [y, ry]: [Side, SeedTrials], prompts: string): FactorRow {
  const row: FactorRow = { factor, x: x.label, y: y.label, prompts, seeds: [rx.map((r) => r.seed), ry.map((r) => r.seed)], verdict: 'not measured yet' };
  const score = (t: TrialRecord) => t.correct;
  const [cx, cy] = [cell(rx.map((r) => r.trials), x.keep, score), cell(ry.map((r) => r.trials), y.keep, score)];
  if (cx.n === 0 || cy.n === 0) return row;
  const result = clusteredDiff(cx, cy);
  const verdict: Verdict = result.lo > 0 ? 'moves it up' : result.hi < 0 ? 'moves it down' : 'no measurable effect';
  return { ...row, result, verdict };
}

function render(rows: FactorRow[]): string[] {
  const L: string[] = [];
  L.push('Generated from the committed runs (results/runs/) by conclusion.ts: each row is x − y in points, with a 95 % Newcombe interval from the two ' +
    'intervals clustered by prompt; "moves it" when the interval excludes 0. Off-template: the eval set\'s own phrasings of the tool families ' +
    '(none a training template); real-format: the cloze prompts cut from held-out Factbook sections and SOTU addresses.', '');
  L.push('| factor | x | y | prompts | seeds (x; y) | x, % | y, % | x − y, points [95 %] | reading |', '|---|---|---|---|---|---:|---:|---|---|');
  const seeds = (s: number[]) => (s.length ? s.join(', ') : 'none');
  for (const r of rows) {
    const res = r.result;
    L.push(`| ${r.factor} | ${r.x} | ${r.y} | ${r.prompts} | ${seeds(r.seeds[0])}; ${seeds(r.seeds[1])} | ${res ? share(res.x) : '–'} | ${res ? share(res.y) : '–'} | ` +
      `${res ? `${points(res.d)} [${points(res.lo)}, ${points(res.hi)}]` : '–'} | ${r.verdict} |`);
  }
  L.push('', ...reading(rows));
  return L;
}

/**
 * The rows in words: per factor what moves, what does not, what is not measured; then what it implies. Exported for
 * conclusion.test.ts, which reads every combination of verdicts the two levers (data, pretraining) can take.
 */
export function reading(rows: FactorRow[]): string[] {
  const of = (f: Factor) => rows.filter((r) => r.factor === f);
  const moves = (f: Factor) => of(f).some((r) => r.verdict.startsWith('moves'));
  const up = (f: Factor) => of(f).some((r) => r.verdict === 'moves it up');
  // Measured: every row has a result from every planned seed on both sides (a lane part-way through its seeds is not).
  const seedsIn = (side: number[]) => SEEDS.filter((seed) => side.includes(seed)).length;
  const measured = (f: Factor) => of(f).every((r) => r.result && r.seeds.every((side) => seedsIn(side) === SEEDS.length));
  const seedsSoFar = (f: Factor) => Math.min(...of(f).flatMap((r) => r.seeds.map(seedsIn)));
  const unmeasured = (f: Factor) => of(f).every((r) => !r.result);
  const all = Object.values(FACTORS);
  const list = (items: string[]) => (items.length ? items.join('; ') : 'none');
  const partly = (f: Factor) => (unmeasured(f) ? f : `${f} (so far ${seedsSoFar(f)} of ${SEEDS.length} seeds)`);
  const L = [
    `- Moves the results: ${list(all.filter(moves))}.`,
    `- No measurable effect where measured: ${list(all.filter((f) => !moves(f) && !unmeasured(f)))}.`,
    `- Not measured yet: ${list(all.filter((f) => !measured(f)).map(partly))}.`,
  ];
  const levers = [FACTORS.data, FACTORS.pretraining];
  const lever = (f: Factor) => (f === FACTORS.data ? 'more annotated finetuning data' : 'a longer-pretrained base');
  const verb = (fs: Factor[], singular: string, plural: string) => `${fs.map(lever).join(' and ')} ${fs.length > 1 ? plural : singular}`;
  const sentences: string[] = [];
  // The arms that answer in their training template far more often than in the real format (the rows' x labels start "(arm)").
  const carriers = of(FACTORS.phrasing).filter((r) => r.verdict === 'moves it up').map((r) => r.x.split(' ')[0]);
  if (carriers.length) sentences.push(`${carriers.join(' and ')} answer${carriers.length > 1 ? '' : 's'} held-out subjects in the template it was finetuned on far more often than in the real format: the calls are learned, carrying them to real text is what fails`);
  const raising = levers.filter(up);
  // A lever that only lowers a result (an interval below 0) is said so, and counts as not raising it.
  const lowering = levers.filter((f) => moves(f) && !up(f));
  if (lowering.length) sentences.push(`${verb(lowering, 'lowers', 'lower')} the results`);
  if (raising.length) {
    sentences.push(`${verb(raising, 'raises', 'raise')} the results, so the model a user needs is this size trained on more before a larger one`);
  } else if (levers.every(measured)) {
    // "No measurable effect" bounds the effect, it does not make it 0: say how large a gain the intervals leave open.
    const openGain = Math.max(...levers.flatMap((f) => of(f).map((r) => r.result!.hi)));
    sentences.push('neither more annotated finetuning data nor a longer-pretrained base raises the results ' +
      `(the largest gain their intervals leave open is ${points(openGain)} points): at this size neither is the lever. The model's own size ` +
      'was not varied in these runs, so it is the factor left, and a user who needs tool use on their own text should expect to need ' +
      'a larger model rather than more of this training');
  } else {
    const still = levers.filter((f) => measured(f) && !moves(f));
    if (still.length) sentences.push(`${verb(still, 'does', 'do')} not move the results`);
    const open = levers.filter((f) => !measured(f) && !lowering.includes(f));
    const yet = open.some((f) => !unmeasured(f)) ? 'not measured on every seed yet' : 'not measured yet';
    sentences.push(`${open.length ? `whether ${open.map(lever).join(' or ')} moves the results is ${yet}` : 'not every row is measured yet'}, so which model a user needs cannot be stated from these runs yet`);
  }
  const implication = sentences.map((x) => x[0].toUpperCase() + x.slice(1) + '.').join(' ');
  L.push(`- What it implies for the model a user needs: ${implication}`);
  return L;
}
