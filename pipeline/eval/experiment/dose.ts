/**
 * The pretraining dose–response (issue 47 item 2) as preregistration.json registered it: per dose (1×, 3×, 10×) the
 * arms (a), (d) and the control on the fresh in-format set (fresh-in-format.jsonl), with the two columns the
 * pre-registration asks for — "the tool's result was right" and "the model copied the answer" — the primary
 * comparison ((a) with tools − (d) without tools) per dose and per 10× base, the same on the training-format cut, and
 * the decision rule's outcome, stated either way (or "not decided yet" while a base lacks a seed). Read from the
 * committed runs (results/runs/<run>/fresh-trials.jsonl) only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { answerFound, type TrialRecord } from '../metrics.ts';
import type { EvalPrompt } from '../tasks.ts';
import { cci, cell, clusteredDiff, readJson, type Cell, type ReportPaths } from './cells.ts';
import { callAimLines } from './dose-calls.ts';
import { FRESH_EXPOSURE_FILE, FRESH_FILE, HERE, readJsonl } from './corpus-files.ts';
import { BASES, SEEDS, type BaseId, type Run } from './plan.ts';

export const DOSE_TITLE = 'Pretraining dose–response on the fresh in-format set (pre-registered)';
export const PREREGISTRATION_FILE = join(HERE, 'preregistration.json');

/** The fields of preregistration.json this section reads. */
export interface Preregistration {
  /** Dose label → base ids ("1x" is models/default). */
  dose: Record<string, string[]>;
  decisionRule: { effect: { at: string; minPoints: number; lowerBoundAbove: number } };
}

/** A dose level: its label and its bases (undefined: models/default). */
interface Level { label: string; bases: (BaseId | undefined)[] }

const levelsOf = (pre: Preregistration): Level[] =>
  Object.entries(pre.dose).map(([label, ids]) => ({ label: label.replace('x', '×'), bases: ids.map((id) => (id === '1x' ? undefined : (id as BaseId))) }));

const baseName = (b: BaseId | undefined) => (b ? `${b} (${BASES[b].dose}, pretraining seed ${BASES[b].seed})` : 'models/default (1×)');

type Score = (t: TrialRecord) => boolean;
/** One difference as the section states it (shares). */
export interface DoseDiff { x: number; y: number; d: number; lo: number; hi: number; seeds: [number, number] }

/** The runs' trials of one set (results/runs/<run>/<file>, or the eval folder's copy while in flight). */
function setTrials(p: ReportPaths, runs: Run[], file: string, dir: string): TrialRecord[][] {
  return runs.flatMap((r) => {
    const f = [join(p.committed(r), file), join(p.eval(r), dir, 'trials.jsonl')].find(existsSync);
    return f ? [readJsonl<TrialRecord>(f)] : [];
  });
}

/**
 * The section's opening: how the set was registered and what each column means, the fresh set's pretraining
 * exposure (fresh-in-format-exposure.json, when written) and each base's pretraining progress.
 */
function doseIntro(p: ReportPaths, promptCount: number): string[] {
  const L: string[] = [];
  L.push('Registered in [preregistration.md](../preregistration.md) before the first step of a new base. Fresh set: ' +
    `${promptCount} prompts cut from the held-out countries' own Factbook sections before a population, language, area, independence or ` +
    'currency field (fresh-in-format.jsonl). Every cell: % over the finetune seeds (at 10×, both pretraining seeds), 95 % interval ' +
    'clustered by prompt. "Tool\'s result right": the call (with tools) returned a result holding an accepted answer; "model copied it": that, ' +
    'and the continuation holds the answer (scored correct).', '');
  const exposure = readJson<{ total: { prompts: number; sourceInPretraining: number; answerWithSubjectInPretraining: number }; bases: Record<string, { naturalPasses: number }> }>(FRESH_EXPOSURE_FILE);
  if (exposure) {
    L.push(`Pretraining exposure (fresh-in-format-exposure.json): ${exposure.total.sourceInPretraining} of ${exposure.total.prompts} source sections are in ` +
      `every base's pretraining text, ${exposure.total.answerWithSubjectInPretraining} prompts' answers appear there beside their subject; natural-text passes ` +
      `over it: ${Object.entries(exposure.bases).map(([b, x]) => `${b} ${x.naturalPasses}`).join(', ')}. A gain with tools that came with a gain without tools would be memorisation.`, '');
  }
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const progress = (Object.keys(BASES) as BaseId[]).map((id) => {
    const rec = readJson<{ step: number; tokensSeen: number; trainSeconds: number }>(join(p.baseCommitted(id), 'train-record.json'));
    return `${id} ${rec ? `${n(rec.step)} of ${n(BASES[id].steps)} steps (${n(rec.tokensSeen)} tokens, ${n(rec.trainSeconds)} train-seconds)` : 'not started'}`;
  });
  L.push(`Pretraining (results/base-<id>/train-record.json): ${progress.join('; ')}.`, '');
  return L;
}

