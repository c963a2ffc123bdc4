/**
 * The rounds table (issue 21 item 3), rewritten after every step from the committed per-round files
 * (results/r<N>/: the annotate run's stats.json and config.json, eval.json and trials.jsonl, eval-data-{lm,all}.json),
 * so it can be rebuilt on a fresh machine.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OutcomeKind } from '../../core/candidates.ts';
import type { RunStats } from '../../core/stats.ts';
import type { SamplingCounts } from '../../core/sampling/sampling-gate.ts';
import type { Scores } from '../data-quality/match.ts';
import { wilson, type TrialRecord } from '../metrics.ts';
import { HERE as EXPERIMENT_HERE, readJsonl } from '../experiment/corpus-files.ts';
import { readJson } from '../experiment/steps.ts';
import { ANNOTATE_FLAGS, ROUND_ONE, ROUND_ONE_LONG } from './plan.ts';

export const RESULTS = process.env.ROUNDS_RESULTS ?? join(import.meta.dirname, 'results');

interface RoundPaths {
  committed(r: number | 'long'): string;
}

const pct = (k: number, n: number) => (n === 0 ? '–' : `${((100 * k) / n).toFixed(0)}`);
const ci = (k: number, n: number) => {
  if (n === 0) return '–';
  const [lo, hi] = wilson(k, n);
  return `${pct(k, n)} [${(100 * lo).toFixed(0)}–${(100 * hi).toFixed(0)}]`;
};
const fmt = (x: number | null | undefined) => (x === null || x === undefined ? '–' : x.toFixed(2));

/** The LM's samples in an annotate run (every candidate of a --no-programmatic run is the LM's), by outcome. */
export function samplingSummary(stats: RunStats) {
  const sum = (f: (t: RunStats['tools'][string]) => number) => Object.values(stats.tools).reduce((n, t) => n + f(t), 0);
  const reason = (kind: OutcomeKind) => sum((t) => t.reasons[kind] ?? 0);
  const samples = sum((t) => t.lmSampling.samples);
  const parsed = sum((t) => t.lmSampling.parsed);
  const invalid = reason('unknown_tool') + reason('schema_error');
  return {
    docs: stats.docsRead,
    positions: sum((t) => t.positions.lm),
    samples,
    parsed,
    valid: parsed - invalid,
    leakage: reason('leakage'),
    duplicate: reason('duplicate'),
    toolError: reason('tool_error'),
    scored: sum((t) => t.scored),
    kept: sum((t) => t.kept),
    keptByTool: Object.fromEntries(Object.entries(stats.tools).map(([tool, t]) => [tool, t.kept])),
    docsWithKeptCall: stats.docsWithKeptCall,
  };
}

const FAMILIES: { label: string; keep: (t: TrialRecord) => boolean; noCall?: boolean }[] = [
  { label: 'capitals', keep: (t) => t.family === 'capitals' },
  { label: 'capitals: real-format cloze', keep: (t) => t.family === 'capitals' && t.real === true },
  { label: 'arithmetic', keep: (t) => t.family === 'arithmetic' },
  { label: 'dates (today)', keep: (t) => t.family === 'dates' },
  { label: 'dates-stated (no call)', keep: (t) => t.family === 'dates-stated', noCall: true },
  { label: 'relevance (no call)', keep: (t) => t.family === 'relevance', noCall: true },
];

