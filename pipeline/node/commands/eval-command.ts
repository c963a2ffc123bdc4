/**
 * `toolformer eval --model <dir|.gguf|url|auto:dir> [--trials k]`: held-out task families (eval/tasks.ts) generated with and without tools
 * (pipeline/core/generate/generate.ts), scored with the paper's metric (eval/metrics.ts). Writes <out>/eval.json and eval.md.
 *
 * Greedy decoding gives accuracy with and without tools and the call statistics; k sampled trials with tools
 * (temperature --temperature, seeds 1..k) give pass@k and pass^k. Before anything runs, every eval prompt is
 * searched for in the finetuning texts (the C* files named in the model's train-record.json, and any --data):
 * the overlap is reported.
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { badLineReporter, readJsonl, textRecordProblem } from '../../io/jsonl.ts';
import { readStateJson } from '../system/safe-paths.ts';
import { basename, join, resolve } from 'node:path';
import { generate, stripCalls, type GeneratedCall } from '../../core/generate/generate.ts';
import type { BackendFlags } from '../cli/cli-options.ts';
import { AUTO_PREFIX } from '../model/lm-backends/auto.ts';
import { backendFor } from '../model/lm-backends/registry.ts';
import { createNodeExecutor, openDecodingModel } from './generate-command.ts';
import { generateWithToolkens, type ToolkenCall, type ToolModeKind } from '../../core/toolkens/generate.ts';
import { TOOL_SPECS } from '../../core/tools/registry.ts';
import type { Device } from '../../core/lm/devices.ts';
import { readKb } from '../tools/parts.ts';
import { summarise, trial, type FamilySummary, type Trial, type TrialRecord } from '../../eval/metrics.ts';
import { FAMILIES, evalPrompts, factOverlap, overlap, trainDocs, type EvalPrompt, type KbFact } from '../../eval/tasks.ts';

export interface EvalOptions extends BackendFlags {
  model: string;
  trials: number;
  perFamily: number;
  temperature: number;
  maxNewTokens: number;
  topK: number;
  data?: string[];
  out?: string;
  quiet?: boolean;
  /** JSONL of EvalPrompt (e.g. pipeline/eval/experiment/prompts.jsonl) instead of the built-in tasks.ts set. */
  set?: string;
  /** Also generate without tools (" [" masked). @default true */
  withoutTools?: boolean;
  /** A toolkens file (toolformer toolkens train): with tools, calls come from toolkens instead of " [". */
  toolkens?: string;
  /** Added to the toolken logits (ToolkenGPT's bias). @default 0 */
  toolkenBias?: number;
  /** How tool mode writes arguments: free (the tool's prompt until ")") or constrained (the proposer's calls). @default "free" */
  toolkenMode?: ToolModeKind;
  /** Where the LM runs (`--device`). @default "cpu" */
  device?: Device;
}


export interface EvalReport {
  model: string;
  options: EvalOptions;
  prompts: number;
  overlap: { files: string[]; texts: number; prompts: { id: string; prompt: string }[]; factsSeen: { id: string; prompt: string }[] };
  families: FamilySummary[];
  examples: Record<string, { prompt: string; withTools: string; withoutTools: string; calls: unknown[] }[]>;
  seconds: number;
}

/** The folder or file `--model` names on disk (auto:'s without its prefix); null for a served model. */
function modelOnDisk(model: string): string | null {
  if (backendFor(model).name === 'server') return null;
  return model.startsWith(AUTO_PREFIX) ? model.slice(AUTO_PREFIX.length) : model;
}

/** The finetuning files a model's train-record.json names: an ONNX folder's, or auto:'s folder's; none for a .gguf or a URL. */
function finetuneFiles(model: string): string[] {
  const onDisk = modelOnDisk(model);
  if (onDisk === null) return [];
  const rec = join(onDisk, 'train-record.json');
  if (!existsSync(rec)) return [];
  const data = (readStateJson(onDisk, 'train-record.json', `eval: the model ${model}`, 'retrain it or remove the file') as { data?: { files?: string[] } }).data;
  return data?.files ?? [];
}

/** out/eval/<name> for a model: its folder's or file's name (a .gguf without the extension), a served model's host. */
function outName(model: string): string {
  const onDisk = modelOnDisk(model);
  if (onDisk === null) return `served-${new URL(model).host.replace(/[^\w.-]+/g, '-')}`;
  return basename(resolve(onDisk)).replace(/\.gguf$/i, '');
}

