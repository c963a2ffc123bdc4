/**
 * The report's cells (report.ts, report-sections.ts): a run's trials read from the committed copy or out/, a cell of
 * trials over seeds grouped by prompt, and its intervals — clustered by prompt (a prompt under 3 seeds is one
 * cluster) with the pooled Wilson beside it — plus Newcombe's difference and the paired loss difference.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clusteredWilson, wilson } from '../metrics.ts';
import type { Cluster, TrialRecord } from '../metrics.ts';
import { ARM_NAMES } from './arms.ts';
import { readJsonl } from './corpus-files.ts';
import { BASES, SEEDS, runName, type BaseId, type Run } from './plan.ts';

/** Where the report reads a run's files (paths.ts `paths` in practice; a test may point elsewhere). */
export interface ReportPaths {
  out: string;
  annCorpus: string;
  annKb: string;
  /** The whole-corpus annotation of arm (f) (plan.ts FULL_CORPUS_RUNS). */
  annFull: string;
  armStats: string;
  overlap: string;
  overlapInputs: string;
  /** The longer-pretrained base's committed train-record.json and evals.jsonl (long-base.ts). */
  longBaseCommitted: string;
  /** Any pretrained base's committed record folder (results/base-<id>/). */
  baseCommitted(id: BaseId): string;
  eval(r: Run): string;
  loss(r: Run): string;
  committed(r: Run): string;
  model(r: Run): string;
}

/** A column of the report: an arm, or an arm finetuned from a longer-pretrained base (`a-pt10x`, `a-pt3x`, `a-pt10x-p2`). */
export type ArmKey = Run['arm'] | `${Run['arm']}-${BaseId}`;
/** Each arm with its longer-pretrained bases' runs beside it (3×, 10×, 10× with pretraining seed 2). */
const withBases = (arm: Run['arm']): ArmKey[] => [arm, `${arm}-pt3x`, `${arm}-pt10x`, `${arm}-pt10x-p2`];
/** The arms in the order of the report's columns, each longer-pretrained-base arm beside its models/default one. */
export const ORDER: ArmKey[] = [...withBases('a'), 'b', 'c', ...withBases('d'), 'e', 'f', ...withBases('control')];
/** The column a run belongs to. */
export const armKey = (r: Pick<Run, 'arm' | 'base'>): ArmKey => (r.base ? `${r.arm}-${r.base}` : r.arm);
/** The arm of a column (its finetuning data), whatever its base. */
export const armOf = (k: ArmKey): Run['arm'] => k.split('-')[0] as Run['arm'];
/** The base of a column (absent: models/default). */
export const baseOf = (k: ArmKey): BaseId | undefined => (k.includes('-') ? (k.slice(k.indexOf('-') + 1) as BaseId) : undefined);
/** The column's name in words: the arm's data, and the base when it is not models/default. */
export const armLabel = (k: ArmKey): string => {
  const base = baseOf(k);
  const seed = base && BASES[base].seed !== 1 ? ` (pretraining seed ${BASES[base].seed})` : '';
  return `${ARM_NAMES[armOf(k)]}${base ? `, base pretrained ${BASES[base].dose} longer${seed}` : ''}`;
};
/** The baselines, evaluated without tools too: (d) and the control, on either base. */
export const isBaseline = (k: ArmKey): boolean => armOf(k) === 'd' || armOf(k) === 'control';
/** The control a run's held-out loss is compared with: the control of the same seed, finetuned from the same base. */
export const controlOf = (r: Run): Run => ({ arm: 'control', seed: r.seed, ...(r.base ? { base: r.base } : {}) });
/** Each arm's finished runs with their trials. */
export type ByArm = Map<ArmKey, { run: Run; trials: TrialRecord[] }[]>;
/** A run's held-out loss: mean nats/token and the per-window means the paired differences use. */
export type RunLoss = { meanNll: number; perWindow: number[]; tokens: number };

export const readJson = <T>(p: string): T | null => (existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as T) : null);
export const pct = (x: number) => `${(100 * x).toFixed(0)}`;
const pct1 = (x: number) => `${(100 * x).toFixed(1)}`;
/** k of n as a whole-number % with its Wilson interval. */
export const ci = (k: number, n: number) => {
  if (n === 0) return '–';
  const [lo, hi] = wilson(k, n);
  return `${pct(k / n)} [${pct(lo)}–${pct(hi)}]`;
};

/** Trials of one run (with tools and, where run, without), from the committed copy or out/. */
export function trials(p: ReportPaths, r: Run): TrialRecord[] | null {
  const f = [join(p.committed(r), 'trials.jsonl'), join(p.eval(r), 'trials.jsonl')].find(existsSync);
  return f ? readJsonl<TrialRecord>(f) : null;
}

/** The finished runs' trials by report column. */
export function trialsByArm(p: ReportPaths, runs: Run[]): ByArm {
  const byArm = new Map() as ByArm;
  for (const r of runs) {
    const t = trials(p, r);
    if (t) byArm.set(armKey(r), [...(byArm.get(armKey(r)) ?? []), { run: r, trials: t }]);
  }
  return byArm;
}

export interface Cell {
  k: number;
  n: number;
  seeds: number[];
  /** Trials per prompt id over the runs (a prompt under 3 seeds is one cluster). */
  byPrompt: Map<string, Cluster>;
}

