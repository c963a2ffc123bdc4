/**
 * The experiment's findings in words (results/findings.md, the eval README's "What it shows" block) and the eval
 * set's description above the loop table (results/loop.md), from the committed runs only: every number in them is
 * computed here from the trials, the losses and the committed summaries, and recorded in `numbers` so that
 * experiment.test.ts can check that the text holds no other (a number typed into a sentence fails it).
 * Accuracies are % with the 95 % interval clustered by prompt (cells.ts), as the tables beside them.
 */
import { join } from 'node:path';
import type { TrialRecord } from '../metrics.ts';
import type { EvalPrompt } from '../tasks.ts';
import { armKey, armLossCost, cell, clusteredDiff, lossDiff, ORDER, readJson, trials, type ArmKey, type ByArm, type Cell, type ReportPaths, type RunLoss } from './cells.ts';
import { clusteredWilson } from '../metrics.ts';
import { FACTBOOK_CLOZE } from './derived-sets.ts';
import type { OverlapReport } from './overlap.ts';
import { LIMIT_RUNS, LOSS_TOKENS, STEPS, runName, type Run } from './plan.ts';

/** results/findings.md's title (the README block drops it). */
export const FINDINGS_TITLE = 'What the runs show, in words';

/** The issue-20 target: (a) with tools ≥ this many points over the CC baseline (d) without tools on real-format cloze. */
export const TARGET_POINTS = 20;

type Prompt = EvalPrompt & { phrasing?: string };

/** Text whose numbers are all recorded: `num(x)` formats and records one. */
class Numbered {
  readonly numbers = new Set<string>();
  num(x: number | string): string {
    const s = typeof x === 'number' ? x.toLocaleString('en-US') : x;
    for (const m of s.matchAll(/[+-]?\d+(?:[.,]\d+)*/g)) this.numbers.add(m[0]);
    return s;
  }
  /** A share as % with one decimal. */
  pct(x: number): string {
    return this.num((100 * x).toFixed(1));
  }
  /** A cell: % [lo–hi], clustered by prompt. */
  cell(c: Cell): string {
    const w = clusteredWilson([...c.byPrompt.values()]);
    return `${this.pct(w.p)} % [${this.pct(w.lo)}–${this.pct(w.hi)}]`;
  }
  signed(x: number, digits: number): string {
    return this.num(`${x >= 0 ? '+' : ''}${x.toFixed(digits)}`);
  }
  seeds(s: number[]): string {
    return `seed${s.length > 1 ? 's' : ''} ${s.map((x) => this.num(x)).join(', ')}`;
  }
}

/** What a model's train-record.json says of its size (any committed run's). */
export interface ModelShape {
  params: number;
  config: { nPositions: number };
}

/** The eval set and the design in one paragraph, for results/loop.md above its table. */
export function loopIntro(prompts: Prompt[], overlap: OverlapReport | null, shape: ModelShape | null): { lines: string[]; numbers: Set<string> } {
  const t = new Numbered();
  const families = [...new Set(prompts.map((q) => q.family))];
  const phrasings = families.map((f) => new Set(prompts.filter((q) => q.family === f).map((q) => q.phrasing)).size);
  const size = shape ? ` (${t.num((shape.params / 1e6).toFixed(1))}M parameters, ${t.num(shape.config.nPositions)}-token context)` : '';
  const overlapText = overlap
    ? `: none a training template, ${t.num(overlap.prompts.n)} found verbatim in a finetuning text, though ${t.num(overlap.subjects.subjects)} of ` +
      `${t.num(overlap.subjects.ofSubjects)} subjects are named in some finetuning text (report: "Overlap")`
    : ': none a training template (the overlap with the finetuning texts is measured once the arms exist)';
  const L = [
    `Each arm of data finetunes models/default${size} for the same ${t.num(STEPS)} steps and tokens, over seeds, and is evaluated on ` +
      `${t.num(prompts.length)} held-out prompts in ${t.num(families.length)} families of ${t.num(Math.min(...phrasings))} to ${t.num(Math.max(...phrasings))} phrasings each${overlapText}. ` +
      'The real-format cloze prompts come from held-out Factbook sections and SOTU addresses; dates ask about a "today" that is never written in the prompt. ' +
      `The last column is the held-out corpus loss (${t.num(LOSS_TOKENS)} tokens, no calls) against a control finetuned on the base mixture alone, ` +
      'the mean over seeds of each seed\'s paired difference. Accuracy is in %, with 95 % intervals clustered by prompt (a prompt under several seeds ' +
      'counts once where its seeds agree).',
  ];
  return { lines: L, numbers: t.numbers };
}

