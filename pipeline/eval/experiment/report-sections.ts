/**
 * The report's newer sections (report.ts writes them in place): the eval set's overlap with models/default's
 * pretraining, the positive control, capitals by the subject's length in tokens, the limit runs, and results/loop.md
 * (the table the READMEs show). Each returns its lines; the cells and intervals are cells.ts's.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TrialRecord } from '../metrics.ts';
import { splitDocs } from '../../train/data.ts';
import type { EvalPrompt } from '../tasks.ts';
import { armKey, armLabel, cci, cell, ci, controlOf, isBaseline, lossDiff, ORDER, trials, type ArmKey, type ByArm, type ReportPaths } from './cells.ts';
import { corpus, encoder, readJsonl, FACTBOOK_TRAIN_CUT_FILE, PROMPTS_FILE } from './corpus-files.ts';
import { FACTBOOK_CLOZE } from './derived-sets.ts';
import { MAX_PROMPT_TOKENS } from './eval-sets.ts';
import { pretrainingOverlap, type PretrainingOverlap } from './overlap.ts';
import { LIMIT_RUNS, STEPS, reportedRuns, runName, type Run } from './plan.ts';


/** The line naming the runs a derived-set section still lacks, and the command whose lane runs them. */
const stillToRun = (missing: Run[]): string =>
  `Still to run (their models must be finetuned again on this machine; \`npm run experiment\`, or \`npm run experiment -- <lane>\` for a lane's runs, does it): ${missing.map(runName).join(', ')}.`;

/**
 * The eval set's overlap with models/default's pretraining: it saw the corpus's train split (pipeline/train/data.ts
 * splitDocs), measured, not assumed. Returns the section's lines and the numbers (kept in summary.json).
 */
export function pretrainingSection(prompts: EvalPrompt[]): { lines: string[]; pretraining: PretrainingOverlap } {
  const pretraining = pretrainingOverlap(prompts, splitDocs([...corpus.factbook(), ...corpus.sotu()]).train);
  const L = ['## Overlap of the eval set with the base model\'s pretraining (models/default)', ''];
  L.push(`models/default was pretrained on the corpus's train split (${pretraining.documents.toLocaleString('en-US')} documents; pipeline/train/data.ts \`splitDocs\`). ` +
    'The held-out list keeps eval documents out of every *finetuning* text, not out of pretraining:', '');
  L.push('| family | real-format prompts | their source document in pretraining | fact prompts | subject and answer together in a pretraining document |', '|---|---:|---:|---:|---:|');
  for (const f of pretraining.families) L.push(`| ${f.family} | ${f.realPrompts} | ${f.realPrompts ? f.realSourcesInPretraining : '–'} | ${f.factPrompts} | ${f.factPrompts ? f.factsSeen : '–'} |`);
  return { lines: L, pretraining };
}

/**
 * The positive control (issue 31 item 2): each run's model on the eval set's held-out capital subjects written in the
 * KB prose's own training templates, with and without tools (runs/<run>/positive-trials.jsonl). Rows appear for the
 * runs whose positive control has run; the rest are listed as still to run.
 */
export function positiveControlSection(p: ReportPaths): string[] {
  const L = ['## Positive control: held-out subjects in the training templates (capitals; % [95 % interval clustered by prompt])', ''];
  L.push('The prompts are "The capital of X is" and "X is a country. The capital of X is" (tasks.ts trainDocs\'s templates) for the ' +
    'held-out subjects of the capitals family (derived-sets.ts positiveControlPrompts, positive-control.jsonl). A model that learned to call ' +
    'in its training format scores here; the gap to the families above is what it fails to carry to new phrasings.', '');
  const { groups, missing } = derivedRuns(p, 'positive-trials.jsonl');
  if (groups.length === 0) return [...L, 'Not run yet.'];
  L.push('| run | seeds | prompts | with tools | without tools | calls made (with tools) |', '|---|---|---:|---|---|---|');
  for (const { label, runs } of groups) {
    const trialsOf = runs.map((r) => r.derived);
    const withTools = cell(trialsOf.map((ts) => ts.filter((t) => t.tools)), () => true, (t) => t.correct);
    const without = cell(trialsOf.map((ts) => ts.filter((t) => !t.tools)), () => true, (t) => t.correct);
    const called = cell(trialsOf.map((ts) => ts.filter((t) => t.tools)), () => true, (t) => t.calls.length > 0);
    L.push(`| ${label} | ${runs.map((r) => r.run.seed).join(', ')} | ${withTools.byPrompt.size} | ${cci(withTools, false)} | ${cci(without, false)} | ${cci(called, false)} |`);
  }
  if (missing.length) L.push('', stillToRun(missing));
  return L;
}

