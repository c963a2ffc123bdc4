/**
 * The "vectors" retriever's settings (core/retrieval/vectors.ts) and its weight in "vector-fusion", chosen on the dev
 * splits only — the labelled set's and the blind set's; neither test split is read here. The objective, as in
 * expansion-tuning.ts, is the mean of the two dev NDCG@5. First the retriever alone over a grid (background, floor,
 * the name / description boosts, the expansion field's boost), then SIF's a at the best, then the fusion weight beside
 * expanded (weight 1). Writes vector-tuning.{json,md}; the chosen values are then written into vectors.ts
 * (VECTOR_OPTIONS) and pipeline/node/tools/retrieval.ts (VECTOR_FUSION_WEIGHT) by hand.
 *
 *   npx tsx pipeline/eval/retrieval/vector-tuning.ts      (no model; a few minutes)
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ToolRetriever } from '../../core/retrieval/retriever.ts';
import { type VectorOptions, VectorRetriever } from '../../core/retrieval/vectors.ts';
import { mathjsSpecs } from '../../core/tools/catalogs/mathjs/index.ts';
import { bundledWordVectors, toolExpansions, vectorFusion } from '../../node/tools/retrieval.ts';
import { Bm25Retriever } from '../../core/retrieval/bm25.ts';
import { ndcgAt } from './metrics.ts';
import { BLIND_FILE, readRequests, RETRIEVAL_DIR } from './table.ts';

const dev = { labelled: readRequests().filter((r) => r.split === 'dev'), blind: readRequests(BLIND_FILE).filter((r) => r.split === 'dev') };
const tools = mathjsSpecs();
const names = tools.map((t) => t.name);
const vectors = bundledWordVectors();
const expansions = toolExpansions();

interface TuningRow { stage: string; variant: string; options: VectorOptions | null; weight: number | null; labelled: number; blind: number; objective: number }
const rows: TuningRow[] = [];
const round = (x: number) => Math.round(x * 1e4) / 1e4;

async function measure(stage: string, variant: string, retriever: ToolRetriever, options: VectorOptions | null, weight: number | null): Promise<TuningRow> {
  const mean = async (rs: typeof dev.labelled) => {
    let sum = 0;
    for (const r of rs) sum += ndcgAt((await retriever.rank(r.text, 5)).map((t) => t.name), new Set(r.gold), 5);
    return sum / rs.length;
  };
  const labelled = round(await mean(dev.labelled));
  const blind = round(await mean(dev.blind));
  const row = { stage, variant, options, weight, labelled, blind, objective: round((labelled + blind) / 2) };
  rows.push(row);
  console.log(stage, variant, labelled, blind, row.objective);
  return row;
}

const best = (stage: string) => rows.filter((r) => r.stage === stage).reduce((a, b) => (b.objective > a.objective ? b : a));
const describe = (o: VectorOptions) =>
  `background ${o.background}, floor ${o.floor}, boosts ${o.boosts.nameWords}/${o.boosts.description}/${o.boosts.documentation}/${o.boosts.expansion}, a ${o.sif}`;

const expanded = new Bm25Retriever(tools, { expansions });
await measure('baseline', 'expanded (BM25 with WordNet expansion)', expanded, null, null);
for (const background of ['none', 'mean', 'z-score'] as const) for (const floor of [0.2, 0.3, 0.4]) for (const [nameWords, description] of [[3, 2], [1, 1]]) for (const expansion of [0, 1, 2]) {
  const options: VectorOptions = { boosts: { nameWords, description, documentation: 1, expansion }, floor, sif: 1e-4, background };
  await measure('grid', describe(options), new VectorRetriever(tools, vectors, options, expansions), options, null);
}
const grid = best('grid').options as VectorOptions;
for (const sif of [1e-3, 1e-4, 1e-5]) {
  const options = { ...grid, sif };
  await measure('sif', describe(options), new VectorRetriever(tools, vectors, options, expansions), options, null);
}
const chosen = best('sif').options as VectorOptions;
const retriever = new VectorRetriever(tools, vectors, chosen, expansions);
for (const weight of [0.5, 1, 2, 3]) await measure('fusion', `expanded × 1 + vectors × ${weight}`, vectorFusion(expanded, retriever, names, weight), chosen, weight);
const fusion = best('fusion');

const pct = (x: number) => (x * 100).toFixed(1);
const md = [
  '| stage | variant (dev splits) | labelled dev NDCG@5 | blind dev NDCG@5 | mean |',
  '|---|---|---:|---:|---:|',
  ...rows.map((r) => `| ${r.stage} | ${r.variant} | ${pct(r.labelled)} | ${pct(r.blind)} | ${pct(r.objective)} |`),
  '',
  `Dev: ${dev.labelled.length} labelled and ${dev.blind.length} blind requests, ${tools.length} tools. Chosen: **vectors** with ${describe(chosen)} ` +
    `(mean ${pct(best('sif').objective)}); **vector-fusion** at weight ${fusion.weight} (mean ${pct(fusion.objective)}, against ${pct(rows[0].objective)} for expanded alone); the test splits not run.`,
].join('\n');
writeFileSync(resolve(RETRIEVAL_DIR, 'vector-tuning.json'), `${JSON.stringify({ requests: { labelled: dev.labelled.length, blind: dev.blind.length }, tools: tools.length, chosen: { options: chosen, fusionWeight: fusion.weight }, rows }, null, 2)}\n`);
writeFileSync(resolve(RETRIEVAL_DIR, 'vector-tuning.md'), `${md}\n`);
console.log(md);