/**
 * "What it shows" and "what it does not show": the best off-template cell, where (e)'s right answers come from, the
 * Factbook cloze under both cuts, when the models call, the held-out loss, the issue-20 target, the longer finetune.
 */
export function findingsSection(p: ReportPaths, byArm: ByArm, prompts: Prompt[], losses: Map<string, RunLoss>): { lines: string[]; numbers: Set<string> } {
  const t = new Numbered();
  const runsOf = (a: ArmKey) => byArm.get(a) ?? [];
  const withTools = (a: ArmKey, keep: (x: TrialRecord) => boolean, score: (x: TrialRecord) => boolean = (x) => x.correct) =>
    cell(runsOf(a).map((r) => r.trials.filter((x) => x.tools)), keep, score);
  const seedsOf = (a: ArmKey) => t.seeds(runsOf(a).map((r) => r.run.seed));
  const arms = ORDER.filter((a) => byArm.has(a));
  const toolFamilies = [...new Set(prompts.filter((q) => q.tool).map((q) => q.family))];
  const noCallFamilies = [...new Set(prompts.map((q) => q.family))].filter((f) => !toolFamilies.includes(f));
  if (arms.length === 0) return { lines: ['No run has finished yet.'], numbers: t.numbers };

  const shows: string[] = [];
  // The best off-template cell with tools (the tool families' own phrasings, not the real-format cloze).
  const offCells = arms.flatMap((a) => toolFamilies.map((f) => ({ a, f, c: withTools(a, (x) => x.family === f && x.real !== true) })));
  const best = offCells.reduce((m, x) => (x.c.k / x.c.n > m.c.k / m.c.n ? x : m));
  shows.push(`Off-template (the tool families' eval phrasings), the best cell with tools of any ${t.num(STEPS)}-step arm is (${best.a}) on ${best.f}: ` +
    `${t.cell(best.c)} (${seedsOf(best.a)}). The pipeline's own data, (a), reaches at most ${bestOf('a')}.`);
  function bestOf(a: ArmKey): string {
    const own = offCells.filter((x) => x.a === a);
    if (own.length === 0) return 'nothing yet (not run)';
    const b = own.reduce((m, x) => (x.c.k / x.c.n > m.c.k / m.c.n ? x : m));
    return `${t.cell(b.c)} (${b.f})`;
  }
  // Where the best arm's right answers come from, per phrasing.
  const right = runsOf(best.a).flatMap((r) => r.trials.filter((x) => x.tools && x.family === best.f && x.real !== true && x.correct));
  if (right.length > 0) {
    const byPhrasing = new Map<string, number>();
    for (const x of right) byPhrasing.set(x.phrasing ?? '', (byPhrasing.get(x.phrasing ?? '') ?? 0) + 1);
    const [top, k] = [...byPhrasing].reduce((m, x) => (x[1] > m[1] ? x : m));
    const example = prompts.find((q) => q.family === best.f && q.phrasing === top)?.prompt ?? top;
    shows.push(`Of (${best.a})'s ${t.num(right.length)} right ${best.f} answers with tools (trials, over its seeds), ${t.num(k)} come from one phrasing ("${example}"), ` +
      `the rest from ${t.num(byPhrasing.size - 1)} other${byPhrasing.size === 2 ? '' : 's'}.`);
  }
  shows.push(...factbookFindings(t, arms, byArm, prompts));
  // When the models call: the no-call rate on the prompts that need no tool.
  const noCall = (a: ArmKey) => withTools(a, (x) => noCallFamilies.includes(x.family), (x) => x.calls.length === 0);
  const noCallArms = (['b', 'a', 'c', 'control'] as ArmKey[]).filter((a) => byArm.has(a));
  if (noCallArms.length) {
    const data: Partial<Record<ArmKey, string>> = { b: 'every proposed call', a: 'the kept calls', c: 'random calls, (a)\'s count per tool', control: 'no C* rows' };
    shows.push(`On the prompts that need no tool (${noCallFamilies.join(', ')}), the share left without a call with tools: ` +
      `${noCallArms.map((a) => `${t.cell(noCall(a))} for (${a}) (${data[a]})`).join(', ')}.`);
  }
  // The held-out loss against the same seed's control.
  const costs = (['a', 'e'] as const).flatMap((a) => {
    const c = armLossCost(a, losses);
    return c ? [`(${a}) ${t.signed(c.mean, 3)} [${t.signed(c.lo, 3)}, ${t.signed(c.hi, 3)}] over ${t.num(c.seeds)} seed${c.seeds > 1 ? 's' : ''}`] : [];
  });
  if (costs.length) {
    shows.push(`Held-out loss against the control of the same seed (nats/token, the mean of the seeds' paired differences, 95 % t interval over seeds): ${costs.join(', ')}.`);
  }

  const not: string[] = [];
  const realCaps = (x: TrialRecord) => x.family === 'capitals' && x.real === true;
  if (byArm.has('a') && byArm.has('d')) {
    const a = withTools('a', realCaps);
    const d = cell(runsOf('d').map((r) => r.trials.filter((x) => !x.tools)), realCaps, (x) => x.correct);
    const diff = clusteredDiff(a, d);
    const met = diff.lo > 0 && 100 * diff.d >= TARGET_POINTS;
    const measured = `on the Factbook cloze it is ${t.signed(100 * diff.d, 1)} points [${t.signed(100 * diff.lo, 1)}, ${t.signed(100 * diff.hi, 1)}]`;
    const target = `the target was (a) with tools ≥ ${t.num(TARGET_POINTS)} points over the CC baseline (d) without tools on the real-format cloze`;
    if (met) shows.push(`The filtered data teaches tool use: ${target}; ${measured}.`);
    else not.push(`That the filtered data teaches tool use. ${target[0].toUpperCase()}${target.slice(1)}; ${measured}.`);
  }
  const limits = limitFindings(t, p, noCallFamilies, losses);
  const list = (title: string, xs: string[]) => (xs.length ? [title, ...xs.map((x) => `- ${x}`), ''] : []);
  const lines = [...list('**What it shows:**', shows), ...list('**What it does not show:**', not), ...list('**The longer finetune** (plan.ts LIMIT_RUNS):', limits)];
  return { lines: lines.slice(0, -1), numbers: t.numbers };
}

