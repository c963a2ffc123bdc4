/**
 * BM25 over the tools' text (minisearch's BM25+ scoring): fields name (in words), description and documentation,
 * with boosts. `namesOnly` indexes the names alone: the baseline a retriever must beat to show that the
 * documentation helps. `expansions` adds a fourth field per tool — the words a lexicon gives for what the tool does
 * (WordNet: pipeline/data/tool-expansion.ts) — and names the retriever "expanded".
 */
import MiniSearch, { type SearchOptions } from 'minisearch';
import { type RankedTool, type ToolRetriever, topOf } from './retriever.ts';
import { termsOf } from './terms.ts';
import { type RetrievableTool, toolText } from './tool-text.ts';

/** Field boosts, chosen on the dev split of the labelled set (pipeline/eval/retrieval/). */
export const BM25_BOOSTS = { nameWords: 3, description: 2, documentation: 1 } as const;

export interface Bm25Options {
  /** Index only the names (in words). @default false */
  namesOnly?: boolean;
  /** Field boosts. @default BM25_BOOSTS */
  boosts?: { nameWords: number; description: number; documentation: number };
  /** minisearch's BM25+ parameters and term matching (for tuning on dev). @default minisearch's: k 1.2, b 0.7, d 0.5, exact terms */
  search?: Pick<SearchOptions, 'bm25' | 'prefix' | 'fuzzy'>;
  /** Tool name → expansion text, indexed as the field "expansion" (tools without one get none). @default none */
  expansions?: ReadonlyMap<string, string>;
  /** Boost of the expansion field. @default EXPANSION_BOOST */
  expansionBoost?: number;
}

/** Boost of the expansion field, chosen on the dev splits (pipeline/eval/retrieval/expansion-tuning.md). */
export const EXPANSION_BOOST = 1;

export class Bm25Retriever implements ToolRetriever {
  readonly name: string;
  readonly scale: string;
  private readonly index: MiniSearch;
  private readonly names: string[];

  constructor(tools: readonly RetrievableTool[], options: Bm25Options = {}) {
    const expanded = !options.namesOnly && options.expansions !== undefined;
    this.name = options.namesOnly ? 'names' : expanded ? 'expanded' : 'bm25';
    this.scale = `BM25 score: the text's words found in the tool's ${options.namesOnly ? 'name' : expanded ? 'docs and WordNet expansion' : 'docs'}, weighted by rarity and field; 0 = no shared word, no upper bound; compare within one ranking only`;
    const fields = options.namesOnly ? ['nameWords'] : ['nameWords', 'description', 'documentation', ...(expanded ? ['expansion'] : [])];
    const boost = options.namesOnly ? {} : { ...(options.boosts ?? BM25_BOOSTS), ...(expanded ? { expansion: options.expansionBoost ?? EXPANSION_BOOST } : {}) };
    this.names = tools.map((t) => t.name);
    this.index = new MiniSearch({
      fields,
      idField: 'id',
      // Documents and queries arrive as space-joined terms (termsOf): minisearch's own tokenizer would not split
      // camelCase or stem.
      tokenize: (text) => text.split(' ').filter(Boolean),
      processTerm: (term) => term,
      searchOptions: { boost, ...options.search },
    });
    this.index.addAll(tools.map((tool, id) => {
      const text = toolText(tool);
      return { id, nameWords: termsOf(text.nameWords).join(' '), description: termsOf(text.description).join(' '), documentation: termsOf(text.documentation).join(' '),
        ...(expanded ? { expansion: termsOf(options.expansions!.get(tool.name) ?? '').join(' ') } : {}) };
    }));
  }

  async rank(text: string, top: number): Promise<RankedTool[]> {
    return this.rankNow(text, top);
  }

  /** Synchronous (BM25 needs no model). Only tools sharing a term with `text`: fewer than `top` when few do. */
  rankNow(text: string, top: number): RankedTool[] {
    const scores = new Float64Array(this.names.length);
    const terms = termsOf(text);
    if (terms.length > 0) {
      for (const hit of this.index.search(terms.join(' '), { combineWith: 'OR' })) scores[hit.id as number] = hit.score;
    }
    return topOf(this.names, scores, top).filter((r) => r.score > 0);
  }
}

/** Uniformly random rankings from a seed (the floor any retriever must clear). */
export class RandomRetriever implements ToolRetriever {
  readonly name = 'random';
  readonly scale = 'uniform random in [0, 1)';
  constructor(
    private readonly names: readonly string[],
    private readonly random: () => number,
  ) {}

  async rank(_text: string, top: number): Promise<RankedTool[]> {
    return topOf(this.names, this.names.map(() => this.random()), top);
  }
}