/**
 * The section's lines and its numbers (summary.json `dose`): the per-run table on the fresh set, the primary
 * comparison per dose, the trend, the decision, the training-format cut, the per-relation table and what (a)'s calls
 * asked (dose-calls.ts).
 */
export function doseSection(p: ReportPaths): { lines: string[]; rows: Record<string, unknown> } {
  const pre = JSON.parse(readFileSync(PREREGISTRATION_FILE, 'utf8')) as Preregistration;
  const levels = levelsOf(pre);
  const prompts = new Map(readJsonl<EvalPrompt>(FRESH_FILE).map((q) => [q.id, q]));
  const runsOf = (arm: Run['arm'], bases: (BaseId | undefined)[]): Run[] =>
    bases.flatMap((base) => SEEDS.map((seed) => ({ arm, seed, ...(base ? { base } : {}) })));
  const fresh = (runs: Run[]) => setTrials(p, runs, 'fresh-trials.jsonl', 'fresh');
  const trainCut = (runs: Run[]) => setTrials(p, runs, 'factbook-train-cut-trials.jsonl', 'factbook-train-cut');
  const answers = (t: TrialRecord) => prompts.get(t.id)?.answers ?? [];
  const withTools = (t: TrialRecord) => t.tools;
  const without = (t: TrialRecord) => !t.tools;
  const correct: Score = (t) => t.correct;
  const toolRight: Score = (t) => t.calls.some((c) => typeof c.result === 'string' && answerFound(c.result, answers(t)));
  const copied: Score = (t) => toolRight(t) && t.correct;
  const called: Score = (t) => t.calls.length > 0;
  const show = (c: Cell) => (c.n === 0 ? '–' : cci(c, false));
  const diff = (x: Cell, y: Cell): DoseDiff | null => (x.n && y.n ? { ...clusteredDiff(x, y), seeds: [x.seeds.length, y.seeds.length] } : null);
  const pts = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`;
  const showDiff = (d: DoseDiff | null) => (d ? `${pts(d.d)} [${pts(d.lo)}, ${pts(d.hi)}]` : '–');

  const L: string[] = doseIntro(p, prompts.size);
  L.push('| dose | base | arm | seeds | with tools | without tools | tool\'s result right | model copied it | calls |', '|---|---|---|---|---|---|---|---|---|');
  const perRun: Record<string, unknown>[] = [];
  for (const level of levels) {
    for (const base of level.bases) {
      for (const arm of ['a', 'd', 'control'] as const) {
        const ts = fresh(runsOf(arm, [base]));
        const c = (keep: Score, score: Score) => cell(ts, keep, score);
        const [w, wo, right, cp, calls] = [c(withTools, correct), c(without, correct), c(withTools, toolRight), c(withTools, copied), c(withTools, called)];
        perRun.push({ dose: level.label, base: base ?? 'default', arm, runs: ts.length, withTools: w.n ? w.k / w.n : null, withoutTools: wo.n ? wo.k / wo.n : null });
        L.push(`| ${level.label} | ${baseName(base)} | (${arm}) | ${ts.length ? `${ts.length} of ${SEEDS.length}` : 'not run yet'} | ${show(w)} | ${show(wo)} | ${show(right)} | ${show(cp)} | ${show(calls)} |`);
      }
    }
  }

  // The primary comparison per dose, each 10× base alone (replication), and the same on the training-format cut.
  const primary = (bases: (BaseId | undefined)[], trialsOf: (runs: Run[]) => TrialRecord[][]) =>
    diff(cell(trialsOf(runsOf('a', bases)), withTools, correct), cell(trialsOf(runsOf('d', bases)), without, correct));
  const complete = (bases: (BaseId | undefined)[]) => (['a', 'd'] as const).every((arm) => fresh(runsOf(arm, bases)).length === bases.length * SEEDS.length);
  const rows = levels.map((level) => ({ level, fresh: primary(level.bases, fresh), cut: primary(level.bases, trainCut), complete: complete(level.bases) }));
  const top = rows.at(-1)!;
  L.push('', '| dose | bases | (a) with tools, % | (d) without tools, % | fresh set: (a) − (d), points [95 %] | training-format cut (43 capitals): (a) − (d) |', '|---|---|---:|---:|---|---|');
  const pct1 = (x: number) => (100 * x).toFixed(1);
  const line = (label: string, bases: (BaseId | undefined)[], f: DoseDiff | null, cut: DoseDiff | null) =>
    `| ${label} | ${bases.map((b) => b ?? 'default').join(', ')} | ${f ? pct1(f.x) : '–'} | ${f ? pct1(f.y) : '–'} | ${showDiff(f)} | ${showDiff(cut)} |`;
  for (const r of rows) L.push(line(r.level.label, r.level.bases, r.fresh, r.cut));
  if (top.level.bases.length > 1) {
    for (const b of top.level.bases) L.push(line(`${top.level.label}, one base`, [b], primary([b], fresh), primary([b], trainCut)));
  }

  // The decision rule (preregistration.json decisionRule), stated either way.
  const rule = pre.decisionRule.effect;
  const aGain = diff(cell(fresh(runsOf('a', top.level.bases)), withTools, correct), cell(fresh(runsOf('a', rows[0].level.bases)), withTools, correct));
  const effect = top.fresh !== null && top.fresh.d * 100 >= rule.minPoints && top.fresh.lo > rule.lowerBoundAbove;
  const points = rows.map((r) => r.fresh?.d);
  const monotone = points.every((d, i) => d !== undefined && (i === 0 || d >= points[i - 1]!)) && aGain !== null && aGain.lo > 0;
  const missing = rows.filter((r) => !r.complete).map((r) => r.level.label);
  const outcome = missing.length ? `not decided yet: ${missing.join(', ')} lack${missing.length > 1 ? '' : 's'} (a) or (d) at some of the ${SEEDS.length} finetune seeds`
    : effect && monotone ? 'supported' : `not supported (${[effect ? null : `effect: at ${top.level.label}, ${showDiff(top.fresh)} points, needs ≥ ${rule.minPoints} with the lower bound > 0`,
      monotone ? null : `trend: ${rows.map((r) => `${r.level.label} ${r.fresh ? pts(r.fresh.d) : '–'}`).join(' ≤ ')}, (a) with tools ${top.level.label} − 1× ${showDiff(aGain)}`].filter(Boolean).join('; ')})`;
  L.push('', `Decision rule (pre-registered: at ${top.level.label}, (a) with tools − (d) without tools ≥ ${rule.minPoints} points with the lower bound > 0 on the fresh set, ` +
    `and a non-decreasing difference over ${rows.map((r) => r.level.label).join(' / ')} with (a) with tools at ${top.level.label} − at 1× above 0): **${outcome}**. ` +
    `(a) with tools, ${top.level.label} − 1×: ${showDiff(aGain)} points.`);

  // Per relation: (a) with tools and (d) without tools per dose.
  const relations = [...new Set([...prompts.values()].map((q) => q.phrasing!))];
  L.push('', '| relation | prompts | ' + levels.map((l) => `${l.label}: (a) with tools / (d) without`).join(' | ') + ' |', `|---|---:|${levels.map(() => '---').join('|')}|`);
  for (const rel of relations) {
    const of = (keep: Score): Score => (t) => keep(t) && prompts.get(t.id)?.phrasing === rel;
    const cells = levels.map((l) => `${show(cell(fresh(runsOf('a', l.bases)), of(withTools), correct))} / ${show(cell(fresh(runsOf('d', l.bases)), of(without), correct))}`);
    L.push(`| ${rel} | ${[...prompts.values()].filter((q) => q.phrasing === rel).length} | ${cells.join(' | ')} |`);
  }
  L.push('', ...callAimLines(levels.map((l) => ({ label: l.label, runs: fresh(runsOf('a', l.bases)) })), prompts));
  return { lines: L, rows: { perRun, primary: rows.map((r) => ({ dose: r.level.label, fresh: r.fresh, trainingFormatCut: r.cut, complete: r.complete })), aGain, outcome } };
}