/** The Factbook cloze as the eval set cuts it: accuracy for every arm, and (a)'s calls and calls about the section's country. */
function factbookFindings(t: Numbered, arms: ArmKey[], byArm: ByArm, prompts: Prompt[]): string[] {
  const old = (x: TrialRecord) => x.tools && x.phrasing === FACTBOOK_CLOZE;
  const cells = arms.map((a) => ({ a, c: cell(byArm.get(a)!.map((r) => r.trials), old, (x) => x.correct) }));
  const top = cells.reduce((m, x) => (x.c.k / x.c.n > m.c.k / m.c.n ? x : m));
  const cut = 'The Factbook cloze as the eval set cuts it (lines dropped from the top, so the "Country name:" line that every finetuning record with a Factbook capital call holds goes)';
  const L = [top.c.k === 0 ? `${cut}: ${t.pct(0)} % with tools for every arm.` : `${cut}: at most ${t.cell(top.c)} with tools, (${top.a}).`];
  if (byArm.has('a')) {
    const a = byArm.get('a')!.map((r) => r.trials);
    const subjectOf = new Map(prompts.filter((q) => q.phrasing === FACTBOOK_CLOZE).map((q) => [q.id, q.subject ?? '\u0000']));
    const called = cell(a, old, (x) => x.calls.length > 0);
    const asks = cell(a, old, (x) => x.calls.some((c) => c.input.includes(subjectOf.get(x.id) ?? '\u0000')));
    L[0] += ` (a) calls on ${t.cell(called)} of those prompts, and names the section's country in the call on ${t.cell(asks)}; the training-format cut keeps that line (table below).`;
  }
  return L;
}

