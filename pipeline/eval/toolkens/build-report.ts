/**
 * Issue 29 item 4, issue 47 item 3: toolkens on the frozen base model vs the finetuned arms and vs rules that use no
 * model, on the experiment's held-out eval set (pipeline/eval/experiment/prompts.jsonl, 746 prompts, 6 families),
 * greedy, one call per prompt, every row scored alike (scoring.ts: the tool's result counted as the answer for
 * all). The toolken bias is chosen on the dev split (a third of the prompts, by subject); every row is reported
 * on the test split.
 *
 *   npx tsx pipeline/eval/toolkens/report.ts          rewrite results/toolkens.json, toolkens.md, toolkens-verdict.md (report.ts: the
 *                                                     command; this file builds the report, markdown.ts writes it)
 *
 * Reads the toolkens runs (pipeline/eval/toolkens/runs.sh → out/toolkens/: the files' metadata and each eval's
 * trials.jsonl; the per-prompt outcomes are kept in results/toolkens-trials.json so the report can be remade without
 * out/), the no-model outcomes (no-model.ts → results/toolkens-no-model.json) and the finetuned arms' committed
 * trials (pipeline/eval/experiment/results/runs/{a,e}-s*). Intervals: 95 % percentile bootstrap over prompts
 * (2,000 resamples, seeded), each resampled prompt bringing all its seeds' (or draws') trials.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeToolkens } from '../../core/toolkens/file.ts';
import { TOOL_NAMES } from '../../core/tools/registry.ts';
import { answerFound } from '../metrics.ts';
import { DRAWS, inlineResults, pickAnswers, splitOf, type Pick } from './scoring.ts';
import { clusteredShare, meanDifference, RESAMPLES } from './bootstrap.ts';

const ROOT = join(import.meta.dirname, '../../..');
const OUT = process.env.TOOLKENS_OUT ?? join(ROOT, 'out/toolkens');
export const RESULTS = join(ROOT, 'pipeline/eval/results');
const TRIALS_FILE = join(RESULTS, 'toolkens-trials.json');
const RUNS = join(ROOT, 'pipeline/eval/experiment/results/runs');
const PROMPTS = join(ROOT, 'pipeline/eval/experiment/prompts.jsonl');
const NO_CALL = ['dates-stated', 'relevance'];
const FAMILIES = ['capitals', 'elements', 'arithmetic', 'dates', ...NO_CALL];
const NO_MODEL_FILE = join(RESULTS, 'toolkens-no-model.json');

/** One prompt's outcome in one run: correct, and the tool of its first call (null: no call) and whether it returned. */
interface Outcome {
  correct: boolean;
  tool: string | null;
  ran: boolean;
}

interface Config {
  name: string;
  label: string;
  /** run name (seed) → prompt id → outcome */
  runs: Record<string, Record<string, Outcome>>;
  cost: string;
}

interface Prompt {
  id: string;
  family: string;
  tool?: string;
  subject?: string;
  answers: string[];
}

const readJsonl = <T>(file: string): T[] => readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as T);

/** A run's outcomes, the tool's results counted as written where the calls stood (scoring.ts). */
function outcomes(trialsFile: string, answers: ReadonlyMap<string, readonly string[]>): Record<string, Outcome> {
  const out: Record<string, Outcome> = {};
  for (const t of readJsonl<{ id: string; tools: boolean; text: string; calls: { tool: string; result?: string }[] }>(trialsFile)) {
    if (!t.tools) continue;
    const gold = answers.get(t.id) ?? [];
    out[t.id] = { correct: gold.length > 0 && answerFound(inlineResults(t.text), gold), tool: t.calls[0]?.tool ?? null, ran: t.calls.some((c) => c.result !== undefined) };
  }
  return out;
}

/** Tool names ↔ one-letter codes of the committed outcome strings ("-": no call). */
// The committed strings were written with the registry's four built-in tools in its order → C, Q, D, T.
const CODES: Record<string, string> = Object.fromEntries(TOOL_NAMES.slice(0, 4).map((name, i) => [name, 'CQDT'[i]]));
const NAMES = Object.fromEntries(Object.entries(CODES).map(([k, v]) => [v, k]));

/**
 * The toolkens runs' outcomes: from out/toolkens when present (and then saved), else from the committed file, which
 * holds per run one string of 3 characters per prompt in prompts.jsonl order: correct (1/0), the first call's tool
 * (C, Q, D, T, ? another, - none), a call returned a result (1/0); "..." for a prompt the run did not have.
 */
