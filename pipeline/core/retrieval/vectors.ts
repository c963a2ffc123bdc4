/**
 * The "vectors" retriever (issue 47 item 4): general word knowledge from pretrained word vectors (GloVe, trimmed:
 * word-vectors.ts), so that "average" meets "mean" and "left over" meets "remainder" without either word in the other's
 * text. A soft BM25: each content word q of the text (terms.ts's stop words and numbers dropped; not stemmed — the
 * vectors are for whole words) finds its best cosine among each field of a tool's words, and
 *
 *   score(tool) = Σ_q w_q · Σ_f boost_f · max(0, max_{d ∈ field f} cos(q, d) − floor)  /  Σ_q w_q
 *
 * with w = a / (a + p(q)), Arora et al.'s (2017) smooth inverse frequency, p(q) from the word's frequency rank r by
 * Zipf's law (p = 1 / (r · H), H ≈ ln N + 0.58) — the vectors' own list is frequency-ordered, so no corpus counts are
 * needed; words without a vector count nothing. The fields are a tool's name in words, its description's prose, its
 * documentation (category, examples, see-also) and, given one, its WordNet expansion (bm25.ts `expansions`).
 *
 * Word vectors have hubs: a tool whose docs hold many common words ("not", "left", "split", "size") comes close to
 * any text. So each tool's score is read against its own background — its scores when the texts are the catalog's
 * own descriptions (no request is read): minus their mean, divided by their spread (a z-score per tool).
 * Settings chosen on the dev splits (pipeline/eval/retrieval/vector-tuning.md).
 */
import { type RankedTool, type ToolRetriever, topOf } from './retriever.ts';
import { splitWords, STOP_WORDS } from './terms.ts';
import { descriptionProse as prose, type RetrievableTool, toolText } from './tool-text.ts';
import { dot, type WordVectors } from './word-vectors.ts';

export interface VectorFieldBoosts {
  nameWords: number;
  description: number;
  documentation: number;
  expansion: number;
}

export interface VectorOptions {
  /** Field boosts (0 = the field unused). */
  boosts: VectorFieldBoosts;
  /** Cosines at or below this count nothing (unrelated words sit around 0.1–0.3 in GloVe 100d). */
  floor: number;
  /** SIF's a: smaller weighs frequent words down harder. */
  sif: number;
  /** Each tool's score against its background (the catalog's descriptions as texts): as is, minus its mean, or as a z-score. */
  background: 'none' | 'mean' | 'z-score';
}

/**
 * Chosen on the dev splits (pipeline/eval/retrieval/vector-tuning.md; mean of labelled and blind dev NDCG@5): the
 * z-score background 41.3 against 40.0 (minus the mean) and 34.6 (none) at their best; equal field boosts.
 */
export const VECTOR_OPTIONS: VectorOptions = { boosts: { nameWords: 1, description: 1, documentation: 1, expansion: 1 }, floor: 0.3, sif: 1e-4, background: 'z-score' };

type Field = keyof VectorFieldBoosts;
const FIELDS: readonly Field[] = ['nameWords', 'description', 'documentation', 'expansion'];

/** Content words of a text that have a vector, as row indices, each once. */
export function vectorWords(text: string, vectors: WordVectors): number[] {
  const rows = new Set<number>();
  for (const word of splitWords(text)) {
    if (STOP_WORDS.has(word) || /\d/.test(word)) continue;
    const row = vectors.indexOf(word);
    if (row !== undefined) rows.add(row);
  }
  return [...rows];
}

export class VectorRetriever implements ToolRetriever {
  readonly name = 'vectors';
  readonly scale: string;
  private readonly names: string[];
  /** Every row some tool uses, each once. */
  private readonly rows: number[];
  /** Per tool, per field (FIELDS' order): its words as positions in `rows`. */
  private readonly fields: Uint32Array[][];
  /** H of Zipf's law over the vectors' vocabulary: p(rank r) = 1 / ((r + 1) · H). */
  private readonly zipf: number;
  /** Per tool: the mean and spread of its raw scores over the background texts (0 and 1 when not used). */
  private readonly mean: Float64Array;
  private readonly spread: Float64Array;

