/**
 * Issue 29 item 4: toolkens on the frozen base model vs the finetuned arms, on the experiment's held-out eval set
 * (pipeline/eval/experiment/prompts.jsonl, 746 prompts, 6 families), greedy, one call per prompt.
 *
 *   npx tsx pipeline/eval/toolkens/report.ts          rewrite results/toolkens.json and results/toolkens.md
 *
 * Reads the toolkens runs (pipeline/eval/toolkens/runs.sh → out/toolkens/: the files' metadata and each eval's
 * trials.jsonl; the per-prompt outcomes are kept in results/toolkens-trials.json so the report can be remade without
 * out/) and the finetuned arms' committed trials (pipeline/eval/experiment/results/runs/{a,e}-s*). Intervals: 95 %
 * percentile bootstrap over prompts (2,000 resamples, seeded), each resampled prompt bringing all its seeds' trials.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from '../../core/random.ts';
import { decodeToolkens } from '../../core/toolkens/file.ts';
import { TOOL_NAMES } from '../../core/tools/registry.ts';

const ROOT = join(import.meta.dirname, '../../..');
const OUT = process.env.TOOLKENS_OUT ?? join(ROOT, 'out/toolkens');
const RESULTS = join(ROOT, 'pipeline/eval/results');
const TRIALS_FILE = join(RESULTS, 'toolkens-trials.json');
const RUNS = join(ROOT, 'pipeline/eval/experiment/results/runs');
const PROMPTS = join(ROOT, 'pipeline/eval/experiment/prompts.jsonl');
const NO_CALL = ['dates-stated', 'relevance'];
const FAMILIES = ['capitals', 'elements', 'arithmetic', 'dates', ...NO_CALL];
const RESAMPLES = 2000;

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
}

const readJsonl = <T>(file: string): T[] => readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as T);

function outcomes(trialsFile: string): Record<string, Outcome> {
  const out: Record<string, Outcome> = {};
  for (const t of readJsonl<{ id: string; tools: boolean; correct: boolean; calls: { tool: string; result?: string }[] }>(trialsFile)) {
    if (!t.tools) continue;
    out[t.id] = { correct: t.correct, tool: t.calls[0]?.tool ?? null, ran: t.calls.some((c) => c.result !== undefined) };
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
function toolkenRuns(prompts: readonly Prompt[]): Record<string, Record<string, Outcome>> {
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
    runs[name] = outcomes(file);
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
  const total = (cs: typeof per) => {
    const n = cs.reduce((s, c) => s + c.n, 0);
    return n ? cs.reduce((s, c) => s + c.k, 0) / n : NaN;
  };
  if (per.length === 0) return null;
  const rng = mulberry32(seed);
  const stats: number[] = [];
  for (let b = 0; b < RESAMPLES; b++) stats.push(total(per.map(() => per[Math.floor(rng.next() * per.length)])));
  stats.sort((a, b) => a - b);
  return { p: total(per), lo: stats[Math.floor(0.025 * RESAMPLES)], hi: stats[Math.ceil(0.975 * RESAMPLES) - 1], prompts: per.length, trials: per.reduce((s, c) => s + c.n, 0) };
}

/** Paired bootstrap of (x − y) no-call rates over the prompts both configs ran. */
function pairedDifference(ids: readonly string[], x: readonly Record<string, Outcome>[], y: readonly Record<string, Outcome>[]) {
  const rate = (runs: readonly Record<string, Outcome>[], id: string) => {
    const os = runs.map((r) => r[id]).filter(Boolean);
    return os.length ? os.filter((o) => o.tool === null).length / os.length : NaN;
  };
  const diffs = ids.map((id) => rate(x, id) - rate(y, id)).filter((d) => Number.isFinite(d));
  if (diffs.length === 0) return null;
  const mean = (ds: number[]) => ds.reduce((a, b) => a + b, 0) / ds.length;
  const rng = mulberry32(29);
  const stats = Array.from({ length: RESAMPLES }, () => mean(diffs.map(() => diffs[Math.floor(rng.next() * diffs.length)]))).sort((a, b) => a - b);
  return { diff: mean(diffs), lo: stats[Math.floor(0.025 * RESAMPLES)], hi: stats[Math.ceil(0.975 * RESAMPLES) - 1], prompts: diffs.length };
}