export async function runEval(o: EvalOptions): Promise<EvalReport> {
  const t0 = Date.now();
  const kb = (readKb() as { facts: KbFact[] }).facts;
  const prompts: EvalPrompt[] = o.set
    ? readJsonl<EvalPrompt>(o.set, undefined, (p) => {
      const r = p as Partial<EvalPrompt> | null;
      return r && typeof r.id === 'string' && typeof r.prompt === 'string' && Array.isArray(r.answers) ? null : 'not an eval prompt {id, family, prompt, answers[, tool, date]}';
    })
    : evalPrompts(kb, o.perFamily);
  const familyNames = o.set ? [...new Set(prompts.map((p) => p.family))] : FAMILIES;
  const files = [...new Set([...finetuneFiles(o.model), ...(o.data ?? [])])];
  // The KB prose (regenerated: deterministic) and every finetuning file still on disk.
  const texts = [...trainDocs(kb).map((d) => d.text), ...trainDocs(kb, { perFamily: 250 }).map((d) => d.text)];
  // Lines without a text are not finetuning records: they cannot overlap a prompt.
  const badData = badLineReporter('toolformer: eval --data', (line) => console.error(line));
  texts.push(...files.filter(existsSync).flatMap((f) =>
    readJsonl<{ text: string }>(f, badData.report, (v) => textRecordProblem(v, false)).flatMap(({ text }) => [text, stripCalls(text)])));
  badData.done();
  const leaked = overlap(prompts, texts);
  const factsSeen = factOverlap(prompts, texts);
  const { lm, toolkens: tk } = await openDecodingModel(o);
  const executor = await createNodeExecutor();
  const specs = new Map(TOOL_SPECS.map((s) => [s.name, s]));
  const log = (s: string) => {
    if (!o.quiet) process.stderr.write(s);
  };
  const run = async (p: EvalPrompt, tools: boolean, temperature: number, seed: number): Promise<Trial> =>
    trial(p, tools, tools && tk
      ? await generateWithToolkens(tk.model, executor, p.prompt, {
        toolkens: tk.toolkens, specs, mode: o.toolkenMode, bias: o.toolkenBias, maxNewTokens: o.maxNewTokens, doc: { id: p.id, date: p.date },
      })
      : await generate(lm, executor, p.prompt, {
        tools, temperature, seed, topK: o.topK, maxNewTokens: o.maxNewTokens, doc: { id: p.id, date: p.date },
      }));

  const families: FamilySummary[] = [];
  const examples: EvalReport['examples'] = {};
  const records: TrialRecord[] = [];
  const record = (t: Trial): TrialRecord => ({ id: t.prompt.id, family: t.prompt.family, phrasing: t.prompt.phrasing, real: t.prompt.real,
    tools: t.tools, correct: t.correct, text: t.generation.text, calls: t.generation.calls.map((c: GeneratedCall & Partial<ToolkenCall>) => ({ tool: c.tool, input: c.input, result: c.result,
      ...(c.proposalInputs ? { proposals: c.proposalInputs } : {}) })) });
  for (const family of familyNames) {
    const ps = prompts.filter((p) => p.family === family);
    if (ps.length === 0) continue;
    log(`eval ${family}: ${ps.length} prompts `);
    const greedyWith: Trial[] = [];
    const greedyWithout: Trial[] = [];
    for (const p of ps) {
      greedyWith.push(await run(p, true, 0, 0));
      if (o.withoutTools !== false) greedyWithout.push(await run(p, false, 0, 0));
    }
    records.push(...greedyWith.map(record), ...greedyWithout.map(record));
    log('greedy done');
    const sampled: Trial[][] = [];
    for (let k = 1; k <= o.trials; k++) {
      const trials: Trial[] = [];
      for (const p of ps) trials.push(await run(p, true, o.temperature, k));
      sampled.push(trials);
      log(` · trial ${k}`);
    }
    log('\n');
    families.push(summarise(family, greedyWith, greedyWithout, sampled));
    examples[family] = greedyWith.slice(0, 3).map((t, i) => ({
      prompt: t.prompt.prompt, withTools: t.generation.text, withoutTools: greedyWithout[i]?.generation.text ?? '', calls: t.generation.calls,
    }));
  }
  const report: EvalReport = {
    model: o.model, options: o, prompts: prompts.length,
    overlap: { files: [...files.filter(existsSync), 'tasks.ts trainDocs (regenerated)'], texts: texts.length, prompts: leaked, factsSeen }, families, examples, seconds: (Date.now() - t0) / 1000,
  };
  await lm.release?.();
  const out = o.out ?? join('out/eval', outName(o.model));
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'trials.jsonl.tmp'), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  renameSync(join(out, 'trials.jsonl.tmp'), join(out, 'trials.jsonl'));
  writeFileSync(join(out, 'eval.json'), JSON.stringify(report, (_, v) => (v === Infinity ? 'Infinity' : v), 2) + '\n');
  writeFileSync(join(out, 'eval.md'), markdown(report));
  return report;
}

