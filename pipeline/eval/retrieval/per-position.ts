/**
 * Does per-position tool retrieval pay (issue 30 item 4)? `annotate --tool-retrieval k` retrieves once per document:
 * every position goes through the document's top k. The variant retrieves for the window before each position. A
 * run's cost grows with the distinct tools a document goes through (each has its own prompt P(x), so its own p_i
 * pass over the whole document: pipeline/bench/results/tool-retrieval.md), so the variant pays only if, for the same
 * number of distinct tools per document, it puts the right tool at more positions.
 *
 * Measured on the labelled set (pipeline/eval/retrieval/requests.jsonl): its texts, shuffled with a fixed seed, joined
 * DOC_REQUESTS at a time into documents; each text is a position's context with its own gold tools. For each text:
 *   - document: are its gold tools among the whole document's top k?
 *   - window: among the top k for the last W characters up to the text's end (the window before a call at its end)?
 *   - document at equal cost: among the whole document's top n_d, n_d = the distinct tools the windows used in that
 *     document (what the window variant costs).
 * Recall over texts, 95 % bootstrap. BM25 (the fusion's main part, no model needed). W chosen on dev, test reported.
 *
 *   npx tsx pipeline/eval/retrieval/per-position.ts          writes per-position.json and per-position.md there
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { mulberry32 } from '../../random/mulberry32.ts';
import { Bm25Retriever } from '../../core/retrieval/bm25.ts';
import { mathjsSpecs } from '../../core/tools/catalogs/mathjs/index.ts';
import { bootstrap, type Estimate, recallAt } from './metrics.ts';
import { type LabelledRequest, readRequests, RETRIEVAL_DIR } from './table.ts';

/** Texts per made-up document. */
const DOC_REQUESTS = 4;
const K = [3, 5];
/** Window widths tried on dev, in characters before the position. */
const WINDOWS = [60, 120, 240, 480];

interface Row {
  split: string;
  k: number;
  window: number;
  texts: number;
  documents: number;
  document: Estimate;
  window_: Estimate;
  /** Mean distinct tools per document with per-window retrieval (the document variant uses k). */
  distinctTools: number;
  documentAtEqualCost: Estimate;
}

/** The split's texts, shuffled (seeded), `DOC_REQUESTS` to a document; each text's end offset in it. */
function documentsOf(requests: readonly LabelledRequest[], seed: number): { text: string; parts: { end: number; gold: Set<string> }[] }[] {
  const order = [...requests];
  const random = mulberry32(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random.next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const docs = [];
  for (let i = 0; i < order.length; i += DOC_REQUESTS) {
    let text = '';
    const parts = [];
    for (const r of order.slice(i, i + DOC_REQUESTS)) {
      text += (text ? ' ' : '') + r.text;
      parts.push({ end: text.length, gold: new Set(r.gold) });
    }
    docs.push({ text, parts });
  }
  return docs;
}

function measure(bm25: Bm25Retriever, requests: readonly LabelledRequest[], split: string, k: number, window: number): Row {
  const docs = documentsOf(requests, 11);
  const whole: number[] = [];
  const windowed: number[] = [];
  const equal: number[] = [];
  let distinct = 0;
  const all = Number.MAX_SAFE_INTEGER;
  for (const doc of docs) {
    const ranking = bm25.rankNow(doc.text, all).map((r) => r.name);
    const perWindow = doc.parts.map((p) => bm25.rankNow(doc.text.slice(Math.max(0, p.end - window), p.end), k).map((r) => r.name));
    const used = new Set(perWindow.flat()).size;
    distinct += used;
    doc.parts.forEach((p, i) => {
      whole.push(recallAt(ranking, p.gold, k));
      windowed.push(recallAt(perWindow[i], p.gold, k));
      equal.push(recallAt(ranking, p.gold, used));
    });
  }
  const random = mulberry32(1);
  return {
    split, k, window, texts: whole.length, documents: docs.length,
    document: bootstrap(whole, random), window_: bootstrap(windowed, random),
    distinctTools: Math.round((distinct / docs.length) * 100) / 100, documentAtEqualCost: bootstrap(equal, random),
  };
}

const pct = (e: Estimate) => `${(e.mean * 100).toFixed(1)} [${(e.low * 100).toFixed(1)}, ${(e.high * 100).toFixed(1)}]`;

function table(rows: readonly Row[], chosen: number): string {
  const lines = [
    `| split | k | window (chars) | texts | recall: document top k | recall: window top k | distinct tools / document (window) | recall: document top n, n = the window's distinct tools |`,
    `|---|---:|---:|---:|---|---|---:|---|`,
    ...rows.map((r) => `| ${r.split} | ${r.k} | ${r.window} | ${r.texts} | ${pct(r.document)} | ${pct(r.window_)} | ${r.distinctTools.toFixed(2)} | ${pct(r.documentAtEqualCost)} |`),
  ];
  const at = (split: string) => rows.filter((r) => r.split === split && r.window === chosen).map((r) => {
    const gain = r.window_.mean - r.documentAtEqualCost.mean;
    return `k ${r.k}: ${r.distinctTools.toFixed(2)} tools per document (${(r.distinctTools / r.k).toFixed(2)}× the document's k, so as many ` +
      `p_i passes), recall ${pct(r.window_)} against ${pct(r.documentAtEqualCost)} for the whole document's top ${r.distinctTools.toFixed(2)} ` +
      `(${gain >= 0 ? '+' : '−'}${(Math.abs(gain) * 100).toFixed(1)} points)`;
  });
  return `${lines.join('\n')}\n\nWindow ${chosen} characters (the best window recall on dev at k 5). ` +
    `Dev: ${at('dev').join('; ')}. Test: ${at('test').join('; ')}.`;
}

function main(): void {
  const requests = readRequests();
  const bm25 = new Bm25Retriever(mathjsSpecs());
  const rows: Row[] = [];
  for (const split of ['dev', 'test']) {
    for (const k of K) for (const window of WINDOWS) rows.push(measure(bm25, requests.filter((r) => r.split === split), split, k, window));
  }
  const dev5 = rows.filter((r) => r.split === 'dev' && r.k === 5);
  const chosen = dev5.reduce((best, r) => (r.window_.mean > best.window_.mean ? r : best)).window;
  const result = { retriever: 'bm25', tools: mathjsSpecs().length, docRequests: DOC_REQUESTS, chosenWindow: chosen, rows };
  writeFileSync(resolve(RETRIEVAL_DIR, 'per-position.json'), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(resolve(RETRIEVAL_DIR, 'per-position.md'), `${table(rows, chosen)}\n`);
  console.log(table(rows, chosen));
}

main();