function finetuned(arm: string): Config {
  const runs: Config['runs'] = {};
  let seconds = 0, n = 0;
  for (const s of [1, 2, 3]) {
    const dir = join(RUNS, `${arm}-s${s}`);
    if (!existsSync(join(dir, 'trials.jsonl'))) continue;
    runs[`${arm}-s${s}`] = outcomes(join(dir, 'trials.jsonl'));
    const rec = JSON.parse(readFileSync(join(dir, 'train-record.json'), 'utf8')) as { trainSeconds?: number };
    if (typeof rec.trainSeconds === 'number') [seconds, n] = [seconds + rec.trainSeconds, n + 1];
  }
  return { name: `finetuned-${arm}`, label: `finetuned (${arm}) — whole model, 120 steps`, runs, cost: n ? `${(seconds / n).toFixed(0)} s wall (train-record.json trainSeconds; ≈ 4.2 CPU-s/step × 120 by the experiment's sizing)` : '–' };
}

export function buildReport() {
  const prompts = readJsonl<Prompt>(PROMPTS);
  const tk = toolkenRuns(prompts);
  const pick = (prefix: string) => Object.fromEntries(Object.entries(tk).filter(([n]) => n.startsWith(prefix)));
  const costA = toolkenCost('a');
  const costB = toolkenCost('b');
  const cpu = (c: { seconds: number | null }) => (c.seconds === null ? '–' : `${c.seconds.toFixed(1)} CPU-s (hidden states + W_τ training, mean over seeds)`);
  const configs: Config[] = [
    { name: 'base', label: 'base (models/default, " [" top-10 rule, no training)', runs: pick('base'), cost: '0' },
    { name: 'toolkens-free', label: 'base + toolkens (a): free arguments', runs: pick('tk-a-free-'), cost: cpu(costA) },
    { name: 'toolkens-constrained', label: 'base + toolkens (b): *constrained* arguments (proposer calls)', runs: pick('tk-a-constrained-'), cost: cpu(costA) },
    finetuned('a'),
    finetuned('e'),
  ];
  const byFamily = (f: string) => prompts.filter((p) => p.family === f).map((p) => p.id);
  const needTool = prompts.filter((p) => p.tool);
  const toolOf = new Map(needTool.map((p) => [p.id, p.tool!]));
  const rows = configs.map((c, ci) => {
    const runs = Object.values(c.runs);
    const families = Object.fromEntries(FAMILIES.map((f, fi) => [f, NO_CALL.includes(f)
      ? share(byFamily(f), runs, (o) => o.tool === null, 100 * ci + fi)
      : share(byFamily(f), runs, (o) => o.correct, 100 * ci + fi)]));
    const noCall = share(NO_CALL.flatMap(byFamily), runs, (o) => o.tool === null, 100 * ci + 50);
    const ids = needTool.map((p) => p.id);
    const callRate = share(ids, runs, (o) => o.tool !== null, 100 * ci + 60);
    const rightTool = share(ids, runs.map((r) => Object.fromEntries(Object.entries(r).map(([id, o]) => [id, { ...o, correct: o.tool === toolOf.get(id) }]))),
      (o) => (o.tool === null ? null : o.correct), 100 * ci + 70);
    return { name: c.name, label: c.label, seeds: Object.keys(c.runs), cost: c.cost, families, noCall, callRate, rightTool };
  });
  const noCallIds = NO_CALL.flatMap(byFamily);
  const keptVsAll = {
    kept: share(noCallIds, Object.values(pick('tk-a-free-')), (o) => o.tool === null, 901),
    unfiltered: share(noCallIds, Object.values(pick('tk-b-free-')), (o) => o.tool === null, 902),
    difference: pairedDifference(noCallIds, Object.values(pick('tk-a-free-')), Object.values(pick('tk-b-free-'))),
    seeds: { kept: Object.keys(pick('tk-a-free-')), unfiltered: Object.keys(pick('tk-b-free-')) },
    cost: { kept: costA, unfiltered: costB },
  };
  // The toolken bias as a sensitivity curve (chosen here, on the eval set itself: read it as a curve, not a tuned result).
  const biasTags = [...new Set(Object.keys(tk).map((n) => /^(b[m0-9.]+)-/.exec(n)?.[1]).filter((t): t is string => !!t))].sort();
  const bias = ['', ...biasTags.map((t) => `${t}-`)].flatMap((tag, bi) => ['free', 'constrained'].map((mode, mi) => {
    const runs = Object.values(pick(`${tag}tk-a-${mode}-`));
    const seed = 500 + 10 * bi + mi;
    return {
      bias: tag === '' ? 0 : Number(tag.slice(1, -1).replace('m', '-')), mode, seeds: runs.length,
      families: Object.fromEntries(FAMILIES.filter((f) => !NO_CALL.includes(f)).map((f) => [f, share(byFamily(f), runs, (o) => o.correct, seed)])),
      noCallKept: share(noCallIds, runs, (o) => o.tool === null, seed + 1),
      noCallUnfiltered: mode === 'free' ? share(noCallIds, Object.values(pick(`${tag}tk-b-free-`)), (o) => o.tool === null, seed + 2) : null,
      callRate: share(needTool.map((p) => p.id), runs, (o) => o.tool !== null, seed + 3),
    };
  })).filter((b) => b.seeds > 0);
  return { prompts: prompts.length, families: FAMILIES, rows, keptVsAll, bias, resamples: RESAMPLES };
}

