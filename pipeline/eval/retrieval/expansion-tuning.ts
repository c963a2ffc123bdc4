/**
 * The WordNet expansion's settings (pipeline/data/tool-expansion.ts), chosen on the dev splits only — the labelled
 * set's (requests.jsonl) and the blind set's (blind-requests.jsonl); neither test split is read here. Each variant
 * is the "expanded" BM25 retriever (bm25.ts with `expansions`); the objective is the mean of the two dev NDCG@5
 * (the old set rewards keeping the docs' words, the blind set rewards reaching past them). Writes
 * expansion-tuning.{json,md}; build-tool-expansions.ts then writes the chosen expansion beside the catalog.
 *
 *   npx tsx pipeline/eval/retrieval/expansion-tuning.ts      (no model; WordNet is read once, ~10 s)
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Bm25Retriever } from '../../core/retrieval/bm25.ts';
import { mathjsSpecs } from '../../core/tools/catalogs/mathjs/index.ts';
import { expandTool, type ExpansionOptions } from '../../data/tool-expansion.ts';
import { readLexicon } from '../../data/wordnet-lexicon.ts';
import { wordnetDict } from '../../data/build-tool-expansions.ts';
import { ndcgAt } from './metrics.ts';
import { BLIND_FILE, readRequests, RETRIEVAL_DIR } from './table.ts';

const dev = { labelled: readRequests().filter((r) => r.split === 'dev'), blind: readRequests(BLIND_FILE).filter((r) => r.split === 'dev') };
const tools = mathjsSpecs();
const lexicon = readLexicon(wordnetDict());

function devNdcg5(retriever: Bm25Retriever): { labelled: number; blind: number } {
  const mean = (rs: typeof dev.labelled) => rs.reduce((s, r) => s + ndcgAt(retriever.rankNow(r.text, 5).map((t) => t.name), new Set(r.gold), 5), 0) / rs.length;
  return { labelled: Math.round(mean(dev.labelled) * 1e4) / 1e4, blind: Math.round(mean(dev.blind) * 1e4) / 1e4 };
}

interface TuningRow { variant: string; options: ExpansionOptions | null; boost: number | null; labelled: number; blind: number; objective: number }
const rows: TuningRow[] = [];
const add = (variant: string, options: ExpansionOptions | null, boost: number | null, retriever: Bm25Retriever) => {
  const d = devNdcg5(retriever);
  rows.push({ variant, options, boost, ...d, objective: Math.round(((d.labelled + d.blind) / 2) * 1e4) / 1e4 });
};
add('bm25 (no expansion)', null, null, new Bm25Retriever(tools));
for (const senses of [1, 2, 3]) for (const gloss of [false, true]) for (const related of [false, true]) for (const hypernyms of [false, true]) {
  const options = { senses, gloss, related, hypernyms };
  const expansions = new Map(tools.map((t) => [t.name, expandTool(t, lexicon, options)]));
  for (const boost of [0.5, 1, 2]) {
    add(`senses ${senses}${gloss ? ', glosses' : ''}${related ? ', related' : ''}${hypernyms ? ', hypernyms' : ''}; boost ${boost}`, options, boost, new Bm25Retriever(tools, { expansions, expansionBoost: boost }));
  }
}
const best = rows.slice(1).reduce((a, b) => (b.objective > a.objective ? b : a));
const pct = (x: number) => (x * 100).toFixed(1);
const md = [
  '| variant (expanded BM25, dev splits) | labelled dev NDCG@5 | blind dev NDCG@5 | mean |',
  '|---|---:|---:|---:|',
  ...rows.map((r) => `| ${r.variant} | ${pct(r.labelled)} | ${pct(r.blind)} | ${pct(r.objective)} |`),
  '',
  `Dev: ${dev.labelled.length} labelled and ${dev.blind.length} blind requests, ${tools.length} tools. Chosen: **${best.variant}** ` +
    `(mean ${pct(best.objective)} against ${pct(rows[0].objective)} without expansion); the test splits not run.`,
].join('\n');
writeFileSync(resolve(RETRIEVAL_DIR, 'expansion-tuning.json'), `${JSON.stringify({ requests: { labelled: dev.labelled.length, blind: dev.blind.length }, tools: tools.length, chosen: { options: best.options, boost: best.boost }, rows }, null, 2)}\n`);
writeFileSync(resolve(RETRIEVAL_DIR, 'expansion-tuning.md'), `${md}\n`);
console.log(md);
