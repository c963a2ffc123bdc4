/**
 * The experiment's report (pipeline/eval/experiment/results/report.md, committed), rewritten from whatever has
 * finished: data yield, overlap, the arms table with 95 % intervals over seeds, call rates and validity, and the
 * held-out loss against the control. results/summary.json keeps the same numbers for the next session.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { clusteredWilson, wilson } from '../metrics.ts';
import type { Cluster, TrialRecord } from '../metrics.ts';
import { ARM_NAMES } from './arms.ts';
import { corpus, encoder, HERE, PROMPTS_FILE, ROOT, readJsonl } from './corpus-files.ts';
import { splitDocs } from '../../train/data.ts';
import type { EvalPrompt } from '../tasks.ts';
import { pretrainingOverlap, type OverlapReport, type PretrainingOverlap } from './overlap.ts';
import { ANNOTATE, LIMIT_RUNS, LOSS_TOKENS, MIX, SEEDS, STEPS, runName, schedule, type Run } from './plan.ts';

export const RESULTS = process.env.EXPERIMENT_RESULTS ?? join(HERE, 'results');

interface Paths {
  out: string;
  annCorpus: string;
  annKb: string;
  armStats: string;
  overlap: string;
  overlapInputs: string;
  eval(r: Run): string;
  loss(r: Run): string;
  committed(r: Run): string;
  model(r: Run): string;
}

type ArmKey = Run['arm'];
const ORDER: ArmKey[] = ['a', 'b', 'c', 'd', 'e', 'control'];

const readJson = <T>(p: string): T | null => (existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as T) : null);
const pct = (x: number) => `${(100 * x).toFixed(0)}`;
const ci = (k: number, n: number) => {
  if (n === 0) return '–';
  const [lo, hi] = wilson(k, n);
  return `${pct(k / n)} [${pct(lo)}–${pct(hi)}]`;
};

/** Trials of one run (with tools and, where run, without), from the committed copy or out/. */
function trials(p: Paths, r: Run): TrialRecord[] | null {
  const f = [join(p.committed(r), 'trials.jsonl'), join(p.eval(r), 'trials.jsonl')].find(existsSync);
  return f ? readJsonl<TrialRecord>(f) : null;
}

interface Cell {
  k: number;
  n: number;
  seeds: number[];
  /** Trials per prompt id over the runs (a prompt under 3 seeds is one cluster). */
  byPrompt: Map<string, Cluster>;
}

const pct1 = (x: number) => `${(100 * x).toFixed(1)}`;
/** The clustered interval (by prompt), then the pooled Wilson that treats every seed's trial as a new prompt. */
const cci = (c: Cell, withPooled = true) => {
  if (c.n === 0) return '–';
  const w = clusteredWilson([...c.byPrompt.values()]);
  const [lo, hi] = wilson(c.k, c.n);
  return `${pct1(w.p)} [${pct1(w.lo)}–${pct1(w.hi)}]${withPooled ? ` (pooled [${pct1(lo)}–${pct1(hi)}])` : ''}`;
};

function cell(runs: TrialRecord[][], keep: (t: TrialRecord) => boolean, score: (t: TrialRecord) => boolean): Cell {
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

const show = (c: Cell) => (c.n === 0 ? '–' : `${cci(c)}${c.seeds.length > 1 ? ` (seeds ${c.seeds.map(pct).join(', ')})` : ''}`);

/** p1 − p2 with Newcombe's hybrid score interval (from the two Wilson intervals), as shares. */
export function newcombe(k1: number, n1: number, k2: number, n2: number): [number, number, number] {
  const p1 = k1 / n1;
  const p2 = k2 / n2;
  const [l1, u1] = wilson(k1, n1);
  const [l2, u2] = wilson(k2, n2);
  const d = p1 - p2;
  return [d, d - Math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + Math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)];
}

/** Mean and 95 % interval of paired per-window loss differences (arm − control), per seed and pooled over seeds. */
function lossDiff(a: number[], b: number[]): { mean: number; lo: number; hi: number } {
  const d = a.map((x, i) => x - b[i]);
  const mean = d.reduce((s, x) => s + x, 0) / d.length;
  const sd = Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / (d.length - 1));
  const half = (1.96 * sd) / Math.sqrt(d.length);
  return { mean, lo: mean - half, hi: mean + half };
}