function toolkenRuns(prompts: readonly Prompt[], answers: ReadonlyMap<string, readonly string[]>): Record<string, Record<string, Outcome>> {
  const saved = (existsSync(TRIALS_FILE) ? JSON.parse(readFileSync(TRIALS_FILE, 'utf8')) : { runs: {} }) as { runs: Record<string, string> };
  const runs: Record<string, Record<string, Outcome>> = {};
  for (const [name, code] of Object.entries(saved.runs)) {
    runs[name] = {};
    prompts.forEach((p, i) => {
      const c = code.slice(3 * i, 3 * i + 3);
      if (c !== '...') runs[name][p.id] = { correct: c[0] === '1', tool: c[1] === '-' ? null : NAMES[c[1]] ?? '?', ran: c[2] === '1' };
    });
  }
  const evalDir = join(OUT, 'eval');
  for (const name of existsSync(evalDir) ? readdirSync(evalDir).sort() : []) {
    const file = join(evalDir, name, 'trials.jsonl');
    if (!existsSync(file)) continue;
    runs[name] = outcomes(file, answers);
    saved.runs[name] = prompts.map((p) => {
      const o = runs[name][p.id];
      return o ? `${o.correct ? 1 : 0}${o.tool === null ? '-' : CODES[o.tool] ?? '?'}${o.ran ? 1 : 0}` : '...';
    }).join('');
  }
  const costs = (saved as { costs?: unknown }).costs;
  writeFileSync(TRIALS_FILE, JSON.stringify({ format: 'per run: 3 characters per prompt of prompts.jsonl — correct, first tool (C Q D T ? -), ran', runs: saved.runs, costs }, null, 1) + '\n');
  return runs;
}

/**
 * Mean CPU seconds (hidden states + training) of the toolkens files of `data` (a / b), and their seeds: from the
 * files' metadata in out/toolkens when they are there (and then saved), else from the committed file.
 */
function toolkenCost(data: string): { seconds: number | null; seeds: number } {
  const saved = JSON.parse(readFileSync(TRIALS_FILE, 'utf8')) as { costs?: Record<string, { seconds: number | null; seeds: number }> };
  const costs: number[] = [];
  for (const s of [1, 2, 3]) {
    const f = join(OUT, `tk-${data}-s${s}.safetensors`);
    if (!existsSync(f)) continue;
    const c = JSON.parse(decodeToolkens(new Uint8Array(readFileSync(f))).meta.cpuSeconds) as { features: number; train: number };
    costs.push(c.features + c.train);
  }
  if (costs.length === 0) return saved.costs?.[data] ?? { seconds: null, seeds: 0 };
  const cost = { seconds: costs.reduce((a, b) => a + b, 0) / costs.length, seeds: costs.length };
  writeFileSync(TRIALS_FILE, JSON.stringify({ ...saved, costs: { ...saved.costs, [data]: cost } }, null, 1) + '\n');
  return cost;
}

/** Share of `pick`ed trials satisfying `ok`, with a bootstrap interval over prompts. */
function share(ids: readonly string[], runs: readonly Record<string, Outcome>[], ok: (o: Outcome) => boolean | null, seed: number) {
  const per = ids.map((id) => {
    let k = 0, n = 0;
    for (const r of runs) {
      const o = r[id];
      if (!o) continue;
      const v = ok(o);
      if (v === null) continue;
      n++;
      if (v) k++;
    }
    return { k, n };
  }).filter((c) => c.n > 0);
  return clusteredShare(per, seed);
}

/** Paired bootstrap of (x − y) no-call rates over the prompts both configs ran. */
function pairedDifference(ids: readonly string[], x: readonly Record<string, Outcome>[], y: readonly Record<string, Outcome>[]) {
  const rate = (runs: readonly Record<string, Outcome>[], id: string) => {
    const os = runs.map((r) => r[id]).filter(Boolean);
    return os.length ? os.filter((o) => o.tool === null).length / os.length : NaN;
  };
  return meanDifference(ids.map((id) => rate(x, id) - rate(y, id)).filter((d) => Number.isFinite(d)), 29);
}