/** The clustered interval (by prompt), then the pooled Wilson that treats every seed's trial as a new prompt. */
export const cci = (c: Cell, withPooled = true) => {
  if (c.n === 0) return '–';
  const w = clusteredWilson([...c.byPrompt.values()]);
  const [lo, hi] = wilson(c.k, c.n);
  return `${pct1(w.p)} [${pct1(w.lo)}–${pct1(w.hi)}]${withPooled ? ` (pooled [${pct1(lo)}–${pct1(hi)}])` : ''}`;
};

/** The trials `keep` selects from each run (one run per seed), scored by `score`. */
export function cell(runs: TrialRecord[][], keep: (t: TrialRecord) => boolean, score: (t: TrialRecord) => boolean): Cell {
  let k = 0;
  let n = 0;
  const seeds: number[] = [];
  const byPrompt = new Map<string, Cluster>();
  for (const ts of runs) {
    const sel = ts.filter(keep);
    if (sel.length === 0) continue;
    for (const t of sel) {
      const c = byPrompt.get(t.id) ?? { k: 0, n: 0 };
      byPrompt.set(t.id, { k: c.k + (score(t) ? 1 : 0), n: c.n + 1 });
    }
    const kk = sel.filter(score).length;
    k += kk;
    n += sel.length;
    seeds.push(kk / sel.length);
  }
  return { k, n, seeds, byPrompt };
}

/** A cell with both intervals and, over several seeds, each seed's %. */
export const show = (c: Cell) => (c.n === 0 ? '–' : `${cci(c)}${c.seeds.length > 1 ? ` (seeds ${c.seeds.map(pct).join(', ')})` : ''}`);

/** p1 − p2 with Newcombe's hybrid score interval (from the two Wilson intervals), as shares. */
export function newcombe(k1: number, n1: number, k2: number, n2: number): [number, number, number] {
  const p1 = k1 / n1;
  const p2 = k2 / n2;
  const [l1, u1] = wilson(k1, n1);
  const [l2, u2] = wilson(k2, n2);
  const d = p1 - p2;
  return [d, d - Math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + Math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)];
}

/**
 * x − y as shares, with Newcombe's interval from the two clustered intervals (each at its effective n, so 3 seeds of
 * the same prompts are not counted as 3 samples); x and y are the cells' own shares.
 */
export function clusteredDiff(x: Cell, y: Cell): { x: number; y: number; d: number; lo: number; hi: number } {
  const [ex, ey] = [clusteredWilson([...x.byPrompt.values()]), clusteredWilson([...y.byPrompt.values()])];
  const [d, lo, hi] = newcombe(ex.p * ex.nEff, ex.nEff, ey.p * ey.nEff, ey.nEff);
  return { x: ex.p, y: ey.p, d, lo, hi };
}

/** Mean and 95 % interval of paired per-window loss differences (arm − control), per seed and pooled over seeds. */
export function lossDiff(a: number[], b: number[]): { mean: number; lo: number; hi: number } {
  const d = a.map((x, i) => x - b[i]);
  const mean = d.reduce((s, x) => s + x, 0) / d.length;
  const sd = Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / (d.length - 1));
  const half = (1.96 * sd) / Math.sqrt(d.length);
  return { mean, lo: mean - half, hi: mean + half };
}

/** The runs' held-out losses by run name, from the committed loss.json or out/. */
export function runLosses(p: ReportPaths, runs: Run[]): Map<string, RunLoss> {
  const losses = new Map<string, RunLoss>();
  for (const r of runs) {
    const l = readJson<RunLoss>(join(p.committed(r), 'loss.json')) ?? readJson<RunLoss>(p.loss(r));
    if (l) losses.set(runName(r), l);
  }
  return losses;
}

/** Two-sided 95 % t quantiles for 1, 2, 3 … degrees of freedom (an interval over seeds). */
const T95 = [12.71, 4.30, 3.18, 2.78, 2.57];

/**
 * The held-out loss cost of an arm (on models/default) against the control of the same seed: the mean over seeds of
 * each seed's paired per-window difference, with a t interval over seeds from 2 seeds on (n − 1 degrees of
 * freedom), else the one seed's window interval; null when no seed has both runs scored.
 */
export function armLossCost(arm: Run['arm'], losses: Map<string, RunLoss>): { mean: number; lo: number; hi: number; seeds: number } | null {
  const perSeed = SEEDS.flatMap((seed) => {
    const a = losses.get(runName({ arm, seed }));
    const c = losses.get(runName({ arm: 'control', seed }));
    return a && c ? [lossDiff(a.perWindow, c.perWindow)] : [];
  });
  if (perSeed.length === 0) return null;
  const m = perSeed.reduce((x, d) => x + d.mean, 0) / perSeed.length;
  const half = perSeed.length >= 2
    ? (T95[perSeed.length - 2] * Math.sqrt(perSeed.reduce((x, d) => x + (d.mean - m) ** 2, 0) / (perSeed.length - 1))) / Math.sqrt(perSeed.length)
    : (perSeed[0].hi - perSeed[0].lo) / 2;
  return { mean: m, lo: m - half, hi: m + half, seeds: perSeed.length };
}
