/**
 * Tool retrieval's cost (issue 30 item 5): annotate's CPU per document with 4 tools (the built-in ones), 50 (the
 * built-in ones + the first 46 of the mathjs catalog) and all (4 + 215), each without and with `--tool-retrieval 5`.
 * In one process, on the same documents, through the pipeline's own stages (core/stages annotate) with the run's
 * default config and the sampling probe's gate; CPU = process.cpuUsage() (user + system, ONNX Runtime's threads
 * included) around the document loop only — the model load and the retrieval index build are one-off costs per
 * run and are reported apart (indexCpuSeconds, from the first round: later rounds reuse the in-memory index).
 * An untimed warm-up pass goes first (the first pass over the documents pays ONNX Runtime's first runs and the
 * tools' engines, which made the first row look 25 % dearer than the same work later); then `--rounds` rounds of all
 * six settings, interleaved so that the machine's load falls on each alike; a row's CPU per document is its median.
 *
 *   npx tsx pipeline/bench/tool-retrieval.ts [--docs 3] [--max-doc-tokens 256] [--retriever fusion] [--rounds 3]
 *
 * Writes pipeline/bench/results/tool-retrieval.json and .md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defaultConfig } from '../core/default-config.ts';
import { median } from '../core/median.ts';
import type { Doc } from '../core/document.ts';
import { annotate } from '../core/stages/stages.ts';
import { mathjsSpecs } from '../core/tools/catalogs/mathjs/index.ts';
import { TOOL_SPECS } from '../core/tools/registry.ts';
import type { ToolSpec } from '../core/tools/spec.ts';
import { scriptFlag } from '../io/script-flag.ts';
import { loadModel } from '../node/model/load-model.ts';
import { createNodeParts } from '../node/tools/parts.ts';
import { toolRetrievalFor } from '../node/tools/retrieval.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = Number(scriptFlag('docs', '3'));
const MAX_DOC_TOKENS = Number(scriptFlag('max-doc-tokens', '256'));
const RETRIEVER = scriptFlag('retriever', 'fusion');
const MODEL = scriptFlag('model', 'models/default');
const ROUNDS = Number(scriptFlag('rounds', '3'));
const K = 5;
const OUT = join(ROOT, 'pipeline/bench/results');
const log = (...xs: unknown[]) => console.error(`[bench:tool-retrieval ${new Date().toISOString().slice(11, 19)}]`, ...xs);

const docs: Doc[] = readFileSync(join(ROOT, 'corpus/sample.jsonl'), 'utf8').trim().split('\n').slice(0, DOCS).map((l) => JSON.parse(l) as Doc);
const catalog = mathjsSpecs();
const TOOL_SETS: Record<string, readonly ToolSpec[]> = {
  '4': TOOL_SPECS,
  '50': [...TOOL_SPECS, ...catalog.slice(0, 46)],
  all: [...TOOL_SPECS, ...catalog],
};

const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

interface Row {
  tools: string;
  toolCount: number;
  retrieval: number | null;
  docs: number;
  /** The median over the rounds. */
  cpuPerDoc: number;
  /** Each round's, in order. */
  cpuPerDocRounds?: number[];
  indexCpuSeconds: number;
  candidates: number;
}

async function measure(lm: Awaited<ReturnType<typeof loadModel>>, name: string, retrieval: number | null): Promise<Row> {
  const specs = TOOL_SETS[name];
  const config = defaultConfig({ maxDocTokens: MAX_DOC_TOKENS, ...(retrieval ? { toolRetrieval: { k: retrieval, retriever: RETRIEVER } } : {}) }, specs);
  const { parts } = await createNodeParts(lm, config, specs);
  const before = cpuSeconds();
  if (config.toolRetrieval) parts.retrieveTools = await toolRetrievalFor(parts.registry, config, MODEL);
  const indexCpuSeconds = cpuSeconds() - before;
  async function* source() {
    yield* docs;
  }
  const start = cpuSeconds();
  let candidates = 0;
  for await (const work of annotate(parts, config, source())) candidates += work.candidates.length;
  const cpuPerDoc = (cpuSeconds() - start) / docs.length;
  const row = { tools: name, toolCount: specs.length, retrieval, docs: docs.length, cpuPerDoc: round(cpuPerDoc), indexCpuSeconds: round(indexCpuSeconds), candidates };
  log(JSON.stringify(row));
  return row;
}

const round = (x: number) => Math.round(x * 100) / 100;

const lm = await loadModel(MODEL);
await measure(lm, '4', null); // the warm-up pass, not recorded
const settings = ['4', '50', 'all'].flatMap((name) => [null, K].map((retrieval) => ({ name, retrieval })));
const rounds: Row[][] = [];
for (let pass = 0; pass < ROUNDS; pass++) {
  const measured: Row[] = [];
  for (const { name, retrieval } of settings) measured.push(await measure(lm, name, retrieval));
  rounds.push(measured);
}
const rows: Row[] = settings.map((_, i) => {
  const all = rounds.map((r) => r[i]);
  return { ...all[0], cpuPerDoc: round(median(all.map((r) => r.cpuPerDoc))), cpuPerDocRounds: all.map((r) => r.cpuPerDoc) };
});
const base = rows.find((r) => r.tools === '4' && r.retrieval === null) as Row;
const target = rows.find((r) => r.tools === 'all' && r.retrieval === K) as Row;
const result = {
  model: MODEL,
  retriever: RETRIEVER,
  docs: docs.map((d) => d.id),
  maxDocTokens: MAX_DOC_TOKENS,
  rounds: ROUNDS,
  rows,
  ratioAllRetrievedTo4: round(target.cpuPerDoc / base.cpuPerDoc),
  ratioAllTo4: round((rows.find((r) => r.tools === 'all' && r.retrieval === null) as Row).cpuPerDoc / base.cpuPerDoc),
};
writeFileSync(join(OUT, 'tool-retrieval.json'), `${JSON.stringify(result, null, 2)}\n`);
writeFileSync(join(OUT, 'tool-retrieval.md'), `${toolRetrievalTable(result)}\n`);
console.log(toolRetrievalTable(result));

export function toolRetrievalTable(r: typeof result): string {
  return [
    `| tools | --tool-retrieval | CPU s / document | × the 4-tool run | index build, CPU s |`,
    `|---|---|---:|---:|---:|`,
    ...r.rows.map((row) => `| ${row.toolCount} | ${row.retrieval ?? '–'} | ${row.cpuPerDoc} | ${round(row.cpuPerDoc / base.cpuPerDoc)} | ${row.retrieval ? row.indexCpuSeconds : '–'} |`),
    '',
    `All ${target.toolCount} tools with --tool-retrieval ${K}: **${r.ratioAllRetrievedTo4}×** the 4-tool run's CPU per document ` +
      `(target ≤ 1.5×; without retrieval ${r.ratioAllTo4}×), ${r.docs.length} documents, retriever ${r.retriever}; ` +
      `CPU per document: the median of ${r.rounds} interleaved rounds after a warm-up pass.`,
  ].join('\n');
}