function finetuned(arm: string, answers: ReadonlyMap<string, readonly string[]>): Config {
  const runs: Config['runs'] = {};
  let seconds = 0, n = 0;
  for (const s of [1, 2, 3]) {
    const dir = join(RUNS, `${arm}-s${s}`);
    if (!existsSync(join(dir, 'trials.jsonl'))) continue;
    runs[`${arm}-s${s}`] = outcomes(join(dir, 'trials.jsonl'), answers);
    const rec = JSON.parse(readFileSync(join(dir, 'train-record.json'), 'utf8')) as { trainSeconds?: number };
    if (typeof rec.trainSeconds === 'number') [seconds, n] = [seconds + rec.trainSeconds, n + 1];
  }
  return { name: `finetuned-${arm}`, label: `finetuned (${arm}) — whole model, 120 steps (its calls' results counted)`, runs, cost: n ? `${(seconds / n).toFixed(0)} s wall (train-record.json trainSeconds; ≈ 4.2 CPU-s/step × 120 by the experiment's sizing)` : '–' };
}

/** The no-model outcomes (no-model.ts): the rules at each prompt's end, and the constrained runs' picks. */
interface NoModel {
  firstTool: string[];
  firstRight: string[];
  labelledRight: string[];
  picks: Record<string, string[]>;
}

/** The rules as runs: no model; a rule's text is its call's result. */
function ruleConfigs(prompts: readonly Prompt[], nm: NoModel): Config[] {
  const runsOf = (draws: number, outcome: (p: Prompt, i: number, draw: number) => Outcome) =>
    Object.fromEntries(Array.from({ length: draws }, (_, d) => [`draw-${d}`, Object.fromEntries(prompts.map((p, i) => [p.id, outcome(p, i, d)]))]));
  const firstTool = (i: number) => nm.firstTool[i] || null;
  const rule = (pick: Pick) => (p: Prompt, i: number, d: number): Outcome =>
    ({ correct: pickAnswers(nm.firstRight[i], pick, p.id, d), tool: firstTool(i), ran: /[01]/.test(nm.firstRight[i]) });
  const labelled = (pick: Pick) => (p: Prompt, i: number): Outcome =>
    ({ correct: pickAnswers(nm.labelledRight[i], pick, p.id), tool: nm.labelledRight[i] ? p.tool! : null, ran: /[01]/.test(nm.labelledRight[i]) });
  return [
    { name: 'rule-first', label: 'rule, no model: the first tool whose proposer offers a call, its **first** question', runs: runsOf(1, rule('first')), cost: '0' },
    { name: 'rule-random', label: `rule, no model: the same tool, a **random** one of its questions (${DRAWS} seeded draws)`, runs: runsOf(DRAWS, rule('random')), cost: '0' },
    { name: 'rule-labelled-first', label: 'rule told the fitting tool (the label): its first question', runs: runsOf(1, labelled('first')), cost: '0' },
    { name: 'oracle', label: 'oracle: any of the fitting tool\'s questions that answers', runs: runsOf(1, labelled('oracle')), cost: '0' },
  ];
}

/** Per prompt (pooled over runs and draws): how often the pick's result answers, among the constrained calls that had proposals. */
function pickTable(prompts: readonly Prompt[], ids: ReadonlySet<string>, picks: Record<string, string[]>, seed: number) {
  const runs = Object.keys(picks).filter((r) => /^tk-a-constrained-s\d$/.test(r)); // bias 0, the untuned default: where toolkens fire
  const byId = new Map(prompts.map((p) => [p.id, p]));
  const picked = (how: 'model' | Pick) => runs.map((r) => Object.fromEntries(prompts.flatMap((p, i) => {
    const entry = picks[r][i];
    if (!ids.has(p.id) || !entry) return [];
    const [at, answers] = [Number(entry.split(':')[0]), entry.split(':')[1]];
    const n = how === 'random' ? DRAWS : 1;
    const k = Array.from({ length: n }, (_, d) => (how === 'model' ? answers[at] === '1' : pickAnswers(answers, how, `${p.id}:${r}`, d))).filter(Boolean).length;
    return [[p.id, { share: k / n }]];
  })));
  const shareOf = (how: 'model' | Pick, family: string | null, s: number) => {
    // "all": the tool families' prompts (a call on a no-call prompt has no answer to find).
    const keep = (p: Prompt) => (family === null ? p.tool !== undefined : p.family === family);
    const per = picked(how).map((run) => Object.fromEntries(Object.entries(run).filter(([id]) => keep(byId.get(id)!))));
    return meanShare(per, s);
  };
  const families = ['capitals', 'elements', 'arithmetic', null];
  const rows = (['model', 'first', 'random', 'oracle'] as const).map((how, hi) => ({ pick: how, families: families.map((f, fi) => shareOf(how, f, seed + 10 * hi + fi)) }));
  const onToolPrompts = (how: 'model' | Pick) => picked(how).map((run) => Object.fromEntries(Object.entries(run).filter(([id]) => byId.get(id)!.tool !== undefined)));
  return { runs, rows, difference: pairedPickDifference(onToolPrompts('model'), onToolPrompts('first')) };
}