/**
 * The runs whose derived-set trials (results/runs/<run>/<file>, run-steps.ts DERIVED_SETS) are committed, grouped as the
 * report's rows: the grid runs by arm, each limit run alone; and the runs still missing them.
 */
function derivedRuns(p: ReportPaths, file: string): { groups: { label: string; runs: { run: Run; derived: TrialRecord[] }[] }[]; missing: Run[] } {
  const all = [...reportedRuns(), ...LIMIT_RUNS];
  const read = (r: Run) => {
    const f = join(p.committed(r), file);
    return existsSync(f) ? readJsonl<TrialRecord>(f) : null;
  };
  const groups = new Map<string, { run: Run; derived: TrialRecord[] }[]>();
  const missing: Run[] = [];
  for (const r of all) {
    const derived = read(r);
    if (!derived) {
      missing.push(r);
      continue;
    }
    const label = r.steps ? runName(r) : `(${armKey(r)}) ${armLabel(armKey(r))}`;
    groups.set(label, [...(groups.get(label) ?? []), { run: r, derived }]);
  }
  return { groups: [...groups].map(([label, runs]) => ({ label, runs })), missing };
}

/**
 * The Factbook cloze with the training-format cut (issue 31 item 1; derived-sets.ts factbookTrainCut, the "Country
 * name:" line kept) beside the eval set's own cut (lines dropped from the top), on the same runs: accuracy with
 * tools, the new cut without tools, and how often the call asks about the section's own country.
 */
export function factbookCutSection(p: ReportPaths): string[] {
  const L = ['## Capitals, Factbook cloze: the training-format cut beside the old cut (% [95 % interval clustered by prompt])', ''];
  const newPrompts = readJsonl<EvalPrompt>(FACTBOOK_TRAIN_CUT_FILE);
  const subjectOf = new Map(newPrompts.map((q) => [q.id, q.subject!]));
  const oldSubjectOf = new Map(readJsonl<EvalPrompt>(PROMPTS_FILE).filter((q) => q.phrasing === FACTBOOK_CLOZE).map((q) => [q.id, q.subject!]));
  L.push(`The old cut ("factbook-cloze" in prompts.jsonl) keeps the section's header and drops whole lines from the top until the prompt fits ${MAX_PROMPT_TOKENS} ` +
    'tokens, which drops the "Country name:" line that every finetuning record with a Factbook capital call holds. The training-format cut ' +
    `(factbook-train-cut.jsonl, ${newPrompts.length} prompts from the same sections) keeps that line, shortened to its conventional forms where needed, ` +
    'and drops the lines between it and the capital instead. "Asks about the country": calls (with tools) whose question names the section\'s country.', '');
  const { groups, missing } = derivedRuns(p, 'factbook-train-cut-trials.jsonl');
  if (groups.length === 0) return [...L, 'Not run yet.'];
  const asks = (subjects: Map<string, string>) => (t: TrialRecord) => t.calls.some((c) => c.input.includes(subjects.get(t.id) ?? '\u0000'));
  const called = (t: TrialRecord) => t.calls.length > 0;
  L.push('| run | seeds | old cut, with tools | training cut, with tools | training cut, without tools | calls: old cut | calls: training cut | asks about the country: old cut | asks about the country: training cut |',
    '|---|---|---|---|---|---|---|---|---|');
  for (const { label, runs } of groups) {
    const old = runs.map((r) => trials(p, r.run)!.filter((t) => t.tools && t.phrasing === FACTBOOK_CLOZE));
    const cut = runs.map((r) => r.derived.filter((t) => t.tools));
    const cutWithout = runs.map((r) => r.derived.filter((t) => !t.tools));
    const all = () => true;
    const cells = [
      cell(old, all, (t) => t.correct), cell(cut, all, (t) => t.correct), cell(cutWithout, all, (t) => t.correct),
      cell(old, all, called), cell(cut, all, called), cell(old, all, asks(oldSubjectOf)), cell(cut, all, asks(subjectOf)),
    ];
    L.push(`| ${label} | ${runs.map((r) => r.run.seed).join(', ')} | ${cells.map((c) => cci(c, false)).join(' | ')} |`);
  }
  if (missing.length) L.push('', stillToRun(missing));
  return L;
}

