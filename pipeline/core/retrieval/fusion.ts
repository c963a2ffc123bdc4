/**
 * Reciprocal rank fusion (Cormack et al. 2009): score(tool) = Σ_r w_r / (k + rank_r(tool)), ranks from 1, over
 * each retriever's full ranking; k = 60 as in the paper. Scores of different retrievers are not comparable; ranks are.
 */
import { type RankedTool, type ToolRetriever, topOf } from './retriever.ts';

export const RRF_K = 60;

export class FusionRetriever implements ToolRetriever {
  readonly name: string;
  readonly scale: string;
  constructor(
    private readonly parts: readonly { retriever: ToolRetriever; weight: number }[],
    /** Every tool, in index order (ties keep it). */
    private readonly names: readonly string[],
    name = 'fusion',
  ) {
    this.name = name;
    const best = parts.reduce((sum, p) => sum + p.weight, 0) / (RRF_K + 1);
    this.scale = `reciprocal-rank fusion Σ weight / (${RRF_K} + rank) of ${parts.map((p) => `${p.retriever.name} × ${p.weight}`).join(', ')}: ` +
      `0 to ${best.toFixed(4)} (first in every part)`;
  }

  async rank(text: string, top: number): Promise<RankedTool[]> {
    const scores = new Float64Array(this.names.length);
    const position = new Map(this.names.map((n, i) => [n, i]));
    for (const { retriever, weight } of this.parts) {
      const ranking = await retriever.rank(text, this.names.length);
      ranking.forEach((r, i) => {
        const at = position.get(r.name);
        if (at !== undefined) scores[at] += weight / (RRF_K + i + 1);
      });
    }
    return topOf(this.names, scores, top);
  }
}
