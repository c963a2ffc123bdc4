/**
 * The retrievers on real tools (the mathjs catalog) and small exact cases: BM25 ranks by the docs' words, the
 * names-only baseline only by names, RRF adds reciprocal ranks, the contrastive projection learns a separable
 * problem, and the stage drops a tool that was not retrieved (a tool with a pre-filter keeps its own verdict).
 */
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../random/mulberry32.ts';
import { mathjsSpecs } from '../tools/catalogs/mathjs/index.ts';
import { Bm25Retriever, RandomRetriever } from './bm25.ts';
import { FusionRetriever, RRF_K } from './fusion.ts';
import { project, trainProjection } from './projection.ts';
import type { ToolRetriever } from './retriever.ts';
import { stem, termsOf } from './terms.ts';
import { nameWords } from './tool-text.ts';

describe('tool retrieval', () => {
  const tools = mathjsSpecs();

  it('terms: camelCase split, stop words out, light stems', () => {
    expect(termsOf('What is the greatest common divisor of 84 and 126?')).toEqual(['greatest', 'common', 'divisor']); // numbers match docs' examples by chance
    expect(termsOf('setIsSubset')).toEqual(['set', 'subset']);
    expect(['divisors', 'rounded', 'matrices', 'roots'].map(stem)).toEqual(['divisor', 'round', 'matric', 'root']);
    expect(nameWords('stirlingS2')).toBe('stirling s 2');
  });

  it('BM25 over the docs finds tools by their descriptions; the names-only baseline does not', async () => {
    const bm25 = new Bm25Retriever(tools);
    expect((await bm25.rank('What is the determinant of this matrix?', 3))[0].name).toBe('det');
    expect((await bm25.rank('the standard deviation of the scores', 3))[0].name).toBe('std');
    const top = await bm25.rank('greatest common divisor of 84 and 126', 5);
    expect(top.map((r) => r.name)).toContain('gcd');
    expect(top.every((r, i) => i === 0 || r.score <= top[i - 1].score)).toBe(true);
    const names = new Bm25Retriever(tools, { namesOnly: true });
    expect(names.name).toBe('names');
    expect(await names.rank('the standard deviation of the scores', 3)).toEqual([]); // "std" is no word of the text
    expect(await bm25.rank('the of and', 5)).toEqual([]); // stop words only
  });

  it('random: a seeded permutation, the same for the same seed', async () => {
    const names = tools.map((t) => t.name);
    const a = await new RandomRetriever(names, mulberry32(3).next).rank('x', 5);
    expect(a).toEqual(await new RandomRetriever(names, mulberry32(3).next).rank('x', 5));
    expect(new Set(a.map((r) => r.name)).size).toBe(5);
  });

  it('fusion: Σ weight / (k + rank)', async () => {
    const fixed = (name: string, order: string[]): ToolRetriever => ({ name, scale: '10 − rank', rank: async (_t, top) => order.slice(0, top).map((n, i) => ({ name: n, score: 10 - i })) });
    const fusion = new FusionRetriever([{ retriever: fixed('a', ['x', 'y', 'z']), weight: 1 }, { retriever: fixed('b', ['z', 'y', 'x']), weight: 0.5 }], ['x', 'y', 'z']);
    const ranked = await fusion.rank('t', 3);
    expect(ranked.map((r) => r.name)).toEqual(['x', 'y', 'z']);
    expect(ranked[0].score).toBeCloseTo(1 / (RRF_K + 1) + 0.5 / (RRF_K + 3), 12);
    expect(ranked[1].score).toBeCloseTo(1.5 / (RRF_K + 2), 12);
    expect(fusion.scale).toBe(`reciprocal-rank fusion Σ weight / (${RRF_K} + rank) of a × 1, b × 0.5: 0 to ${(1.5 / (RRF_K + 1)).toFixed(4)} (first in every part)`);
  });

  it('expanded: a tool is found by a word only its expansion holds; without it, not at all', async () => {
    const text = 'What is the zorbl of 3, 7 and 11?'; // planted: a word in no tool's docs
    expect(await new Bm25Retriever(tools).rank(text, 5)).toEqual([]);
    const expanded = new Bm25Retriever(tools, { expansions: new Map([['mean', 'zorbl ; norm']]) });
    expect(expanded.name).toBe('expanded');
    expect((await expanded.rank(text, 5)).map((r) => r.name)).toEqual(['mean']);
    expect(expanded.scale).toMatch(/WordNet expansion/);
  });

  it('the contrastive projection learns which texts go with which tool', () => {
    const random = mulberry32(7);
    // 8 tools in a 16-dim space; each text is its tool's vector turned by a fixed rotation of the first 8 dims plus noise.
    const toolVectors = Array.from({ length: 8 }, () => Float32Array.from({ length: 16 }, () => random.normal()));
    const turn = (v: Float32Array) => Float32Array.from(v, (x, i) => (i < 8 ? -v[(i + 4) % 8] : x) + 0.1 * random.normal());
    const pairs = toolVectors.flatMap((v, tool) => Array.from({ length: 4 }, () => ({ text: turn(v), tool })));
    const accuracy = (p: { input: number; output: number; weights: Float32Array }) => {
      const projected = toolVectors.map((v) => project(p, v));
      return toolVectors.filter((v, tool) => {
        const q = project(p, turn(v));
        const scores = projected.map((t) => t.reduce((s, x, i) => s + x * q[i], 0));
        return scores.indexOf(Math.max(...scores)) === tool;
      }).length / toolVectors.length;
    };
    const identity = { input: 16, output: 16, weights: Float32Array.from({ length: 256 }, (_, i) => (i % 17 === 0 ? 1 : 0)) };
    const { projection, losses } = trainProjection(pairs, toolVectors, random, { steps: 300, batch: 8, width: 16 });
    expect(losses.at(-1)!).toBeLessThan(losses[0] / 2);
    expect(accuracy(projection)).toBe(1);
    expect(accuracy(identity)).toBeLessThan(1);
  });
});