  constructor(
    tools: readonly RetrievableTool[],
    private readonly vectors: WordVectors,
    private readonly options: VectorOptions = VECTOR_OPTIONS,
    expansions?: ReadonlyMap<string, string>,
  ) {
    this.scale = `soft word match (GloVe): each text word's best cosine above ${options.floor} with the tool's words, weighted by rarity and field` +
      (options.background === 'z-score' ? ', as a z-score against the tool\'s scores on the catalog\'s descriptions' : options.background === 'mean' ? ', minus the tool\'s mean score on the catalog\'s descriptions' : '') +
      '; no fixed range; compare within one ranking only';
    this.names = tools.map((t) => t.name);
    const words = tools.map((tool) => {
      const text = toolText(tool);
      const source: Record<Field, string> = { nameWords: text.nameWords, description: prose(text.description), documentation: text.documentation, expansion: expansions?.get(tool.name) ?? '' };
      return FIELDS.map((f) => (options.boosts[f] > 0 ? vectorWords(source[f], vectors) : []));
    });
    this.rows = [...new Set(words.flat(2))];
    const column = new Map(this.rows.map((r, i) => [r, i]));
    this.fields = words.map((fields) => fields.map((rows) => Uint32Array.from(rows, (r) => column.get(r)!)));
    this.zipf = Math.log(vectors.words.length) + 0.5772;
    this.mean = new Float64Array(tools.length);
    this.spread = new Float64Array(tools.length).fill(1);
    if (options.background !== 'none') this.measureBackground(tools.map((t) => prose(t.description)));
  }

  /** Each tool's mean (and, for a z-score, spread) of its raw scores over `texts`. */
  private measureBackground(texts: readonly string[]): void {
    const all = texts.map((text) => this.rawScores(text));
    for (let tool = 0; tool < this.names.length; tool++) {
      const xs = all.map((s) => s[tool]);
      this.mean[tool] = xs.reduce((a, x) => a + x, 0) / xs.length;
      if (this.options.background === 'z-score') this.spread[tool] = Math.sqrt(xs.reduce((a, x) => a + (x - this.mean[tool]) ** 2, 0) / xs.length) || 1;
    }
  }

  /** SIF weight of a row: a / (a + p), p = 1 / ((rank + 1) · H). */
  private weight(row: number): number {
    const p = 1 / ((this.vectors.ranks[row] + 1) * this.zipf);
    return this.options.sif / (this.options.sif + p);
  }

  async rank(text: string, top: number): Promise<RankedTool[]> {
    return this.rankNow(text, top);
  }

  /** Synchronous: every tool, best first (a text with no word that has a vector scores every tool at its background). */
  rankNow(text: string, top: number): RankedTool[] {
    const scores = this.rawScores(text).map((x, i) => (x - this.mean[i]) / this.spread[i]);
    return topOf(this.names, scores, top);
  }

  /** Σ_q w_q · Σ_f boost_f · max(0, best cosine − floor) / Σ_q w_q, per tool. */
  private rawScores(text: string): Float64Array {
    const scores = new Float64Array(this.names.length);
    let total = 0;
    for (const q of vectorWords(text, this.vectors)) {
      const w = this.weight(q);
      total += w;
      const qv = this.vectors.vector(q);
      const similarity = Float64Array.from(this.rows, (r) => Math.max(0, dot(qv, this.vectors.vector(r)) - this.options.floor));
      this.fields.forEach((fields, tool) => {
        fields.forEach((columns, f) => {
          let best = 0;
          for (const c of columns) best = Math.max(best, similarity[c]);
          scores[tool] += w * this.options.boosts[FIELDS[f]] * best;
        });
      });
    }
    if (total > 0) for (let i = 0; i < scores.length; i++) scores[i] /= total;
    return scores;
  }
}