type Report = ReturnType<typeof buildReport>;
const pct = (x: { p: number; lo: number; hi: number } | null) => (x === null ? '–' : `${(100 * x.p).toFixed(1)} [${(100 * x.lo).toFixed(1)}–${(100 * x.hi).toFixed(1)}]`);

export function markdown(r: Report): string {
  const head = `| config | seeds | ${r.families.map((f) => (NO_CALL.includes(f) ? `${f} (no call)` : f)).join(' | ')} | no-call rate | calls on tool prompts | right tool (of calls) | training cost |`;
  const rows = r.rows.map((x) => `| ${x.label} | ${x.seeds.length} | ${r.families.map((f) => pct(x.families[f])).join(' | ')} | ${pct(x.noCall)} | ${pct(x.callRate)} | ${pct(x.rightTool)} | ${x.cost} |`);
  const k = r.keptVsAll;
  const tool = r.families.filter((f) => !NO_CALL.includes(f));
  const d = k.difference;
  return `# Toolkens (ToolkenGPT) on the frozen base vs the finetuned arms

Generated by \`npx tsx pipeline/eval/toolkens/report.ts\` from \`results/toolkens.json\`'s sources (runs:
\`pipeline/eval/toolkens/runs.sh\`). The experiment's held-out eval set (${r.prompts} prompts), greedy, ≤ 48 new tokens,
one call per prompt, tools live. Tool families: accuracy (answer among the first words, calls removed); no-call
families: the share of prompts with no call. % with a 95 % bootstrap interval over prompts (${r.resamples} resamples;
a resampled prompt brings all its seeds). Toolkens: one row per tool trained on arm (a)'s kept calls
(out/experiment/arms/a.jsonl = models/toolformer/finetune-data/a.jsonl), seeds 1–3 (the toolkens' initialisation,
validation split and batch order), lr 1e-3, ≤ 10 epochs, patience 2, toolken bias 0 (not tuned). *Constrained* is this
project's tool mode for models too small to write arguments: the model chooses among the tool's proposer calls. The
base and its " [" rule are deterministic (one run). The finetuned arms' trials are the experiment's, reused.

${head}
|${'---|'.repeat(r.families.length + 6)}
${rows.join('\n')}

## Kept calls vs unfiltered calls (no-call families, toolkens, free mode)

| toolkens trained on | seeds | no-call rate on ${NO_CALL.join(' + ')} | CPU-s |
|---|---:|---:|---:|
| arm (a): the pipeline's kept calls | ${k.seeds.kept.length} | ${pct(k.kept)} | ${k.cost.kept.seconds?.toFixed(1) ?? '–'} |
| arm (b): every proposed call that ran (unfiltered) | ${k.seeds.unfiltered.length} | ${pct(k.unfiltered)} | ${k.cost.unfiltered.seconds?.toFixed(1) ?? '–'} |

Kept − unfiltered: ${d === null ? '–' : `${(100 * d.diff).toFixed(1)} points [${(100 * d.lo).toFixed(1)}, ${(100 * d.hi).toFixed(1)}] (paired by prompt, ${d.prompts} prompts)`}
${d === null ? '' : d.lo > 0 ? '— the kept calls give more no-call answers.' : d.hi < 0 ? '— the kept calls give FEWER no-call answers: they do not beat the unfiltered calls here.' : '— the interval includes 0: no difference shown.'}

## Toolken bias (sensitivity; chosen on this eval set, so a curve, not a tuned result)

| bias | tool mode | seeds | ${tool.join(' | ')} | no-call rate, kept (a) | no-call rate, unfiltered (b) | calls on tool prompts |
|---:|---|---:|${'---:|'.repeat(tool.length + 3)}
${r.bias.map((b) => `| ${b.bias} | ${b.mode} | ${b.seeds} | ${tool.map((f) => pct(b.families[f])).join(' | ')} | ${pct(b.noCallKept)} | ${pct(b.noCallUnfiltered)} | ${pct(b.callRate)} |`).join('\n')}
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = buildReport();
  writeFileSync(join(RESULTS, 'toolkens.json'), JSON.stringify(r, null, 2) + '\n');
  writeFileSync(join(RESULTS, 'toolkens.md'), markdown(r));
  console.log(markdown(r));
}
