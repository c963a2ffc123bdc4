/**
 * The no-model side of the toolkens comparison (issue 47 item 3), from the tools alone: which tool's proposer offers
 * calls at each eval prompt's end and whether each proposal's result answers the prompt; and, for the constrained
 * toolkens runs that recorded their proposals (out/toolkens/eval/*-constrained-s*), whether each proposal the model
 * chose among answers. Writes results/toolkens-no-model.json, which report.ts reads (so the report is remade without
 * out/ or the tools).
 *
 *   npx tsx pipeline/eval/toolkens/no-model.ts
 *
 * A result answers when the eval's metric finds a gold answer in it (metrics.ts answerFound; the result as the
 * tool's text style writes it, spec.styleResult) — the tool's result counted as the answer, for every row alike.
 * Encoding, one string per prompt in prompts.jsonl order: a proposal list is one character per proposal — "1" its
 * result answers, "0" it does not, "-" the tool gave no result.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOOL_SPECS } from '../../core/tools/registry.ts';
import type { ToolSpec } from '../../core/tools/spec.ts';
import { createNodeExecutor } from '../../node/commands/generate-command.ts';
import type { EvalPrompt } from '../tasks.ts';
import { answerFound, type TrialRecord } from '../metrics.ts';

const ROOT = join(import.meta.dirname, '../../..');
const OUT = process.env.TOOLKENS_OUT ?? join(ROOT, 'out/toolkens');
export const NO_MODEL_FILE = join(ROOT, 'pipeline/eval/results/toolkens-no-model.json');
const PROMPTS = join(ROOT, 'pipeline/eval/experiment/prompts.jsonl');

const readJsonl = <T>(file: string): T[] => readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as T);

async function main(): Promise<void> {
  const prompts = readJsonl<EvalPrompt>(PROMPTS);
  const executor = await createNodeExecutor();
  const memo = new Map<string, string>();
  /** One character per proposal: does its result answer `p`? */
  const rightOf = async (spec: ToolSpec, inputs: readonly string[], p: EvalPrompt, text: string): Promise<string> => {
    let out = '';
    for (const input of inputs) {
      const key = JSON.stringify([spec.name, input, p.id]);
      if (!memo.has(key)) {
        const r = await executor.execute({ tool: spec.name, input }, { id: p.id, date: p.date });
        const styled = r.ok && r.value.trim() !== '' ? spec.styleResult?.(r.value, input, text) ?? r.value : null;
        memo.set(key, styled === null ? '-' : p.answers.length > 0 && answerFound(styled, p.answers) ? '1' : '0');
      }
      out += memo.get(key);
    }
    return out;
  };
  const proposalsOf = (spec: ToolSpec, p: EvalPrompt) => [...new Set(spec.propose?.(p.prompt, { id: p.id, text: p.prompt, date: p.date }, p.prompt.length) ?? [])];

  // The rules, at each prompt's end: the first tool (registry order) whose proposer offers a call, and its proposals;
  // the labelled tool's proposals (the family's tool: a rule told which tool fits).
  const firstTool: string[] = [];
  const firstRight: string[] = [];
  const labelledRight: string[] = [];
  for (const p of prompts) {
    const spec = TOOL_SPECS.find((s) => proposalsOf(s, p).length > 0);
    firstTool.push(spec?.name ?? '');
    firstRight.push(spec ? await rightOf(spec, proposalsOf(spec, p), p, p.prompt) : '');
    const labelled = TOOL_SPECS.find((s) => s.name === p.tool);
    labelledRight.push(labelled ? await rightOf(labelled, proposalsOf(labelled, p), p, p.prompt) : '');
  }

  // The constrained runs' first calls: the model's pick among the proposals it was given, and each proposal's answer.
  const picks: Record<string, string[]> = {};
  const evalDir = join(OUT, 'eval');
  for (const run of existsSync(evalDir) ? readdirSync(evalDir).sort() : []) {
    const file = join(evalDir, run, 'trials.jsonl');
    if (!run.includes('-constrained-') || !existsSync(file)) continue;
    const byId = new Map(readJsonl<TrialRecord>(file).filter((t) => t.tools).map((t) => [t.id, t]));
    if (![...byId.values()].some((t) => t.calls.some((c) => c.proposals))) continue; // recorded before proposals were
    picks[run] = [];
    for (const p of prompts) {
      const call = byId.get(p.id)?.calls.find((c) => c.proposals && c.proposals.length > 0);
      const spec = TOOL_SPECS.find((s) => s.name === call?.tool);
      picks[run].push(call && spec ? `${call.proposals!.indexOf(call.input)}:${await rightOf(spec, call.proposals!, p, p.prompt)}` : '');
    }
  }
  const saved = existsSync(NO_MODEL_FILE) ? (JSON.parse(readFileSync(NO_MODEL_FILE, 'utf8')) as { picks?: Record<string, string[]> }) : {};
  writeFileSync(NO_MODEL_FILE, `${JSON.stringify({
    format: 'per prompt of prompts.jsonl: firstTool — the first tool (registry order) proposing at the prompt\'s end; firstRight / labelledRight — per proposal of that tool / of the labelled tool, 1 its result answers, 0 not, - no result; picks[run] — "i:…" the model\'s pick i among the first constrained call\'s proposals and theirs',
    firstTool, firstRight, labelledRight, picks: { ...saved.picks, ...picks },
  })}\n`);
  console.log(`${NO_MODEL_FILE}: ${prompts.length} prompts, pick runs ${Object.keys(picks).join(', ')}`);
}

await main();