export function writeRoundsReport(p: RoundPaths, rounds: number): void {
  mkdirSync(RESULTS, { recursive: true });
  const rows: string[] = [];
  const summary: Record<string, unknown>[] = [];
  const col = (r: number | 'long') => p.committed(r);
  const keys: (number | 'long')[] = [...Array.from({ length: rounds }, (_, i) => i + 1), 'long'];
  for (const r of keys) {
    const stats = readJson<RunStats>(join(col(r), 'stats.json'));
    const config = readJson<{ config: { bareProbe?: Record<string, SamplingCounts> } }>(join(col(r), 'config.json'));
    const probe = Object.values(config?.config.bareProbe ?? {});
    const probeN = probe.reduce((n, c) => n + c.samples, 0);
    const probeK = probe.reduce((n, c) => n + c.parsed, 0);
    const s = stats ? samplingSummary(stats) : null;
    const lm = readJson<{ report: { dev: Record<string, Scores>; test: Record<string, Scores> } }>(join(col(r), 'eval-data-lm.json'));
    const all = readJson<{ report: { dev: Record<string, Scores>; test: Record<string, Scores> } }>(join(col(r), 'eval-data-all.json'));
    const sample = readJson<RunStats>(join(col(r), 'sample-stats.json'));
    const trialsFile = join(col(r), 'trials.jsonl');
    const trials = existsSync(trialsFile) ? readJsonl<TrialRecord>(trialsFile).filter((t) => t.tools) : null;
    const acc = FAMILIES.map((f) => {
      if (!trials) return '–';
      const sel = trials.filter(f.keep);
      const k = sel.filter((t) => (f.noCall ? t.calls.length === 0 : t.correct)).length;
      return ci(k, sel.length);
    });
    if (r === 'long' && !existsSync(col(r))) continue;
    const lmCalls = r === 1 || r === 'long' ? 0 : Array.from({ length: r - 1 }, (_, q) => q + 1).reduce((n, q) => n + (existsSync(join(col(q), 'kept.jsonl')) ? readJsonl<{ calls?: unknown[] }>(join(col(q), 'kept.jsonl')).reduce((m, x) => m + (x.calls?.length ?? 0), 0) : 0), 0);
    const test = (x: typeof lm) => x?.report.test.all;
    rows.push([
      `| ${r === 'long' ? '1, longer finetune' : r}`,
      r === 'long' ? `experiment (${ROUND_ONE_LONG.arm}) seed ${ROUND_ONE_LONG.seed}, ${ROUND_ONE_LONG.steps} steps (5× longer)` :
      r === 1 ? `experiment (${ROUND_ONE.arm}) seed ${ROUND_ONE.seed}` : `D_1 + ${lmCalls} LM-written calls of rounds 1–${r - 1}`,
      probeN ? `${pct(probeK, probeN)} % (${probeK}/${probeN})` : '–',
      s ? `${s.samples}` : '–',
      s ? `${pct(s.parsed, s.samples)} %` : '–',
      s ? `${pct(s.valid, s.samples)} %` : '–',
      s ? `${pct(s.leakage, s.samples)} %` : '–',
      s ? `${pct(s.duplicate, s.samples)} %` : '–',
      s ? `${s.kept} (${((100 * s.kept) / Math.max(1, s.docs)).toFixed(1)})` : '–',
      sample ? `${samplingSummary(sample).kept} in ${sample.docsWithKeptCall} of ${sample.docsRead} docs` : '–',
      lm ? `${fmt(test(lm)?.precision)} / ${fmt(test(lm)?.recall)} (${test(lm)?.kept ?? 0})` : '–',
      all ? `${fmt(test(all)?.precision)} / ${fmt(test(all)?.recall)} (${test(all)?.kept ?? 0})` : '–',
      ...acc,
    ].join(' | ') + ' |');
    summary.push({ round: r, bareProbe: { samples: probeN, parsed: probeK }, annotate: s, sample: sample ? samplingSummary(sample) : null, evalDataLm: lm?.report ?? null, evalDataAll: all?.report ?? null, lmCallsInTrainingData: lmCalls });
  }
  const L: string[] = [];
  L.push('# Self-supervision rounds (issue 21) — report', '');
  L.push(`Rewritten by \`npm run rounds\` after every step (${new Date().toISOString().slice(0, 16)} UTC). Design: pipeline/eval/rounds/README.md.`, '');
  L.push(`Round r: M_r annotates the experiment's ${'500'} corpus documents alone — \`toolformer annotate ${ANNOTATE_FLAGS.join(' ')}\` (positions from its own p(" [" | x_{1:i−1}), ` +
    'every call sampled from x_{1:i−1} " [" with no prompt, temperature 1, top-k 40) — and M_{r+1} is finetuned from models/default on D_1 and the kept calls of rounds 1…r, ' +
    `with the experiment's steps, seed and mixture. M_1 is the experiment's arm (${ROUND_ONE.arm}) seed ${ROUND_ONE.seed}. Accuracy: the experiment's held-out eval set ` +
    `(${EXPERIMENT_HERE.endsWith('experiment') ? 'pipeline/eval/experiment/prompts.jsonl' : ''}), with tools, greedy, 95 % Wilson intervals.`, '');
  L.push('Columns: bare-text probe (calls sampled at the worked examples from the text alone that parse); LM samples in the annotation of the 500 documents and, as shares of them, ' +
    'parsed as a call, valid (parsed, a known tool, schema passed), leakage (the argument uses text not before the position), duplicate; kept calls (per 100 documents); ' +
    'the same run of M_r on npm start\'s 30 documents (corpus/sample.jsonl); ' +
    'eval:data on the hand-labelled test passages: precision / recall (kept) of the LM\'s own calls (`--no-programmatic`) and with the programmatic proposers beside them; eval accuracy, %.', '');
  L.push(`| round | M_r trained on | bare probe parses | LM samples | parsed | valid | leakage | duplicate | kept (/100 docs) | bundled sample: kept | eval:data LM only P / R (kept) | eval:data all P / R (kept) | ${FAMILIES.map((f) => f.label).join(' | ')} |`);
  L.push(`|---|---|---|---:|---:|---:|---:|---:|---:|---|---|---|${FAMILIES.map(() => '---').join('|')}|`);
  L.push(...rows, '');
  writeFileSync(join(RESULTS, 'report.md'), L.join('\n'));
  writeFileSync(join(RESULTS, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
}
