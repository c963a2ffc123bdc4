/**
 * Retrieval metrics with binary relevance (a tool is gold or not): NDCG@k = DCG@k / IDCG@k with DCG = Σ rel_i /
 * log2(i + 1), ranks i from 1 (ToolLLM Table 2 reports NDCG@1 and @5); recall@k = gold tools in the top k / gold
 * tools. Intervals: percentile bootstrap over requests (resampled with replacement), seeded.
 */
import type { Random } from '../../random/mulberry32.ts';

export function ndcgAt(ranking: readonly string[], gold: ReadonlySet<string>, k: number): number {
  let dcg = 0;
  ranking.slice(0, k).forEach((name, i) => {
    if (gold.has(name)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, gold.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

export function recallAt(ranking: readonly string[], gold: ReadonlySet<string>, k: number): number {
  return gold.size === 0 ? 0 : ranking.slice(0, k).filter((n) => gold.has(n)).length / gold.size;
}

export interface Estimate {
  mean: number;
  /** 95 % percentile bootstrap interval. */
  low: number;
  high: number;
}

export function bootstrap(values: readonly number[], random: Random, resamples = 2000): Estimate {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const means: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += values[Math.floor(random.next() * n)];
    means.push(s / n);
  }
  means.sort((a, b) => a - b);
  return { mean, low: means[Math.floor(0.025 * resamples)], high: means[Math.ceil(0.975 * resamples) - 1] };
}