const pct = (x: number | null): string => (x === null ? '–' : `${(100 * x).toFixed(0)} %`);
const ci = (x: number, i?: [number, number]): string => (i ? `${pct(x)} [${(100 * i[0]).toFixed(0)}–${(100 * i[1]).toFixed(0)}]` : pct(x));
const ratio = (x: number | null): string => (x === null ? '–' : x === Infinity ? '∞' : `${x.toFixed(1)}×`);

export function table(report: EvalReport): string {
  const k = report.options.trials;
  const head = `| family | n | without tools [95 % CI] | with tools [95 % CI] | majority | ratio | calls made | valid | result right | right tool | pass@${k} | pass^${k} | no call [95 % CI] |`;
  const rows = report.families.map((f) => {
    const none = f.noCallExpected ?? f.family === 'relevance';
    return `| ${f.family}${none ? ' (no call expected)' : ''} | ${f.n} | ${f.family === 'relevance' || f.withoutToolsRun === false ? '–' : ci(f.withoutTools, f.withoutToolsCI)} | ${f.family === 'relevance' ? '–' : ci(f.withTools, f.withToolsCI)} | ` +
      `${f.majority === undefined || none ? '–' : pct(f.majority)} | ${ratio(f.ratio)} | ` +
      `${pct(f.callsMade)} | ${pct(f.callsValid)} | ${none ? '–' : pct(f.callsCorrect)} | ${none ? '–' : pct(f.rightTool)} | ` +
      `${pct(f.passAtK)} | ${pct(f.passHatK)} | ${ci(f.noCall, f.noCallCI)} |`;
  });
  const phr = report.families.flatMap((f) => (f.phrasings ?? []).length > 1 ? (f.phrasings ?? []).map((p) =>
    `| ${f.family} | ${p.phrasing}${p.real ? ' (real)' : ''} | ${p.n} | ${pct(p.withoutTools)} | ${pct(p.withTools)} | ${pct(p.callsMade)} |`) : []);
  const byPhrasing = phr.length === 0 ? [] : ['', '| family | phrasing | n | without tools | with tools | calls made |', '|---|---|---:|---:|---:|---:|', ...phr];
  return [head, '|' + '---|'.repeat(13), ...rows, ...byPhrasing].join('\n');
}

export function markdown(report: EvalReport): string {
  const o = report.options;
  const ex = Object.entries(report.examples).flatMap(([family, xs]) => xs.slice(0, 2).map((x) =>
    `- ${family}: \`${x.prompt}\` → with tools: \`${x.withTools.replace(/`/g, "'").trim()}\`; without: \`${x.withoutTools.replace(/`/g, "'").trim()}\``));
  return `# toolformer eval — ${report.model}

${report.prompts} held-out prompts, greedy with and without tools (top-k ${o.topK} call rule, ≤ ${o.maxNewTokens} new tokens,
one call); pass@${o.trials} / pass^${o.trials} over ${o.trials} sampled trials with tools at temperature ${o.temperature}.
Correct = the answer among the first words generated (calls removed; case, punctuation and number format normalised).

${table(report)}

Overlap of eval prompts with the finetuning texts (${report.overlap.files.length} files, ${report.overlap.texts} texts):
${report.overlap.prompts.length} prompts${report.overlap.prompts.length ? ': ' + report.overlap.prompts.map((p) => p.id).join(', ') : ''}.
Fact prompts whose subject and answer appear together in a finetuning text (the fact, not the prompt, was seen — e.g. a
Factbook "Capital: name: …" line): ${report.overlap.factsSeen.length}${report.overlap.factsSeen.length ? ` (${report.overlap.factsSeen.map((p) => p.prompt.replace(/^The \w+(?: \w+)? of /, '').replace(/ is$/, '')).join(', ')})` : ''}.

Examples (greedy):
${ex.join('\n')}

${report.seconds.toFixed(0)} s.
`;
}