/** Capital prompt id → tokens in the subject's name (with its leading space) in models/default's vocabulary. */
export function subjectTokens(prompts: { id: string; family: string; subject?: string }[]): Map<string, number> {
  const encode = encoder();
  return new Map(prompts.filter((q) => q.family === 'capitals' && q.subject).map((q) => [q.id, encode(` ${q.subject}`).length]));
}

/** The 1,024-token vocabulary spells every subject in ≥ 3 pieces; the bins split the 151 capital prompts into thirds. */
export const SUBJECT_TOKEN_BINS: { label: string; has: (n: number) => boolean }[] = [
  { label: '3–4 tokens', has: (n) => n <= 4 },
  { label: '5 tokens', has: (n) => n === 5 },
  { label: '6 or more', has: (n) => n >= 6 },
];

/**
 * The vocabulary check (issue 31 item 5): capital prompts split by how many tokens the subject's name takes in the
 * 1,024-token vocabulary (a short name in few pieces, " Equatorial Guinea" in many), accuracy with tools per split,
 * clustered by prompt. If a long name is what breaks the model, the few-token split should score higher.
 */
export function subjectTokensSection(arms: ArmKey[], byArm: ByArm, prompts: { id: string; family: string; subject?: string }[]): string[] {
  const tokens = subjectTokens(prompts);
  const bins = SUBJECT_TOKEN_BINS;
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
export function limitsSection(p: ReportPaths, losses: Map<string, { meanNll: number; perWindow: number[] }>): string[] {
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
export function loopTable(p: ReportPaths, byArm: ByArm, losses: Map<string, { meanNll: number; perWindow: number[] }>): string[] {
  const cols: { label: string; keep: (t: TrialRecord) => boolean; noCall?: boolean }[] = [
    { label: 'capitals', keep: (t) => t.family === 'capitals' },
    { label: 'capitals, Factbook cloze', keep: (t) => t.family === 'capitals' && t.real === true },
    { label: 'arithmetic', keep: (t) => t.family === 'arithmetic' },
    { label: 'dates (today)', keep: (t) => t.family === 'dates' },
    { label: 'no call where none helps', keep: (t) => t.family === 'relevance' || t.family === 'dates-stated', noCall: true },
  ];
  const runsOf = (arm: ArmKey) => byArm.get(arm) ?? [];
  // Every arm has a row, "not run yet" until a seed of it has finished (the data-volume and the longer-base arms run
  // after the grid).
  const rows: { name: string; runs: { run: Run; trials: TrialRecord[] }[]; tools: boolean }[] = [
    ...ORDER.map((a) => ({ name: `(${a}) ${armLabel(a)}`, runs: runsOf(a), tools: true })),
    ...ORDER.filter((a) => isBaseline(a) && byArm.has(a)).map((a) => ({ name: `(${a}) without tools`, runs: runsOf(a), tools: false })),
    ...LIMIT_RUNS.flatMap((r) => {
      const t = trials(p, r);
      return t ? [{ name: `(${r.arm}) ${r.steps} steps`, runs: [{ run: r, trials: t }], tools: true }] : [];
    }),
  ];
  const L = [`| arm (${STEPS} steps unless said) | seeds | ${cols.map((c) => c.label).join(' | ')} | held-out loss − control |`, `|---|---|${cols.map(() => '---').join('|')}|---|`];
  for (const row of rows) {
    if (row.runs.length === 0) {
      L.push(`| ${row.name} | not run yet | ${cols.map(() => '–').join(' | ')} | – |`);
      continue;
    }
    const cells = cols.map((c) => {
      if (c.noCall && !row.tools) return '–';
      const score = c.noCall ? (t: TrialRecord) => t.calls.length === 0 : (t: TrialRecord) => t.correct;
      const x = cell(row.runs.map((r) => r.trials.filter((t) => t.tools === row.tools)), c.keep, score);
      return x.n ? cci(x, false) : '–';
    });
    const diffs = row.tools ? row.runs.flatMap((r) => {
      const l = losses.get(runName(r.run));
      const c = losses.get(runName(controlOf(r.run)));
      return l && c && r.run.arm !== 'control' ? [lossDiff(l.perWindow, c.perWindow).mean] : [];
    }) : [];
    const loss = diffs.length ? `${diffs.reduce((a, b) => a + b, 0) / diffs.length >= 0 ? '+' : ''}${(diffs.reduce((a, b) => a + b, 0) / diffs.length).toFixed(3)}` : '–';
    L.push(`| ${row.name} | ${row.runs.map((r) => r.run.seed).join(', ')} | ${cells.join(' | ')} | ${loss} |`);
  }
  return L;
}

