/**
 * The explorer's tool ranking, computed in a worker (ui/tool-ranking.ts asks; worker.ts answers `rankTools` without a
 * model): BM25 (pipeline/core/retrieval/bm25.ts, the code `toolformer retrieve --retriever bm25` runs) over the app's
 * tools — the registry's, as the model worker has them — and, when asked, the mathjs catalog's. It runs in a worker
 * started from the model worker's own script, so the tools' modules, mathjs and its docs exist once in the build, in
 * that script's bundle, and a page that ranks fetches them once; on the page they were a second copy of each.
 */
import type { RankedTool } from '../../pipeline/core/retrieval/retriever.ts';
import { TOOL_SPECS } from './tool-specs.ts';

/** A ranking of every tool that shares a word with the text, best first, and what it was ranked among. */
export interface RankedTools {
  ranking: RankedTool[];
  /** How many tools were ranked (built-in, plus the catalog's when asked). */
  tools: number;
  /** What a score means (the retriever's own words). */
  scale: string;
  /** The built-in tools' names (the page lists those outside its top with their place). */
  builtIn: string[];
  /** Time to rank, ms (the retriever built). */
  ms: number;
}

type Ranker = { rankNow(text: string, top: number): RankedTool[]; tools: number; scale: string; builtIn: string[] };

/** One retriever per tool set (built-in only, or with the catalog), built on first use. */
const rankers = new Map<boolean, Promise<Ranker>>();

export async function rankTools(text: string, withCatalog: boolean): Promise<RankedTools> {
  let ranker = rankers.get(withCatalog);
  if (!ranker) {
    ranker = buildRanker(withCatalog);
    ranker.catch(() => rankers.delete(withCatalog));
    rankers.set(withCatalog, ranker);
  }
  const r = await ranker;
  const started = performance.now();
  const ranking = r.rankNow(text, r.tools);
  return { ranking, tools: r.tools, scale: r.scale, builtIn: r.builtIn, ms: performance.now() - started };
}

/** BM25 over the app's tools (the registry's, as the worker has them), then the catalog's when asked. */
async function buildRanker(withCatalog: boolean): Promise<Ranker> {
  const [{ Bm25Retriever }, catalog] = await Promise.all([
    import('../../pipeline/core/retrieval/bm25.ts'),
    withCatalog ? import('../../pipeline/core/tools/catalogs/index.ts').then((c) => c.catalogNamed('mathjs').load()) : [],
  ]);
  const tools = [...TOOL_SPECS, ...catalog];
  const retriever = new Bm25Retriever(tools);
  return { rankNow: (text, top) => retriever.rankNow(text, top), tools: tools.length, scale: retriever.scale, builtIn: TOOL_SPECS.map((t) => t.name) };
}