/** The longer finetune (plan.ts LIMIT_RUNS) against the grid run it lengthens: families that moved, stated dates, loss. */
function limitFindings(t: Numbered, p: ReportPaths, noCallFamilies: string[], losses: Map<string, RunLoss>): string[] {
  const L: string[] = [];
  for (const long of LIMIT_RUNS) {
    const short: Run = { arm: long.arm, seed: long.seed };
    const [ts, tl] = [trials(p, short), trials(p, long)];
    if (!ts || !tl) continue;
    const families = [...new Set(ts.map((x) => x.family))];
    const scoreOf = (x: TrialRecord) => (noCallFamilies.includes(x.family) ? x.calls.length === 0 : x.correct);
    const moved = families.flatMap((f) => {
      const keep = (x: TrialRecord) => x.tools && x.family === f;
      const d = clusteredDiff(cell([tl], keep, scoreOf), cell([ts], keep, scoreOf));
      const label = noCallFamilies.includes(f) ? `${f} (no-call rate)` : f;
      return d.lo > 0 || d.hi < 0 ? [`${label} ${t.signed(100 * d.d, 1)} points [${t.signed(100 * d.lo, 1)}, ${t.signed(100 * d.hi, 1)}]`] : [];
    });
    const [longSteps, shortSteps] = [long.steps!, STEPS].map((x) => t.num(x));
    L.push(`${runName(long)} (${longSteps} steps) against ${runName(short)} (${shortSteps}), one seed each, with tools, per family: the difference's 95 % interval excludes 0 on ` +
      `${moved.length ? moved.join('; ') : 'no family'}.`);
    const c = losses.get(runName({ arm: 'control', seed: long.seed }));
    const [ls, ll] = [losses.get(runName(short)), losses.get(runName(long))];
    if (c && ls && ll) {
      const [ds, dl] = [lossDiff(ls.perWindow, c.perWindow), lossDiff(ll.perWindow, c.perWindow)];
      L.push(`Its held-out loss against control-s${t.num(long.seed)}: ${t.signed(dl.mean, 3)} nats/token, against ${t.signed(ds.mean, 3)} for ${runName(short)}; ` +
        `the control ran ${shortSteps} steps, so the longer run's extra base-mixture steps are part of that difference.`);
    }
  }
  return L;
}

/** What a finished run's train-record.json says of its cost: wall seconds of training and of the probes. */
interface TrainCost {
  step: number;
  tokensSeen: number;
  trainSeconds: number;
  evalSeconds?: number;
}

/**
 * results/cost.md (the experiment README's sizing block): per arm, the finetunes' training wall time from the
 * committed train-record.json files, which depends on the machine's load at the time (the lanes run at nice 19 beside
 * other work), so the range is given with the median.
 */
export function costSection(p: ReportPaths, runs: Run[]): string[] {
  const rows = new Map<string, { run: Run; rec: TrainCost }[]>();
  for (const r of runs) {
    const rec = readJson<TrainCost>(join(p.committed(r), 'train-record.json'));
    if (!rec) continue;
    const label = r.steps ? runName(r) : `(${armKey(r)})`;
    rows.set(label, [...(rows.get(label) ?? []), { run: r, rec }]);
  }
  if (rows.size === 0) return ['No finetune has finished yet.'];
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const L = ['From each finished run\'s committed train-record.json (trainSeconds: wall seconds of the training steps; evalSeconds: the ' +
    'probes at the end). Wall time depends on the load of the shared machine when the run was made, hence the range.', '',
    '| run | seeds | steps | tokens | train wall s, median (range) | tokens per train-second, median | probes wall s, median |', '|---|---|---:|---:|---|---:|---:|'];
  for (const [label, xs] of rows) {
    const secs = xs.map((x) => x.rec.trainSeconds);
    const rate = median(xs.map((x) => x.rec.tokensSeen / x.rec.trainSeconds));
    const probes = xs.flatMap((x) => (x.rec.evalSeconds === undefined ? [] : [x.rec.evalSeconds]));
    L.push(`| ${label} | ${xs.map((x) => x.run.seed).join(', ')} | ${xs[0].rec.step} | ${xs[0].rec.tokensSeen.toLocaleString('en-US')} | ` +
      `${Math.round(median(secs))} (${Math.round(Math.min(...secs))}–${Math.round(Math.max(...secs))}) | ${Math.round(rate).toLocaleString('en-US')} | ${probes.length ? Math.round(median(probes)) : '–'} |`);
  }
  return L;
}
