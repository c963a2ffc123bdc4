/**
 * The pipeline's tool-retrieval hook (PipelineParts.retrieveTools): a tool without a pre-filter that is not among a
 * document's retrieved tools skips it (`not_retrieved`, counted like a pre-filter drop), the retrieved ones go on
 * and the document's work carries the ranking; a tool with a pre-filter keeps its own verdict whatever is retrieved.
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../default-config.ts';
import { planConfig } from '../run-plan.ts';
import { catalogNamed } from '../tools/catalogs/index.ts';
import type { Doc } from '../document.ts';
import { addDoc, emptyStats } from '../stats.ts';
import { adderTool } from '../testing/adder-tool.ts';
import { FakeLM } from '../testing/fake-lm.ts';
import { createPipelineParts } from './parts.ts';
import { prefilterStage } from './stages.ts';
import type { DocWork } from './work.ts';

const text = 'We had 40 and then 2 more, so the total is 42 today.';
const specs = [
  adderTool({ name: 'AddA' }),
  adderTool({ name: 'AddB' }),
  adderTool({ name: 'AddC', prefilter: () => ({ pass: true, kind: 'numbers' }) }),
];

async function prefiltered(retrieved: string[] | undefined): Promise<DocWork> {
  const parts = createPipelineParts({ lm: new FakeLM(() => undefined), resources: {}, specs });
  const asked: string[] = [];
  if (retrieved) {
    parts.retrieveTools = async (t) => {
      asked.push(t);
      return retrieved.map((name, i) => ({ name, score: 1 - i / 10 }));
    };
  }
  const config = defaultConfig({ tools: ['AddA', 'AddB', 'AddC'] }, specs);
  async function* docs(): AsyncIterable<Doc> {
    yield { id: 'd', text };
  }
  for await (const work of prefilterStage(parts, config)(docs())) {
    if (retrieved) expect(asked).toEqual([text]);
    return work;
  }
  throw new Error('no work');
}

describe('tool retrieval in the pre-filter stage', () => {
  it('without retrieval every tool goes on', async () => {
    const work = await prefiltered(undefined);
    expect(work.tools).toEqual(['AddA', 'AddB', 'AddC']);
    expect(work.retrieved).toBeUndefined();
  });

  it('a tool not retrieved skips the document; one with a pre-filter keeps its verdict', async () => {
    const work = await prefiltered(['AddB']);
    expect(work.tools).toEqual(['AddB', 'AddC']);
    expect(work.skippedKind).toEqual({ AddA: 'not_retrieved' });
    expect(work.skipped.AddA).toBe('not among the 1 tools retrieved for the document');
    expect(work.retrieved).toEqual([{ name: 'AddB', score: 1 }]);
    const stats = emptyStats(['AddA', 'AddB', 'AddC']);
    addDoc(stats, work);
    expect(stats.tools.AddA.prefilterDrops).toEqual({ not_retrieved: 1 });
  });

  it('the run plan: --catalog adds its tools after the built-in ones; --tool-retrieval k with the default retriever', async () => {
    const flags = { seed: 0, batchSize: 16, concurrency: 4, lmProposals: true };
    const config = planConfig({ ...flags, tools: 'QA', catalog: 'mathjs', toolRetrieval: 5 }, undefined, await catalogNamed('mathjs').load());
    expect(config.tools.slice(0, 3)).toEqual(['QA', 'bignumber', 'bigint']);
    expect(config.tools).toHaveLength(216);
    expect(config.thresholds.gcd).toEqual({ tauS: 0.05, tauF: 1, k: 5, m: 5 });
    expect(config).toMatchObject({ catalog: 'mathjs', toolRetrieval: { k: 5, retriever: 'fusion' } });
    expect(planConfig(flags)).not.toHaveProperty('toolRetrieval');
    expect(() => planConfig({ ...flags, toolRetrieval: 0 })).toThrow('--tool-retrieval must be a positive integer (got 0): pass --tool-retrieval 5');
    expect(() => planConfig({ ...flags, retriever: 'bm25' })).toThrow('--retriever applies to --tool-retrieval <k> only');
    expect(() => planConfig({ ...flags, toolRetrieval: 3, retriever: 'tfidf' })).toThrow('--retriever: unknown retriever "tfidf" (known: fusion, bm25, expanded, dense, vectors, vector-fusion)');
    expect(() => planConfig({ ...flags, catalog: 'numpy' })).toThrow('--catalog: unknown catalog "numpy" (known: mathjs)');
  });
});