type Shared = { share: number };
/** Mean per-prompt share with a bootstrap interval over prompts. */
function meanShare(runs: readonly Record<string, Shared>[], seed: number) {
  const ids = [...new Set(runs.flatMap((r) => Object.keys(r)))];
  const per = ids.map((id) => { const v = runs.map((r) => r[id]).filter(Boolean); return { k: v.reduce((a, b) => a + b.share, 0), n: v.length }; });
  return clusteredShare(per, seed);
}

/** Paired bootstrap of model − first over the prompts with a pick (each prompt's mean over runs). */
function pairedPickDifference(model: readonly Record<string, Shared>[], first: readonly Record<string, Shared>[]) {
  const ids = [...new Set(model.flatMap((r) => Object.keys(r)))];
  const mean = (runs: readonly Record<string, Shared>[], id: string) => { const v = runs.map((r) => r[id]).filter(Boolean); return v.reduce((a, b) => a + b.share, 0) / v.length; };
  return meanDifference(ids.map((id) => mean(model, id) - mean(first, id)), 47);
}

/** The bias tags of the runs ("" = 0), their value, and the constrained seeds each has. */
function biasTags(tk: Record<string, unknown>): { tag: string; bias: number }[] {
  const tags = [...new Set(Object.keys(tk).map((n) => /^(b[m0-9.]+)-/.exec(n)?.[1]).filter((t): t is string => !!t))].sort();
  return [{ tag: '', bias: 0 }, ...tags.map((t) => ({ tag: `${t}-`, bias: Number(t.slice(1).replace('m', '-')) }))];
}

