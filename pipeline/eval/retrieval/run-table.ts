/**
 * `npm run eval:retrieval`: the retrieval table of pipeline/eval/retrieval/ — the labelled and blind sets through every
 * retriever built over the mathjs catalog with the run's model (models/default), results.json and results.md
 * written there (the README's block is made from results.md by `npm run docs`).
 *
 *   npx tsx pipeline/eval/retrieval/run-table.ts [--model models/default]   writes results.json and results.md
 *   npx tsx pipeline/eval/retrieval/run-table.ts --split dev                  prints one split, writes nothing (for tuning)
 *   npx tsx pipeline/eval/retrieval/run-table.ts --render                     results.md again from results.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { mathjsSpecs } from '../../core/tools/catalogs/mathjs/index.ts';
import { BLIND_FILE, evaluate, readRequests, RETRIEVAL_DIR, retrievalTable, type Row, type TableResult } from './table.ts';
import { docsVocabularyShare } from './vocabulary.ts';
import { buildToolRetrievers } from '../../node/tools/retrieval.ts';

const HERE = RETRIEVAL_DIR;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const model = flag('--model') ?? 'models/default';
  const splits = flag('--split') ? [flag('--split') as string] : ['dev', 'test'];
  if (args.includes('--render')) {
    // results.md again from the committed results.json (after a change of the table's form).
    const saved = JSON.parse(readFileSync(resolve(HERE, 'results.json'), 'utf8')) as TableResult;
    writeFileSync(resolve(HERE, 'results.md'), `${retrievalTable(saved)}\n`);
    return;
  }
  const sets = { labelled: readRequests(), blind: readRequests(BLIND_FILE) };
  const tools = mathjsSpecs();
  const served = new Map(tools.map((t) => [t.name, t]));
  for (const [set, requests] of Object.entries(sets)) {
    for (const r of requests) for (const g of r.gold) if (!served.has(g)) throw new Error(`${set} request ${r.id}: gold ${g} is not a served tool`);
  }
  const started = performance.now();
  const { retrievers, index } = await buildToolRetrievers(tools, { model, all: true });
  const buildSeconds = (performance.now() - started) / 1000;
  const rows: Row[] = [];
  const vocabulary: TableResult['vocabulary'] = [];
  for (const [set, requests] of Object.entries(sets)) {
    for (const split of splits) {
      const inSplit = requests.filter((r) => r.split === split);
      vocabulary.push({ set, split, ...docsVocabularyShare(inSplit, served) });
      for (const retriever of retrievers) rows.push(await evaluate(retriever, inSplit, set, split, 1));
    }
  }
  const result = { model, tools: tools.length, requests: Object.fromEntries(Object.entries(sets).map(([k, v]) => [k, v.length])), vocabulary, buildSeconds: Math.round(buildSeconds * 10) / 10, trainingLoss: index?.losses.map((l) => Math.round(l * 1000) / 1000), rows };
  if (flag('--split')) {
    for (const row of rows) console.log(row.set.padEnd(9), row.retriever.padEnd(9), row.split, row.ndcg1.mean.toFixed(3), row.ndcg5.mean.toFixed(3), row.recall5.mean.toFixed(3));
    console.log('loss', result.trainingLoss?.join(' '));
    return;
  }
  writeFileSync(resolve(HERE, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(resolve(HERE, 'results.md'), `${retrievalTable(result)}\n`);
  console.log(retrievalTable(result));
}

await main();
