/**
 * What was tried to lift BM25 towards the 0.8 NDCG@5 target (issue 30 item 6), on the labelled set's dev split only
 * (the test split is never read here): minisearch's BM25+ parameters, the field boosts, prefix and fuzzy term
 * matching, tool documents expanded with their see-also tools' descriptions, and pseudo-relevance feedback (the top
 * hits' descriptions added to the query). Writes pipeline/eval/retrieval/dev-tuning.{json,md}.
 *
 *   npx tsx pipeline/eval/retrieval/dev-tuning.ts       (BM25 only, no model: a few seconds)
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Bm25Options, BM25_BOOSTS, Bm25Retriever } from '../../core/retrieval/bm25.ts';
import type { RankedTool } from '../../core/retrieval/retriever.ts';
import { mathjsSpecs } from '../../core/tools/catalogs/mathjs/index.ts';
import type { ToolSpec } from '../../core/tools/spec.ts';
import { ndcgAt } from './metrics.ts';
import { readRequests, RETRIEVAL_DIR } from './table.ts';

const dev = readRequests().filter((r) => r.split === 'dev');
const tools = mathjsSpecs();

/** Mean NDCG@5 over dev of a ranking function. */
function ndcg5(rank: (text: string) => RankedTool[]): number {
  return dev.reduce((sum, r) => sum + ndcgAt(rank(r.text).map((t) => t.name), new Set(r.gold), 5), 0) / dev.length;
}

const bm25 = (options: Bm25Options = {}, over: readonly ToolSpec[] = tools) => {
  const retriever = new Bm25Retriever(over, options);
  return (text: string) => retriever.rankNow(text, 5);
};

/** Each tool's documentation also carries the descriptions of the tools it names as see-also. */
function withSeeAlso(): ToolSpec[] {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return tools.map((t) => (t.documentation
    ? { ...t, documentation: { ...t.documentation, examples: [...t.documentation.examples, ...t.documentation.seeAlso.map((n) => byName.get(n)?.description ?? '')] } }
    : t));
}

/** score = s₁/max s₁ + α·s₂/max s₂, s₂ over the query plus the top `m` hits' descriptions. */
function feedback(m: number, alpha: number): (text: string) => RankedTool[] {
  const retriever = new Bm25Retriever(tools);
  const description = new Map(tools.map((t) => [t.name, t.description]));
  return (text) => {
    const first = retriever.rankNow(text, tools.length);
    if (first.length === 0) return [];
    const second = retriever.rankNow([text, ...first.slice(0, m).map((r) => description.get(r.name))].join(' '), tools.length);
    const score = new Map(first.map((r) => [r.name, r.score / first[0].score]));
    for (const r of second) score.set(r.name, (score.get(r.name) ?? 0) + (alpha * r.score) / second[0].score);
    return [...score].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([name, s]) => ({ name, score: s }));
  };
}

const rows: { variant: string; ndcg5: number }[] = [];
const row = (variant: string, rank: (text: string) => RankedTool[]) => rows.push({ variant, ndcg5: Math.round(ndcg5(rank) * 1e4) / 1e4 });

row('as shipped (boosts 3/2/1, k 1.2, b 0.7, d 0.5)', bm25());
for (const k of [0.6, 1.2, 2]) for (const b of [0.3, 0.5, 0.9]) row(`BM25+ k ${k}, b ${b}`, bm25({ search: { bm25: { k, b, d: 0.5 } } }));
for (const d of [0, 1]) row(`BM25+ d ${d}`, bm25({ search: { bm25: { k: 1.2, b: 0.7, d } } }));
for (const [n, de, doc] of [[2, 2, 1], [3, 3, 1], [3, 1, 1], [4, 2, 1], [3, 2, 0.5]]) {
  row(`boosts ${n}/${de}/${doc}`, bm25({ boosts: { nameWords: n, description: de, documentation: doc } }));
}
row('prefix matching (terms of 5+ letters)', bm25({ search: { prefix: (term) => term.length >= 5 } }));
row('fuzzy matching (terms of 6+ letters, 0.2)', bm25({ search: { fuzzy: (term) => (term.length >= 6 ? 0.2 : false) } }));
row('docs + see-also tools\' descriptions', bm25({ boosts: BM25_BOOSTS }, withSeeAlso()));
for (const m of [1, 3]) for (const alpha of [0.2, 0.5]) row(`feedback: top ${m} hits' descriptions, α ${alpha}`, feedback(m, alpha));

const shipped = rows[0].ndcg5;
const best = rows.reduce((a, b) => (b.ndcg5 > a.ndcg5 ? b : a));
const md = [
  '| variant (BM25, dev split) | NDCG@5 |',
  '|---|---:|',
  ...rows.map((r) => `| ${r.variant} | ${(r.ndcg5 * 100).toFixed(1)} |`),
  '',
  `Dev, ${dev.length} requests, ${tools.length} tools. Best: ${best.variant}, ${(best.ndcg5 * 100).toFixed(1)} against ${(shipped * 100).toFixed(1)} as shipped ` +
    `(${((best.ndcg5 - shipped) * 100).toFixed(1)} points; dev's 95 % interval is about ±9 points wide): nothing changed, the test split not run.`,
].join('\n');
writeFileSync(resolve(RETRIEVAL_DIR, 'dev-tuning.json'), `${JSON.stringify({ split: 'dev', requests: dev.length, tools: tools.length, rows }, null, 2)}\n`);
writeFileSync(resolve(RETRIEVAL_DIR, 'dev-tuning.md'), `${md}\n`);
console.log(md);