export function writeReport(p: Paths): void {
  mkdirSync(RESULTS, { recursive: true });
  const runs = schedule();
  const done = (r: Run) => trials(p, r) !== null;
  const byArm = new Map<ArmKey, { run: Run; trials: TrialRecord[] }[]>();
  for (const r of runs) {
    const t = trials(p, r);
    if (t) byArm.set(r.arm, [...(byArm.get(r.arm) ?? []), { run: r, trials: t }]);
  }
  const arms = ORDER.filter((a) => byArm.has(a));
  const prompts = readJsonl<EvalPrompt & { phrasing: string }>(PROMPTS_FILE);
  const families = [...new Set(prompts.map((q) => q.family))];
  const noCallFamily = (f: string) => prompts.filter((q) => q.family === f).every((q) => !q.tool);
  const majority = (sel: typeof prompts) => {
    const counts = new Map<string, number>();
    for (const q of sel) for (const a of new Set(q.answers.map((x) => x.toLowerCase()))) counts.set(a, (counts.get(a) ?? 0) + 1);
    return sel.length === 0 || counts.size === 0 ? 0 : Math.max(...counts.values()) / sel.length;
  };

  // What out/experiment held when the run was made (annotation stats, arm stats, overlap) is kept in the committed
  // summary.json; on a machine without out/ (a fresh clone) the report is rewritten from it, so it regenerates from
  // committed files alone.
  const committedSummary = readJson<{ annotation?: unknown; kbAnnotation?: unknown; arms?: unknown; overlap?: unknown }>(join(RESULTS, 'summary.json')) ?? {};
  const orCommitted = <T>(x: T | null, key: keyof typeof committedSummary): T | null => x ?? ((committedSummary[key] as T | undefined) ?? null);
  const stats = orCommitted(readJson<{ docsRead: number; docsWithKeptCall: number; tools: Record<string, { kept: number; scored?: number }> }>(join(p.annCorpus, 'stats.json')), 'annotation');
  const kbStats = orCommitted(readJson<{ docsRead: number; docsWithKeptCall: number; tools: Record<string, { kept: number }> }>(join(p.annKb, 'stats.json')), 'kbAnnotation');
  const armStats = orCommitted(readJson<{ candidates: number; candidateReasons: Record<string, number>; heldOutCandidatesRemoved?: number; heldOutKeptCallsRemoved?: number | null; arms: Record<string, { records: number; calls: Record<string, number> }> }>(p.armStats), 'arms');
  // The committed overlap is the final one (it is written only once the arms exist).
  const finalOverlap = orCommitted(readJson<OverlapReport>(p.overlap), 'overlap');
  const overlap = finalOverlap ?? readJson<OverlapReport>(p.overlapInputs);
  const losses = new Map<string, { meanNll: number; perWindow: number[]; tokens: number }>();
  for (const r of [...runs, ...LIMIT_RUNS]) {
    const l = readJson<{ meanNll: number; perWindow: number[]; tokens: number }>(join(p.committed(r), 'loss.json')) ??
      readJson<{ meanNll: number; perWindow: number[]; tokens: number }>(p.loss(r));
    if (l) losses.set(runName(r), l);
  }

  const L: string[] = [];
  L.push('# Does the pipeline\'s data teach tool use? (issue 20) — report', '');
  L.push(`Rewritten by \`npm run experiment\` after every eval (${new Date().toISOString().slice(0, 16)} UTC). Finished evals: ` +
    `${runs.filter(done).map(runName).join(', ') || 'none yet'}; still to run: ${runs.filter((r) => !done(r)).map(runName).join(', ') || 'none'}.`, '');
  L.push('Commands: `npm run experiment` (resumable: rerun after any stop; `npx tsx pipeline/eval/experiment/run.ts status` lists the steps). ' +
    'Design, sizing and caveats: pipeline/eval/experiment/README.md.', '');
  L.push(`Grid: arms ${ORDER.map((a) => `(${a}) ${ARM_NAMES[a]}`).join('; ')}. Every finetune: \`toolformer finetune\` from models/default, ` +
    `${STEPS} steps × 16 rows × 128 tokens (${(STEPS * 16 * 128).toLocaleString('en-US')} tokens), mix ${MIX} base mixture (control: 1.0), ` +
    `seeds ${SEEDS.join(', ')}; the base-mixture corpus is a seeded quarter of corpus/ without the held-out documents.`, '');

  L.push('Reference, before any arm: the old `models/toolformer` (600 steps on C* that was 85 % KB-prose templates) on this eval set — ' +
    '[results/reference/models-toolformer.md](reference/models-toolformer.md): capitals 7 % with tools [4–12] (template "Which city is the capital of X? The answer is" 43 %, ' +
    'the Factbook\'s own format 1 of 43 — Nigeria, whose section was in its C* — and mostly "What is the capital of Sea?"), arithmetic 0 %, dates about today 3 %, ' +
    'calls on 42 % of the stated-date prompts that need none.', '');
  L.push('## Data', '');
  if (stats) {
    const kept = Object.entries(stats.tools).map(([t, s]) => `${t} ${s.kept}`).join(', ');
    L.push(`- Annotated: ${stats.docsRead} corpus documents (plan: ${Object.entries(ANNOTATE).filter(([k]) => k !== 'seed').map(([k, v]) => `${k} ${v}`).join(', ')}; ` +
      `held-out countries and addresses excluded), ${stats.docsWithKeptCall} with a kept call; kept calls: ${kept}.`);
  } else L.push('- Corpus annotation not finished yet.');
  if (kbStats) L.push(`- KB prose (arm e): ${kbStats.docsRead} texts, ${kbStats.docsWithKeptCall} with a kept call; kept: ${Object.entries(kbStats.tools).map(([t, s]) => `${t} ${s.kept}`).join(', ')}.`);
  if (armStats) {
    L.push(`- Candidates in calls.jsonl: ${armStats.candidates} (${Object.entries(armStats.candidateReasons).map(([k, v]) => `${k} ${v}`).join(', ')}).`);
    L.push(`- Calls whose argument names a held-out subject, removed from every arm: ${armStats.heldOutKeptCallsRemoved ?? '?'} kept calls (arm a), ${armStats.heldOutCandidatesRemoved ?? '?'} candidates (the pool of b and c).`);
    for (const [a, s] of Object.entries(armStats.arms)) L.push(`- Arm (${a}): ${s.records} records, calls ${Object.entries(s.calls).map(([t, n]) => `${t} ${n}`).join(', ') || 'none'}.`);
  }
  L.push('');

  L.push('## Overlap of the eval set with every finetuning text', '');
  if (overlap) {
    L.push(finalOverlap
      ? `${overlap.texts.toLocaleString('en-US')} texts (every arm's records with and without calls, the base-mixture corpus, the synthetic fact statements).`
      : `Preliminary, before the arms exist: ${overlap.texts.toLocaleString('en-US')} plain texts (the documents to annotate, the KB prose, the base-mixture corpus, the synthetic fact statements); the calls the pipeline adds are checked once the arms are built.`, '');
    L.push(`- Prompts found verbatim: ${overlap.prompts.n}${overlap.prompts.n ? ` (${overlap.prompts.ids.slice(0, 10).join(', ')})` : ''}.`);
    L.push(`- Facts seen (subject and answer in one text): ${overlap.facts.prompts} of ${overlap.facts.of} fact prompts` +
      `${overlap.facts.examples.length ? `; e.g. ${overlap.facts.examples.slice(0, 4).map((e) => `${e.subject} → ${e.answer} ("…${e.text}…")`).join('; ')}` : ''}.`);
    L.push(`- Subjects named: ${overlap.subjects.subjects} of ${overlap.subjects.ofSubjects} subjects (${overlap.subjects.prompts} of ${overlap.subjects.of} fact prompts) appear by name in some text ` +
      `(countries are named in SOTU addresses and in neighbours' Factbook sections), most: ${overlap.subjects.examples.slice(0, 6).map((e) => `${e.subject} ${e.texts}`).join(', ')}.`);
    L.push('- Phrasings (texts in which the template occurs with any subject):', '');
    L.push('| family | phrasing | texts |', '|---|---|---:|');
    for (const ph of overlap.phrasings) L.push(`| ${ph.family} | ${ph.name}${ph.real ? ' (real format)' : ''} | ${ph.texts < 0 ? (ph.real ? 'corpus format (by design)' : 'fixed sentences (verbatim check above)') : ph.texts}${ph.example ? ` (e.g. "${ph.example}")` : ''} |`);
  } else L.push('Computed after arms (b), (c), (e) are built.');
  L.push('');

  // The base model's pretraining saw the corpus's train split (pipeline/train/data.ts splitDocs): measured, not assumed.
  const pretraining = pretrainingOverlap(prompts, splitDocs([...corpus.factbook(), ...corpus.sotu()]).train);
  L.push('## Overlap of the eval set with the base model\'s pretraining (models/default)', '');
  L.push(`models/default was pretrained on the corpus's train split (${pretraining.documents.toLocaleString('en-US')} documents; pipeline/train/data.ts \`splitDocs\`). ` +
    'The held-out list keeps eval documents out of every *finetuning* text, not out of pretraining:', '');
  L.push('| family | real-format prompts | their source document in pretraining | fact prompts | subject and answer together in a pretraining document |', '|---|---:|---:|---:|---:|');
  for (const f of pretraining.families) L.push(`| ${f.family} | ${f.realPrompts} | ${f.realPrompts ? f.realSourcesInPretraining : '–'} | ${f.factPrompts} | ${f.factPrompts ? f.factsSeen : '–'} |`);
  L.push('');

  L.push('## Accuracy per family, % (95 % interval clustered by prompt [low–high], cluster-robust Wilson from pipeline/eval/metrics.ts `clusteredWilson`; beside it the pooled Wilson interval that counts each seed\'s trial as a new prompt; per-seed values last)', '');
  if (arms.length === 0) L.push('No eval finished yet.');
  else {
    const head = ['family', 'n', 'majority', ...arms.map((a) => `(${a}) with tools`), ...arms.filter((a) => a === 'd' || a === 'control').map((a) => `(${a}) without tools`)];
    L.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
    const rowsFor = (label: string, keep: (t: TrialRecord) => boolean, sel: typeof prompts, noCall: boolean) => {
      const score = noCall ? (t: TrialRecord) => t.calls.length === 0 : (t: TrialRecord) => t.correct;
      const cells = arms.map((a) => show(cell(byArm.get(a)!.map((x) => x.trials.filter((t) => t.tools)), keep, score)));
      const base = arms.filter((a) => a === 'd' || a === 'control').map((a) =>
        noCall ? '–' : show(cell(byArm.get(a)!.map((x) => x.trials.filter((t) => !t.tools)), keep, (t) => t.correct)));
      L.push(`| ${label} | ${sel.length} | ${noCall ? '1 (never call)' : pct(majority(sel))} | ${[...cells, ...base].join(' | ')} |`);
    };
    for (const f of families) {
      const sel = prompts.filter((q) => q.family === f);
      rowsFor(`**${f}**${noCallFamily(f) ? ' (score: no call)' : ''}`, (t) => t.family === f, sel, noCallFamily(f));
      const real = sel.filter((q) => q.real);
      if (real.length > 0 && !noCallFamily(f)) rowsFor(`${f}: real-format cloze`, (t) => t.family === f && t.real === true, real, false);
    }
    L.push('', 'Per phrasing (with tools, pooled over seeds):', '');
    const h2 = ['family', 'phrasing', 'n', ...arms.map((a) => `(${a})`)];
    L.push(`| ${h2.join(' | ')} |`, `|${h2.map(() => '---').join('|')}|`);
    for (const f of families) {
      const noCall = noCallFamily(f);
      for (const ph of [...new Set(prompts.filter((q) => q.family === f).map((q) => q.phrasing))]) {
        const keep = (t: TrialRecord) => t.family === f && t.phrasing === ph;
        const score = noCall ? (t: TrialRecord) => t.calls.length === 0 : (t: TrialRecord) => t.correct;
        const n = prompts.filter((q) => q.family === f && q.phrasing === ph).length;
        L.push(`| ${f} | ${ph} | ${n} | ${arms.map((a) => { const c = cell(byArm.get(a)!.map((x) => x.trials.filter((t) => t.tools)), keep, score); return c.n ? cci(c) : '–'; }).join(' | ')} |`);
      }
    }
    L.push('', ...subjectTokensSection(arms, byArm, prompts));
    L.push('', '## Calls (greedy, with tools, pooled over seeds): share of prompts with a call / share of calls that returned a result / share naming the family\'s tool', '');
    const h3 = ['family', ...arms.map((a) => `(${a})`)];
    L.push(`| ${h3.join(' | ')} |`, `|${h3.map(() => '---').join('|')}|`);
    for (const f of families) {
      const tool = prompts.find((q) => q.family === f)?.tool;
      L.push(`| ${f} | ${arms.map((a) => {
        const ts = byArm.get(a)!.flatMap((x) => x.trials.filter((t) => t.tools && t.family === f));
        const calls = ts.flatMap((t) => t.calls);
        const made = ts.filter((t) => t.calls.length > 0).length;
        const valid = calls.filter((c) => c.result !== undefined && c.result !== null).length;
        const right = calls.filter((c) => c.tool === tool).length;
        return ts.length === 0 ? '–' : `${pct(made / ts.length)} / ${calls.length ? pct(valid / calls.length) : '–'} / ${tool ? (calls.length ? pct(right / calls.length) : '–') : 'n/a'}`;
      }).join(' | ')} |`);
    }
  }
  L.push('');

  // The issue's "must show" comparisons, pooled over the seeds both arms have finished.
  if (arms.length > 0) {
    L.push('## Comparisons (over seeds; difference with a 95 % Newcombe interval from the two clustered intervals, each at its effective n)', '');
    const pooled = (a: ArmKey, tools: boolean, keep: (t: TrialRecord) => boolean): Cell | null =>
      byArm.has(a) ? cell(byArm.get(a)!.map((x) => x.trials.filter((t) => t.tools === tools)), keep, (t) => t.correct) : null;
    const diff = (x: Cell | null, y: Cell | null) => {
      if (!x || !y || x.n === 0 || y.n === 0) return 'not run yet';
      const [ex, ey] = [clusteredWilson([...x.byPrompt.values()]), clusteredWilson([...y.byPrompt.values()])];
      const [d, lo, hi] = newcombe(ex.p * ex.nEff, ex.nEff, ey.p * ey.nEff, ey.nEff);
      return `${pct(x.k / x.n)} vs ${pct(y.k / y.n)}: ${d >= 0 ? '+' : ''}${pct(d)} points [${pct(lo)}, ${pct(hi)}]`;
    };
    const realCaps = (t: TrialRecord) => t.family === 'capitals' && t.real === true;
    const realArith = (t: TrialRecord) => t.family === 'arithmetic' && t.real === true;
    L.push('| comparison | prompts | result |', '|---|---|---|');
    L.push(`| filter: (a) vs (b), with tools | capitals, Factbook cloze | ${diff(pooled('a', true, realCaps), pooled('b', true, realCaps))} |`);
    L.push(`| filter: (a) vs (c), with tools | capitals, Factbook cloze | ${diff(pooled('a', true, realCaps), pooled('c', true, realCaps))} |`);
    L.push(`| filter: (a) vs (b), with tools | arithmetic, SOTU cloze | ${diff(pooled('a', true, realArith), pooled('b', true, realArith))} |`);
    L.push(`| filter: (a) vs (c), with tools | arithmetic, SOTU cloze | ${diff(pooled('a', true, realArith), pooled('c', true, realArith))} |`);
    L.push(`| (a) with tools vs CC baseline (d) without tools (target ≥ +20, intervals apart) | capitals, Factbook cloze | ${diff(pooled('a', true, realCaps), pooled('d', false, realCaps))} |`);
    for (const f of families.filter((x) => !noCallFamily(x))) {
      L.push(`| (a) with tools vs (d) without tools | ${f} | ${diff(pooled('a', true, (t) => t.family === f), pooled('d', false, (t) => t.family === f))} |`);
    }
    L.push('');
  }

  L.push(`## Held-out corpus loss without calls (nats/token, ≥ ${LOSS_TOKENS.toLocaleString('en-US')} tokens of held-out SOTU addresses and Factbook sections)`, '');
  if (losses.size === 0) L.push('No model scored yet.');
  else {
    L.push('| run | tokens | loss | − control (same seed), 95 % CI over windows |', '|---|---:|---:|---|');
    for (const r of runs) {
      const l = losses.get(runName(r));
      if (!l) continue;
      const c = losses.get(runName({ arm: 'control', seed: r.seed }));
      const d = c && r.arm !== 'control' ? lossDiff(l.perWindow, c.perWindow) : null;
      L.push(`| ${runName(r)} | ${l.tokens} | ${l.meanNll.toFixed(4)} | ${d ? `${d.mean >= 0 ? '+' : ''}${d.mean.toFixed(4)} [${d.lo.toFixed(4)}, ${d.hi.toFixed(4)}]` : r.arm === 'control' ? '(control)' : 'control not run yet'} |`);
    }
    // Perplexity cost of (a) over seeds: the mean of the per-seed paired differences; interval over seeds (t, n − 1
    // degrees of freedom) when there are ≥ 2, else the window interval of the one seed. Target ≤ 0.05 nats.
    const perSeed = SEEDS.flatMap((seed) => {
      const a = losses.get(runName({ arm: 'a', seed }));
      const c = losses.get(runName({ arm: 'control', seed }));
      return a && c ? [lossDiff(a.perWindow, c.perWindow)] : [];
    });
    if (perSeed.length > 0) {
      const m = perSeed.reduce((x, d) => x + d.mean, 0) / perSeed.length;
      const T = [12.71, 4.30, 3.18];
      const half = perSeed.length >= 2
        ? (T[perSeed.length - 2] * Math.sqrt(perSeed.reduce((x, d) => x + (d.mean - m) ** 2, 0) / (perSeed.length - 1))) / Math.sqrt(perSeed.length)
        : (perSeed[0].hi - perSeed[0].lo) / 2;
      L.push('', `Perplexity cost of (a) vs the control over ${perSeed.length} seed(s): ${m >= 0 ? '+' : ''}${m.toFixed(4)} nats/token ` +
        `[${(m - half).toFixed(4)}, ${(m + half).toFixed(4)}] (target ≤ 0.05).`);
    }
  }
  L.push('', ...positiveControlSection(p), '');
  L.push('', ...limitsSection(p, losses), '');
  writeFileSync(join(RESULTS, 'report.md'), L.join('\n') + '\n');
  writeFileSync(join(RESULTS, 'loop.md'), loopTable(p, byArm, losses).join('\n') + '\n');

  // Small numbers for the next session (the eval/ and models/ folders stay under out/, not committed).
  const summary: Record<string, unknown> = { generated: new Date().toISOString(), steps: STEPS, seeds: SEEDS, annotation: stats, kbAnnotation: kbStats, arms: armStats, overlap, pretrainingOverlap: pretraining, losses: Object.fromEntries([...losses].map(([k, v]) => [k, { tokens: v.tokens, meanNll: v.meanNll }])) };
  summary.evals = Object.fromEntries(runs.filter(done).map((r) => {
    const e = readJson<{ families: unknown[] }>(join(p.committed(r), 'eval.json')) ?? readJson<{ families: unknown[] }>(join(p.eval(r), 'eval.json'));
    return [runName(r), { model: relative(ROOT, p.model(r)), families: e?.families }];
  }));
  writeFileSync(join(RESULTS, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
}

/**
 * The positive control (issue 31 item 2): each run's model on the eval set's held-out capital subjects written in the
 * KB prose's own training templates, with and without tools (runs/<run>/positive-trials.jsonl). Rows appear for the
 * runs whose positive control has run; the rest are listed as still to run.
 */
function positiveControlSection(p: Paths): string[] {
  const L = ['## Positive control: held-out subjects in the training templates (capitals; % [95 % interval clustered by prompt])', ''];
  const all = [...schedule(), ...LIMIT_RUNS];
  const read = (r: Run) => {
    const f = join(p.committed(r), 'positive-trials.jsonl');
    return existsSync(f) ? readJsonl<TrialRecord>(f) : null;
  };
  const done = all.filter((r) => read(r) !== null);
  L.push('The prompts are "The capital of X is" and "X is a country. The capital of X is" (tasks.ts trainDocs\'s templates) for the ' +
    'held-out subjects of the capitals family (eval-sets.ts positiveControlPrompts, positive-control.jsonl). A model that learned to call ' +
    'in its training format scores here; the gap to the families above is what it fails to carry to new phrasings.', '');
  if (done.length === 0) return [...L, 'Not run yet.'];
  const groups = new Map<string, Run[]>();
  for (const r of done) groups.set(r.steps ? runName(r) : `(${r.arm}) ${ARM_NAMES[r.arm]}`, [...(groups.get(r.steps ? runName(r) : `(${r.arm}) ${ARM_NAMES[r.arm]}`) ?? []), r]);
  L.push('| run | seeds | prompts | with tools | without tools | calls made (with tools) |', '|---|---|---:|---|---|---|');
  for (const [label, runs] of groups) {
    const trialsOf = runs.map((r) => read(r)!);
    const withTools = cell(trialsOf.map((ts) => ts.filter((t) => t.tools)), () => true, (t) => t.correct);
    const without = cell(trialsOf.map((ts) => ts.filter((t) => !t.tools)), () => true, (t) => t.correct);
    const called = cell(trialsOf.map((ts) => ts.filter((t) => t.tools)), () => true, (t) => t.calls.length > 0);
    L.push(`| ${label} | ${runs.map((r) => r.seed).join(', ')} | ${withTools.byPrompt.size} | ${cci(withTools, false)} | ${cci(without, false)} | ${cci(called, false)} |`);
  }
  const missing = all.filter((r) => read(r) === null);
  if (missing.length) L.push('', `Still to run (their models must be finetuned again on this machine; \`npm run experiment\` does it): ${missing.map(runName).join(', ')}.`);
  return L;
}

/**
 * The vocabulary check (issue 31 item 5): capital prompts split by how many tokens the subject's name takes in the
 * 1,024-token vocabulary (a short name in few pieces, " Equatorial Guinea" in many), accuracy with tools per split,
 * clustered by prompt. If a long name is what breaks the model, the few-token split should score higher.
 */
function subjectTokensSection(arms: ArmKey[], byArm: Map<ArmKey, { run: Run; trials: TrialRecord[] }[]>, prompts: { id: string; family: string; subject?: string }[]): string[] {
  const encode = encoder();
  const tokens = new Map(prompts.filter((q) => q.family === 'capitals' && q.subject).map((q) => [q.id, encode(` ${q.subject}`).length]));
  const bins: { label: string; has: (n: number) => boolean }[] = [
    // The 1,024-token vocabulary spells every subject in ≥ 3 pieces; the bins split the 151 prompts into thirds.
    { label: '3–4 tokens', has: (n) => n <= 4 },
    { label: '5 tokens', has: (n) => n === 5 },
    { label: '6 or more', has: (n) => n >= 6 },
  ];
  const L = ['## Capitals by the subject\'s length in tokens (with tools, % [95 % interval clustered by prompt])', ''];
  const head = ['subject', 'prompts', ...arms.map((a) => `(${a})`)];
  L.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  for (const b of bins) {
    const keep = (t: TrialRecord) => t.family === 'capitals' && tokens.has(t.id) && b.has(tokens.get(t.id)!);
    const n = [...tokens.values()].filter(b.has).length;
    L.push(`| ${b.label} | ${n} | ${arms.map((a) => cci(cell(byArm.get(a)!.map((x) => x.trials.filter((t) => t.tools)), keep, (t) => t.correct), false)).join(' | ')} |`);
  }
  return L;
}

/**
 * What limits the result: each limit run (plan.ts LIMIT_RUNS) beside the grid run it lengthens (same arm and seed,
 * STEPS steps), per family with tools, with the held-out loss against the control of the same seed.
 */
function limitsSection(p: Paths, losses: Map<string, { meanNll: number; perWindow: number[] }>): string[] {
  const L = ['## Limits: a five times longer finetune of the best arm', ''];
  const pairs = LIMIT_RUNS.map((long) => ({ long, short: { arm: long.arm, seed: long.seed } as Run })).filter(({ long, short }) => trials(p, long) && trials(p, short));
  if (pairs.length === 0) return [...L, `Not run yet: ${LIMIT_RUNS.map(runName).join(', ')} (npm run experiment runs it after seed 2).`];
  for (const { long, short } of pairs) {
    const t = { short: trials(p, short)!.filter((x) => x.tools), long: trials(p, long)!.filter((x) => x.tools) };
    const families = [...new Set(t.short.map((x) => x.family))];
    const noCall = (f: string) => f === 'dates-stated' || f === 'relevance';
    const score = (x: TrialRecord) => (noCall(x.family) ? x.calls.length === 0 : x.correct);
    const cellFor = (xs: TrialRecord[], keep: (x: TrialRecord) => boolean) => {
      const sel = xs.filter(keep);
      return ci(sel.filter(score).length, sel.length);
    };
    const called = (xs: TrialRecord[], keep: (x: TrialRecord) => boolean) => {
      const sel = xs.filter(keep);
      return ci(sel.filter((x) => x.calls.length > 0).length, sel.length);
    };
    L.push(`| family (with tools) | n | ${runName(short)} (${STEPS} steps) | ${runName(long)} (${long.steps} steps) | calls: ${runName(short)} | calls: ${runName(long)} |`, '|---|---:|---|---|---|---|');
    const rows: { label: string; keep: (x: TrialRecord) => boolean }[] = [];
    for (const f of families) {
      rows.push({ label: noCall(f) ? `${f} (score: no call)` : f, keep: (x) => x.family === f });
      if (t.short.some((x) => x.family === f && x.real)) rows.push({ label: `${f}: real-format cloze`, keep: (x) => x.family === f && x.real === true });
    }
    for (const row of rows) {
      const n = t.short.filter(row.keep).length;
      L.push(`| ${row.label} | ${n} | ${cellFor(t.short, row.keep)} | ${cellFor(t.long, row.keep)} | ${called(t.short, row.keep)} | ${called(t.long, row.keep)} |`);
    }
    const c = losses.get(runName({ arm: 'control', seed: long.seed }));
    const ls = losses.get(runName(short));
    const ll = losses.get(runName(long));
    if (c && ls && ll) {
      const ds = lossDiff(ls.perWindow, c.perWindow);
      const dl = lossDiff(ll.perWindow, c.perWindow);
      L.push('', `Held-out loss − control-s${long.seed} (${STEPS} steps of base mixture): ${runName(short)} ${ds.mean >= 0 ? '+' : ''}${ds.mean.toFixed(4)} [${ds.lo.toFixed(4)}, ${ds.hi.toFixed(4)}], ` +
        `${runName(long)} ${dl.mean >= 0 ? '+' : ''}${dl.mean.toFixed(4)} [${dl.lo.toFixed(4)}, ${dl.hi.toFixed(4)}] nats/token (the control is the shorter run's length).`);
    }
  }
  return L;
}

/**
 * results/loop.md: the one table the top-level README shows (issue 20 item 6, a generated block): per arm, the
 * seeds done, the main families with tools (95 % intervals clustered by prompt) and the held-out loss against the control.
 */
function loopTable(p: Paths, byArm: Map<ArmKey, { run: Run; trials: TrialRecord[] }[]>, losses: Map<string, { meanNll: number; perWindow: number[] }>): string[] {
  const cols: { label: string; keep: (t: TrialRecord) => boolean; noCall?: boolean }[] = [
    { label: 'capitals', keep: (t) => t.family === 'capitals' },
    { label: 'capitals, Factbook cloze', keep: (t) => t.family === 'capitals' && t.real === true },
    { label: 'arithmetic', keep: (t) => t.family === 'arithmetic' },
    { label: 'dates (today)', keep: (t) => t.family === 'dates' },
    { label: 'no call where none helps', keep: (t) => t.family === 'relevance' || t.family === 'dates-stated', noCall: true },
  ];
  const runsOf = (arm: ArmKey) => byArm.get(arm) ?? [];
  const rows: { name: string; runs: { run: Run; trials: TrialRecord[] }[]; tools: boolean }[] = [
    ...ORDER.filter((a) => byArm.has(a)).map((a) => ({ name: `(${a}) ${ARM_NAMES[a]}`, runs: runsOf(a), tools: true })),
    ...(['d', 'control'] as const).filter((a) => byArm.has(a)).map((a) => ({ name: `(${a}) without tools`, runs: runsOf(a), tools: false })),
    ...LIMIT_RUNS.flatMap((r) => {
      const t = trials(p, r);
      return t ? [{ name: `(${r.arm}) ${r.steps} steps`, runs: [{ run: r, trials: t }], tools: true }] : [];
    }),
  ];
  const L = [`| arm (${STEPS} steps unless said) | seeds | ${cols.map((c) => c.label).join(' | ')} | held-out loss − control |`, `|---|---|${cols.map(() => '---').join('|')}|---|`];
  for (const row of rows) {
    const cells = cols.map((c) => {
      if (c.noCall && !row.tools) return '–';
      const score = c.noCall ? (t: TrialRecord) => t.calls.length === 0 : (t: TrialRecord) => t.correct;
      const x = cell(row.runs.map((r) => r.trials.filter((t) => t.tools === row.tools)), c.keep, score);
      return x.n ? cci(x, false) : '–';
    });
    const diffs = row.tools ? row.runs.flatMap((r) => {
      const l = losses.get(runName(r.run));
      const c = losses.get(runName({ arm: 'control', seed: r.run.seed }));
      return l && c && r.run.arm !== 'control' ? [lossDiff(l.perWindow, c.perWindow).mean] : [];
    }) : [];
    const loss = diffs.length ? `${diffs.reduce((a, b) => a + b, 0) / diffs.length >= 0 ? '+' : ''}${(diffs.reduce((a, b) => a + b, 0) / diffs.length).toFixed(3)}` : '–';
    L.push(`| ${row.name} | ${row.runs.map((r) => r.run.seed).join(', ')} | ${cells.join(' | ')} | ${loss} |`);
  }
  return L;
}
