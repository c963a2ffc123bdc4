/**
 * Tool retrieval (ToolLLM's API retriever, Qin et al. 2023): given a text — a document, the window before a
 * position, an instruction — rank the run's tools so that each document goes only through the few that fit it.
 * One interface, several retrievers: BM25 over the tools' documentation (bm25.ts), the same with each tool's
 * WordNet expansion as a fourth field ("expanded", bm25.ts `expansions`), a dense retriever over the run's
 * own LM's hidden states with a contrastively trained projection (dense.ts), a soft word match over pretrained word
 * vectors (vectors.ts), and reciprocal-rank fusions (fusion.ts): expanded with dense ("fusion"), expanded with vectors
 * ("vector-fusion"). Each is built once per run from the tools (its index), then asked many times.
 */

/** The retrievers a run can pick (--retriever), and the default: the best on the labelled set's dev split. */
export const RETRIEVERS: readonly string[] = ['fusion', 'bm25', 'expanded', 'dense', 'vectors', 'vector-fusion'];
export const DEFAULT_RETRIEVER = 'fusion';

/** One tool in a ranking; `score` is the retriever's own (higher is better; not comparable across retrievers). */
export interface RankedTool {
  name: string;
  score: number;
}

export interface ToolRetriever {
  /** As shown in rankings and result tables: "bm25", "dense", "fusion", "names", "random". */
  readonly name: string;
  /** What a score means and its range, in one phrase (printed beside every ranking: scores are not comparable across retrievers). */
  readonly scale: string;
  /** The `top` best tools for `text`, best first; ties broken by the tools' order in the index. */
  rank(text: string, top: number): Promise<RankedTool[]>;
}

/** The first `top` of `scores` (one per tool, in index order), best first; a stable sort keeps index order on ties. */
export function topOf(names: readonly string[], scores: ArrayLike<number>, top: number): RankedTool[] {
  const order = names.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
  return order.slice(0, Math.max(0, top)).map((i) => ({ name: names[i], score: scores[i] }));
}
