/**
 * `npm run build:toolformer` (`tsx pipeline/eval/experiment/run.ts toolformer`): models/toolformer from the
 * experiment's best arm (issue 20 item 5) — the 5× longer finetune of (e) (plan.ts LIMIT_RUNS[0]) — with its
 * finetuning data beside it and a card that says what it was trained on and how it scores on the held-out eval.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { wilson, type TrialRecord } from '../metrics.ts';
import { ROOT, readJsonl } from './corpus-files.ts';
import { describeOverlap, type OverlapReport } from './overlap.ts';
import { armFiles, paths } from './paths.ts';
import { runName, type Run } from './plan.ts';
import { readJson } from './steps.ts';

export const SHIPPED = join(ROOT, 'models/toolformer');

/** How far the eval set is from the finetuning texts, from the committed report (results/summary.json). */
export function heldOutNote(): string {
  const summary = readJson<{ overlap: OverlapReport }>(join(ROOT, 'pipeline/eval/experiment/results/summary.json'));
  if (!summary?.overlap) throw new Error('pipeline/eval/experiment/results/summary.json has no overlap report: run `run.ts report` first');
  return describeOverlap(summary.overlap);
}

const pct = (k: number, n: number) => {
  const [lo, hi] = wilson(k, n);
  return `${((100 * k) / n).toFixed(0)} [${(100 * lo).toFixed(0)}–${(100 * hi).toFixed(0)}]`;
};

/** The card's scores: per family (and real-format cloze), with tools, greedy, with 95 % Wilson intervals. */
export function scoreTable(trials: readonly TrialRecord[]): string[] {
  const withTools = trials.filter((t) => t.tools);
  const families = [...new Set(withTools.map((t) => t.family))];
  const noCall = (f: string) => f === 'dates-stated' || f === 'relevance';
  const rows = ['| family (held-out prompts) | n | with tools, % [95 % CI] |', '|---|---:|---|'];
  const row = (label: string, sel: TrialRecord[], f: string) => {
    const k = sel.filter((t) => (noCall(f) ? t.calls.length === 0 : t.correct)).length;
    rows.push(`| ${label} | ${sel.length} | ${pct(k, sel.length)} |`);
  };
  for (const f of families) {
    const sel = withTools.filter((t) => t.family === f);
    row(noCall(f) ? `${f} (score: no call)` : f, sel, f);
    const real = sel.filter((t) => t.real);
    if (real.length > 0 && !noCall(f)) row(`${f}: real-format cloze`, real, f);
  }
  return rows;
}

export function shipModel(run: Run): void {
  const model = paths.model(run);
  const trialsFile = [join(paths.committed(run), 'trials.jsonl'), join(paths.eval(run), 'trials.jsonl')].find(existsSync);
  if (!existsSync(join(model, 'onnx/model.onnx')) || !trialsFile) throw new Error(`${runName(run)} has no model or eval yet: run npm run experiment`);
  const tmp = SHIPPED + '.tmp';
  rmSync(tmp, { recursive: true, force: true });
  cpSync(model, tmp, { recursive: true });
  // The finetuning data, committed beside the model (the card names it).
  const data = armFiles(run.arm).map((f) => {
    const name = relative(paths.out, f).replace(/^arms\//, '');
    mkdirSync(join(tmp, 'finetune-data'), { recursive: true });
    cpSync(f, join(tmp, 'finetune-data', name));
    return `models/toolformer/finetune-data/${name}`;
  });
  const loss = readJson<{ meanNll: number; tokens: number }>(join(paths.committed(run), 'loss.json'));
  const control = readJson<{ meanNll: number }>(join(paths.committed({ arm: 'control', seed: run.seed }), 'loss.json'));
  let card = readFileSync(join(tmp, 'README.md'), 'utf8');
  card = card.replace(/^# .*$/m, '# models/toolformer — the experiment\'s best arm, (e), finetuned 5× longer (Toolformer step 3)');
  for (const [i, f] of armFiles(run.arm).entries()) card = card.split(relative(ROOT, f)).join(data[i]);
  card = card.replace(/```\nnpm run experiment\n```/, '```\nnpm run build:toolformer\n```');
  card += [
    '',
    '## How it scores (held-out eval of pipeline/eval/experiment)',
    '',
    `This is \`${runName(run)}\` of \`npm run experiment\`: arm (e), the pipeline's kept calls on 500 real corpus documents plus the ` +
      'templated KB prose, finetuned for ' + `${run.steps} steps (5× the grid's). On the 746 held-out prompts (${heldOutNote()}), greedy, with tools:`,
    '',
    ...scoreTable(readJsonl<TrialRecord>(trialsFile)),
    '',
    loss && control
      ? `Held-out corpus loss without calls: ${loss.meanNll.toFixed(4)} nats/token on ${loss.tokens.toLocaleString('en-US')} tokens ` +
        `(the 120-step base-mixture control of the same seed: ${control.meanNll.toFixed(4)}).`
      : '',
    '',
    'It writes calls in the KB prose\'s own phrasings ("The capital of Peru is" → a question and the answer) and ' +
      'rarely elsewhere; in the Factbook\'s own format it asks, but mostly about a subject it invents. The experiment\'s report ' +
      '(pipeline/eval/experiment/results/report.md) compares it with every arm and seed; pipeline/eval/rounds/ measures it writing its own training data.',
    '',
  ].join('\n');
  writeFileSync(join(tmp, 'README.md'), card);
  rmSync(SHIPPED, { recursive: true, force: true });
  renameSync(tmp, SHIPPED);
  console.error(`[experiment] ${relative(ROOT, model)} → models/toolformer (card, finetuning data)`);
}
