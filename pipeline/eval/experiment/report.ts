/**
 * The experiment's report (pipeline/eval/experiment/results/report.md, committed), rewritten from whatever has
 * finished: data yield, overlap, the arms table with 95 % intervals over seeds, call rates and validity, and the
 * held-out loss against the control. results/summary.json keeps the same numbers for the next session. The cells
 * and intervals are in cells.ts, the newer sections (pretraining overlap, positive control, subject tokens, limits,
 * loop table) in report-sections.ts.
 */
import { mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { TrialRecord } from '../metrics.ts';
import type { EvalPrompt } from '../tasks.ts';
import { armLabel, armLossCost, runLosses, cci, cell, clusteredDiff, controlOf, isBaseline, lossDiff, ORDER, pct, readJson, show, trials, trialsByArm, type ArmKey, type ByArm, type Cell, type ReportPaths, type RunLoss } from './cells.ts';
import { CONCLUSION_TITLE, conclusionSection } from './conclusion.ts';
import { DOSE_TITLE, doseSection } from './dose.ts';
import { FINDINGS_TITLE, costSection, findingsSection, loopIntro, type ModelShape } from './findings.ts';
import { HERE, PROMPTS_FILE, ROOT, readJsonl } from './corpus-files.ts';
import type { OverlapReport } from './overlap.ts';
import { ANNOTATE, LIMIT_RUNS, LONG_BASE, LOSS_TOKENS, MIX, PRETRAIN, SEEDS, STEPS, reportedRuns, runName, type Run } from './plan.ts';
import { factbookCutSection, limitsSection, loopTable, positiveControlSection, pretrainingSection, subjectTokensSection } from './report-sections.ts';
import { withLock, writeText } from './steps.ts';

export const RESULTS = process.env.EXPERIMENT_RESULTS ?? join(HERE, 'results');

type PhrasedPrompt = EvalPrompt & { phrasing: string };

/** An annotation's yield as stats.json states it (the fields the report reads). */
type AnnotationYield = { docsRead: number; docsWithKeptCall: number; tools: Record<string, { kept: number }> };
/** Arm (f) as written (arms/f-removed.json): its records and calls, held-out calls removed. */
type FullArm = { heldOutCallsRemoved: number; records: number; calls: Record<string, number> };
/** The arms' files as the main lane wrote them (arms/stats.json). */
type ArmStats = {
  candidates: number; candidateReasons: Record<string, number>; heldOutCandidatesRemoved?: number; heldOutKeptCallsRemoved?: number | null;
  arms: Record<string, { records: number; calls: Record<string, number> }>;
};

/**
 * Rewrites the report's files from what has finished, under the report lock ($EXPERIMENT_OUT/report.lock): the lanes
 * of `npm run experiment` (lanes.ts LANES) each write it after their evals, and a report read before another lane's
 * results landed must not overwrite a newer one half-way. Every file is written whole (write, then rename).
 */
export function writeReport(p: ReportPaths): void {
  withLock(join(p.out, 'report.lock'), () => writeReportFiles(p));
}

function writeReportFiles(p: ReportPaths): void {
  mkdirSync(RESULTS, { recursive: true });
  const runs = reportedRuns();
  const done = (r: Run) => trials(p, r) !== null;
  const byArm = trialsByArm(p, runs);
  const arms = ORDER.filter((a) => byArm.has(a));
  const prompts = readJsonl<PhrasedPrompt>(PROMPTS_FILE);

  // What out/experiment held when the run was made (annotation stats, arm stats, overlap) is kept in the committed
  // summary.json; on a machine without out/ (a fresh clone) the report is rewritten from it, so it regenerates from
  // committed files alone.
  const committedSummary = readJson<{ annotation?: unknown; kbAnnotation?: unknown; fullAnnotation?: unknown; fullArm?: unknown; arms?: unknown; overlap?: unknown }>(join(RESULTS, 'summary.json')) ?? {};
  const orCommitted = <T>(x: T | null, key: keyof typeof committedSummary): T | null => x ?? ((committedSummary[key] as T | undefined) ?? null);
  const stats = orCommitted(readJson<AnnotationYield & { tools: Record<string, { scored?: number }> }>(join(p.annCorpus, 'stats.json')), 'annotation');
  const kbStats = orCommitted(readJson<AnnotationYield>(join(p.annKb, 'stats.json')), 'kbAnnotation');
  // Arm (f)'s data: the whole-corpus annotation's stats, and the arm as written (held-out calls removed).
  const fullStats = orCommitted(readJson<AnnotationYield>(join(p.annFull, 'stats.json')), 'fullAnnotation');
  const fullArm = orCommitted(readJson<FullArm>(join(p.out, 'arms/f-removed.json')), 'fullArm');
  const armStats = orCommitted(readJson<ArmStats>(p.armStats), 'arms');
  // The committed overlap is the final one (it is written only once the arms exist).
  const finalOverlap = orCommitted(readJson<OverlapReport>(p.overlap), 'overlap');
  const overlap = finalOverlap ?? readJson<OverlapReport>(p.overlapInputs);
  const losses = runLosses(p, [...runs, ...LIMIT_RUNS]);

  const L: string[] = [];
  L.push('# Does the pipeline\'s data teach tool use? (issue 20) — report', '');
  L.push(`Rewritten by \`npm run experiment\` after every eval (${new Date().toISOString().slice(0, 16)} UTC). Finished evals: ` +
    `${runs.filter(done).map(runName).join(', ') || 'none yet'}; still to run: ${runs.filter((r) => !done(r)).map(runName).join(', ') || 'none'}.`, '');
  L.push('Commands: `npm run experiment` (resumable: rerun after any stop; `npx tsx pipeline/eval/experiment/run.ts status` lists the steps). ' +
    'Design, sizing and caveats: pipeline/eval/experiment/README.md.', '');
  L.push(`Grid: arms ${ORDER.map((a) => `(${a}) ${armLabel(a)}`).join('; ')}. Every finetune: \`toolformer finetune\` from models/default ` +
    `(the -pt10x arms: from a base of the same size, tokenizer and data mixture pretrained ${PRETRAIN.steps.toLocaleString('en-US')} steps, ` +
    `${(PRETRAIN.steps * 16 * 128).toLocaleString('en-US')} tokens; plan.ts PRETRAIN), ` +
    `${STEPS} steps × 16 rows × 128 tokens (${(STEPS * 16 * 128).toLocaleString('en-US')} tokens), mix ${MIX} base mixture (control: 1.0), ` +
    `seeds ${SEEDS.join(', ')}; the base-mixture corpus is a seeded quarter of corpus/ without the held-out documents.`, '');
  L.push(`The base pretrained 10× longer (\`npm run experiment -- pretrain\`, results/base-${LONG_BASE}/): ${pretrainState(p)}.`, '');

  L.push('Reference, before any arm: the old `models/toolformer` (600 steps on C* that was 85 % KB-prose templates) on this eval set — ' +
    '[results/reference/models-toolformer.md](reference/models-toolformer.md): capitals 7 % with tools [4–12] (template "Which city is the capital of X? The answer is" 43 %, ' +
    'the Factbook\'s own format 1 of 43 — Nigeria, whose section was in its C* — and mostly "What is the capital of Sea?"), arithmetic 0 %, dates about today 3 %, ' +
    'calls on 42 % of the stated-date prompts that need none.', '');
  L.push(...dataSection(stats, kbStats, armStats, fullStats, fullArm));
  L.push(...overlapSection(overlap, finalOverlap !== null));

  const { lines: pretrainingLines, pretraining } = pretrainingSection(prompts);
  L.push(...pretrainingLines, '');
  L.push(...accuracySection(arms, byArm, prompts));
  L.push(...comparisonsSection(arms, byArm, prompts));
  L.push(...lossSection(runs, losses));
  const positive = positiveControlSection(p);
  const factbookCut = factbookCutSection(p);
  L.push('', ...positive, '');
  L.push('', ...factbookCut, '');
  L.push('', ...limitsSection(p, losses), '');
  const dose = doseSection(p);
  L.push('', `## ${DOSE_TITLE}`, '', ...dose.lines, '');
  const conclusion = conclusionSection(p, byArm, prompts);
  L.push('', `## ${CONCLUSION_TITLE}`, '', ...conclusion.lines, '');
  writeText(join(RESULTS, 'report.md'), L.join('\n') + '\n');
  // The eval README's blocks: the design paragraph above the loop table, and the findings in words (findings.ts).
  const shape = runs.map((r) => readJson<ModelShape>(join(p.committed(r), 'train-record.json'))).find((x) => x !== null) ?? null;
  writeText(join(RESULTS, 'loop.md'), [...loopIntro(prompts, finalOverlap, shape).lines, '', ...loopTable(p, byArm, losses)].join('\n') + '\n');
  writeText(join(RESULTS, 'cost.md'), ['# What each finetune cost', '', ...costSection(p, [...runs, ...LIMIT_RUNS])].join('\n') + '\n');
  writeText(join(RESULTS, 'findings.md'), [`# ${FINDINGS_TITLE}`, '', ...findingsSection(p, byArm, prompts, losses).lines].join('\n') + '\n');
  // The two derived-set sections alone, for the eval README's generated blocks (each file's first table), and the
  // conclusion for the eval README's block after the main table.
  writeText(join(RESULTS, 'positive.md'), positive.join('\n') + '\n');
  writeText(join(RESULTS, 'factbook-cut.md'), factbookCut.join('\n') + '\n');
  writeText(join(RESULTS, 'dose.md'), [`# ${DOSE_TITLE}`, '', ...dose.lines].join('\n') + '\n');
  writeText(join(RESULTS, 'conclusion.md'), [`# ${CONCLUSION_TITLE}`, '', ...conclusion.lines].join('\n') + '\n');

  // Small numbers for the next session (the eval/ and models/ folders stay under out/, not committed).
  const summary: Record<string, unknown> = { generated: new Date().toISOString(), steps: STEPS, seeds: SEEDS, annotation: stats, kbAnnotation: kbStats, fullAnnotation: fullStats && { docsRead: fullStats.docsRead, docsWithKeptCall: fullStats.docsWithKeptCall, tools: Object.fromEntries(Object.entries(fullStats.tools).map(([t, x]) => [t, { kept: x.kept }])) }, fullArm, arms: armStats, overlap, pretrainingOverlap: pretraining, losses: Object.fromEntries([...losses].map(([k, v]) => [k, { tokens: v.tokens, meanNll: v.meanNll }])), conclusion: conclusion.factors, dose: dose.rows };
  summary.evals = Object.fromEntries(runs.filter(done).map((r) => {
    const e = readJson<{ families: unknown[] }>(join(p.committed(r), 'eval.json')) ?? readJson<{ families: unknown[] }>(join(p.eval(r), 'eval.json'));
    return [runName(r), { model: relative(ROOT, p.model(r)), families: e?.families }];
  }));
  writeText(join(RESULTS, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
}

/** The data section: the annotations' yields, the arms' candidates and records, and arm (f)'s whole-corpus data. */
function dataSection(
  stats: AnnotationYield | null, kbStats: AnnotationYield | null, armStats: ArmStats | null, fullStats: AnnotationYield | null, fullArm: FullArm | null,
): string[] {
  const L: string[] = [];
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
  L.push(fullDataLine(fullStats, fullArm, armStats?.arms.a));
  L.push('');
  return L;
}

/** The overlap section: the eval set against every finetuning text (`final`), or against the plain inputs before the arms exist. */
function overlapSection(overlap: OverlapReport | null, final: boolean): string[] {
  const L: string[] = [];
  L.push('## Overlap of the eval set with every finetuning text', '');
  if (overlap) {
    L.push(final
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
  return L;
}

/** The eval set's families in order, and whether a family is one whose prompts need no call (no tool expected). */
function familiesOf(prompts: PhrasedPrompt[]) {
  const families = [...new Set(prompts.map((q) => q.family))];
  const noCallFamily = (f: string) => prompts.filter((q) => q.family === f).every((q) => !q.tool);
  return { families, noCallFamily };
}

/** Accuracy per family and per phrasing, the subject-length split and the call rates, over the finished arms. */
function accuracySection(arms: ArmKey[], byArm: ByArm, prompts: PhrasedPrompt[]): string[] {
  const L: string[] = [];
  const { families, noCallFamily } = familiesOf(prompts);
  const majority = (sel: typeof prompts) => {
    const counts = new Map<string, number>();
    for (const q of sel) for (const a of new Set(q.answers.map((x) => x.toLowerCase()))) counts.set(a, (counts.get(a) ?? 0) + 1);
    return sel.length === 0 || counts.size === 0 ? 0 : Math.max(...counts.values()) / sel.length;
  };
  L.push('## Accuracy per family, % (95 % interval clustered by prompt [low–high], cluster-robust Wilson from pipeline/eval/metrics.ts `clusteredWilson`; beside it the pooled Wilson interval that counts each seed\'s trial as a new prompt; per-seed values last)', '');
  if (arms.length === 0) L.push('No eval finished yet.');
  else {
    const head = ['family', 'n', 'majority', ...arms.map((a) => `(${a}) with tools`), ...arms.filter(isBaseline).map((a) => `(${a}) without tools`)];
    L.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
    const rowsFor = (label: string, keep: (t: TrialRecord) => boolean, sel: typeof prompts, noCall: boolean) => {
      const score = noCall ? (t: TrialRecord) => t.calls.length === 0 : (t: TrialRecord) => t.correct;
      const cells = arms.map((a) => show(cell(byArm.get(a)!.map((x) => x.trials.filter((t) => t.tools)), keep, score)));
      const base = arms.filter(isBaseline).map((a) =>
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
  return L;
}

/** The issue's "must show" comparisons, pooled over the seeds both arms have finished. */
function comparisonsSection(arms: ArmKey[], byArm: ByArm, prompts: PhrasedPrompt[]): string[] {
  const L: string[] = [];
  const { families, noCallFamily } = familiesOf(prompts);

  // The issue's "must show" comparisons, pooled over the seeds both arms have finished.
  if (arms.length > 0) {
    L.push('## Comparisons (over seeds; difference with a 95 % Newcombe interval from the two clustered intervals, each at its effective n)', '');
    const pooled = (a: ArmKey, tools: boolean, keep: (t: TrialRecord) => boolean): Cell | null =>
      byArm.has(a) ? cell(byArm.get(a)!.map((x) => x.trials.filter((t) => t.tools === tools)), keep, (t) => t.correct) : null;
    const diff = (x: Cell | null, y: Cell | null) => {
      if (!x || !y || x.n === 0 || y.n === 0) return 'not run yet';
      const { d, lo, hi } = clusteredDiff(x, y);
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
    L.push(`| the same on the base pretrained 10× longer: (a-pt10x) with tools vs (d-pt10x) without tools | capitals, Factbook cloze | ${diff(pooled('a-pt10x', true, realCaps), pooled('d-pt10x', false, realCaps))} |`);
    for (const f of families.filter((x) => !noCallFamily(x))) {
      L.push(`| (a) with tools vs (d) without tools | ${f} | ${diff(pooled('a', true, (t) => t.family === f), pooled('d', false, (t) => t.family === f))} |`);
    }
    L.push('');
  }
  return L;
}

/** Held-out loss per run against the control of the same seed, and the perplexity cost of (a) over seeds. */
function lossSection(runs: Run[], losses: Map<string, RunLoss>): string[] {
  const L: string[] = [];
  L.push(`## Held-out corpus loss without calls (nats/token, ≥ ${LOSS_TOKENS.toLocaleString('en-US')} tokens of held-out SOTU addresses and Factbook sections)`, '');
  if (losses.size === 0) L.push('No model scored yet.');
  else {
    L.push('| run | tokens | loss | − control (same seed), 95 % CI over windows |', '|---|---:|---:|---|');
    for (const r of runs) {
      const l = losses.get(runName(r));
      if (!l) continue;
      const c = losses.get(runName(controlOf(r)));
      const d = c && r.arm !== 'control' ? lossDiff(l.perWindow, c.perWindow) : null;
      L.push(`| ${runName(r)} | ${l.tokens} | ${l.meanNll.toFixed(4)} | ${d ? `${d.mean >= 0 ? '+' : ''}${d.mean.toFixed(4)} [${d.lo.toFixed(4)}, ${d.hi.toFixed(4)}]` : r.arm === 'control' ? '(control)' : 'control not run yet'} |`);
    }
    // Perplexity cost of (a) over seeds: the mean of the per-seed paired differences; interval over seeds (t, n − 1
    // degrees of freedom) when there are ≥ 2, else the window interval of the one seed. Target ≤ 0.05 nats.
    const cost = armLossCost('a', losses);
    if (cost) {
      const { mean: m, seeds } = cost;
      L.push('', `Perplexity cost of (a) vs the control over ${seeds} seed(s): ${m >= 0 ? '+' : ''}${m.toFixed(4)} nats/token ` +
        `[${cost.lo.toFixed(4)}, ${cost.hi.toFixed(4)}] (target ≤ 0.05).`);
    }
  }
  return L;
}

/** The Data section's line on arm (f): the whole-corpus annotation's yield and the arm's calls, against (a)'s. */
function fullDataLine(
  stats: AnnotationYield | null,
  arm: FullArm | null,
  armA: { records: number; calls: Record<string, number> } | undefined,
): string {
  if (!stats) return '- Whole-corpus annotation (arm f): not finished yet.';
  const kept = Object.entries(stats.tools).map(([t, s]) => `${t} ${s.kept}`).join(', ');
  const line = `- Whole corpus (arm f): ${stats.docsRead.toLocaleString('en-US')} documents (every non-held-out corpus document), ${stats.docsWithKeptCall} with a kept call; kept calls: ${kept}.`;
  if (!arm) return line;
  const total = (calls: Record<string, number>) => Object.values(calls).reduce((a, b) => a + b, 0);
  const ratio = armA ? ` — ${(total(arm.calls) / total(armA.calls)).toFixed(1)}× arm (a)'s ${total(armA.calls)} calls in ${(arm.records / armA.records).toFixed(1)}× its records` : '';
  return `${line} Arm (f): ${arm.records} records, calls ${Object.entries(arm.calls).map(([t, n]) => `${t} ${n}`).join(', ')} (${arm.heldOutCallsRemoved} calls naming a held-out subject removed)${ratio}.`;
}

/** Pretraining counters, as both trainers' train-record.json hold them (valLoss: the last validation loss, nats/token). */
type PretrainCounters = { step: number; tokensSeen: number; trainSeconds: number; valLoss?: number };

/**
 * How far the longer pretraining is, from its committed record; when done, its validation loss beside models/default's
 * (the same tokenizer, corpus split and validation documents: both made by `npm run train:model` with the same seed).
 */
function pretrainState(p: ReportPaths): string {
  const pretrained = readJson<PretrainCounters>(join(p.longBaseCommitted, 'train-record.json'));
  if (!pretrained) return 'not started';
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const counts = `${n(pretrained.tokensSeen)} tokens, ${n(pretrained.trainSeconds)} train-seconds`;
  if (pretrained.step < PRETRAIN.steps) return `${n(pretrained.step)} of ${n(PRETRAIN.steps)} steps, ${counts} so far`;
  const base = readJson<PretrainCounters>(join(ROOT, 'models/default/train-record.json'));
  const loss = (r: PretrainCounters | null) => (r?.valLoss === undefined ? '–' : r.valLoss.toFixed(2));
  return `done, ${n(pretrained.step)} steps, ${counts} (${(pretrained.trainSeconds / 3600).toFixed(1)} hours); validation loss ${loss(pretrained)} nats/token, ` +
    `against ${loss(base)} for models/default (${base ? `${n(base.step)} steps, ${n(base.tokensSeen)} tokens` : 'no record'})`;
}