export function buildReport() {
  const prompts = readJsonl<Prompt>(PROMPTS);
  const answers = new Map(prompts.map((p) => [p.id, p.answers]));
  const tk = toolkenRuns(prompts, answers);
  const nm = JSON.parse(readFileSync(NO_MODEL_FILE, 'utf8')) as NoModel;
  const pick = (prefix: string) => Object.fromEntries(Object.entries(tk).filter(([n]) => n.startsWith(prefix)));
  const costA = toolkenCost('a');
  const costB = toolkenCost('b');
  const cpu = (c: { seconds: number | null }) => (c.seconds === null ? '–' : `${c.seconds.toFixed(1)} CPU-s (hidden states + W_τ training, mean over seeds)`);
  const inSplit = (split: 'dev' | 'test') => new Set(prompts.filter((p) => splitOf(p) === split).map((p) => p.id));
  const dev = inSplit('dev');
  const test = inSplit('test');
  const byFamily = (f: string, ids: ReadonlySet<string>) => prompts.filter((p) => p.family === f && ids.has(p.id)).map((p) => p.id);
  const noCallOf = (ids: ReadonlySet<string>) => NO_CALL.flatMap((f) => byFamily(f, ids));

  // The bias, chosen on dev (constrained mode, biases with 3 seeds): the mean over the six families of the tool
  // families' accuracy and the no-call families' no-call rate — each family weighs the same.
  const devScore = (runs: Record<string, Outcome>[]) => FAMILIES.reduce((sum, f, fi) => sum + (share(byFamily(f, dev), runs,
    (o) => (NO_CALL.includes(f) ? o.tool === null : o.correct), 800 + fi)?.p ?? 0), 0) / FAMILIES.length;
  const biasChoice = biasTags(tk).map(({ tag, bias }) => ({ bias, tag, runs: Object.values(pick(`${tag}tk-a-constrained-`)) }))
    .filter((b) => b.runs.length === 3).map((b) => ({ bias: b.bias, tag: b.tag, dev: devScore(b.runs) }));
  const chosen = biasChoice.reduce((a, b) => (b.dev > a.dev ? b : a));

  const configs: Config[] = [
    { name: 'base', label: 'base (models/default, " [" top-10 rule, no training)', runs: pick('base'), cost: '0' },
    { name: 'toolkens-free', label: 'base + toolkens: free arguments, bias 0 (untuned)', runs: pick('tk-a-free-'), cost: cpu(costA) },
    { name: 'toolkens-constrained', label: 'base + toolkens: *constrained* arguments (the model picks a proposer call), bias 0 (untuned)', runs: pick('tk-a-constrained-'), cost: cpu(costA) },
    ...(chosen.bias === 0 ? [] : [
      { name: 'toolkens-free-dev-bias', label: `base + toolkens: free arguments, bias ${chosen.bias} (chosen on dev)`, runs: pick(`${chosen.tag}tk-a-free-`), cost: cpu(costA) },
      { name: 'toolkens-constrained-dev-bias', label: `base + toolkens: *constrained* arguments, bias ${chosen.bias} (chosen on dev)`, runs: pick(`${chosen.tag}tk-a-constrained-`), cost: cpu(costA) },
    ]),
    ...ruleConfigs(prompts, nm),
    finetuned('a', answers),
    finetuned('e', answers),
  ];
  const needTool = prompts.filter((p) => p.tool && test.has(p.id));
  const toolOf = new Map(needTool.map((p) => [p.id, p.tool!]));
  const toolFamilies = FAMILIES.filter((f) => !NO_CALL.includes(f));
  const rows = configs.map((c, ci) => {
    const runs = Object.values(c.runs);
    const families = Object.fromEntries(toolFamilies.map((f, fi) => [f, share(byFamily(f, test), runs, (o) => o.correct, 100 * ci + fi)]));
    const callsNoCall = share(noCallOf(test), runs, (o) => o.tool !== null, 100 * ci + 50);
    const ids = needTool.map((p) => p.id);
    const callRate = share(ids, runs, (o) => o.tool !== null, 100 * ci + 60);
    const rightTool = share(ids, runs.map((r) => Object.fromEntries(Object.entries(r).map(([id, o]) => [id, { ...o, correct: o.tool === toolOf.get(id) }]))),
      (o) => (o.tool === null ? null : o.correct), 100 * ci + 70);
    return { name: c.name, label: c.label, seeds: Object.keys(c.runs), cost: c.cost, families, callsNoCall, callRate, rightTool };
  });
  const noCallIds = NO_CALL.flatMap((f) => byFamily(f, new Set(prompts.map((p) => p.id))));
  const keptVsAll = {
    kept: share(noCallIds, Object.values(pick('tk-a-free-')), (o) => o.tool === null, 901),
    unfiltered: share(noCallIds, Object.values(pick('tk-b-free-')), (o) => o.tool === null, 902),
    difference: pairedDifference(noCallIds, Object.values(pick('tk-a-free-')), Object.values(pick('tk-b-free-'))),
    seeds: { kept: Object.keys(pick('tk-a-free-')), unfiltered: Object.keys(pick('tk-b-free-')) },
    cost: { kept: costA, unfiltered: costB },
  };
  // The bias as a sensitivity curve on the test split (the choice above was made on dev).
  const bias = biasTags(tk).flatMap(({ tag, bias: value }, bi) => ['free', 'constrained'].map((mode, mi) => {
    const runs = Object.values(pick(`${tag}tk-a-${mode}-`));
    const seed = 500 + 10 * bi + mi;
    return {
      bias: value, mode, seeds: runs.length,
      families: Object.fromEntries(toolFamilies.map((f) => [f, share(byFamily(f, test), runs, (o) => o.correct, seed)])),
      callsNoCall: share(noCallOf(test), runs, (o) => o.tool !== null, seed + 1),
      callRate: share(needTool.map((p) => p.id), runs, (o) => o.tool !== null, seed + 3),
    };
  })).filter((b) => b.seeds > 0);
  const picks = pickTable(prompts, test, nm.picks, 700);
  return { prompts: prompts.length, split: { dev: dev.size, test: test.size }, families: toolFamilies, noCall: NO_CALL, biasChoice, chosenBias: chosen.bias, rows, picks, keptVsAll, bias, resamples: RESAMPLES };
}

export type Report = ReturnType<typeof buildReport>;
