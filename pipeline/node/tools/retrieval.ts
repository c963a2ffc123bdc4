/**
 * The tool retrievers of a run, built once: BM25 over the tools' docs, the dense retriever over the run's own LM
 * (loaded here with its hidden-state output) and their fusion; with `all`, also the names-only and random
 * baselines the evaluation compares against. The dense index (centre, trained projection, tool vectors) is cached
 * in memory per (model, tools), so a process builds it once however many documents ask, and — given a cache
 * directory (annotate, retrieve) — on disk (retrieval-cache.ts), so the other processes of a run and later runs read
 * it instead of training again. The evaluation table and the bench pass none: they measure the build.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Bm25Retriever, RandomRetriever } from '../../core/retrieval/bm25.ts';
import { type DenseIndex, DenseRetriever, hiddenStateEncoder } from '../../core/retrieval/dense.ts';
import { FusionRetriever } from '../../core/retrieval/fusion.ts';
import { VectorRetriever } from '../../core/retrieval/vectors.ts';
import { parseWordVectors, type WordVectors } from '../../core/retrieval/word-vectors.ts';
import type { ToolRetriever } from '../../core/retrieval/retriever.ts';
import type { RetrievableTool } from '../../core/retrieval/tool-text.ts';
import type { AnnotateConfig } from '../../core/config.ts';
import type { Device } from '../../core/lm/devices.ts';
import type { HiddenStateLM } from '../../core/lm/lm.ts';
import type { RankedTool } from '../../core/retrieval/retriever.ts';
import type { ToolRegistry } from '../../core/tools/registry.ts';
import { readBoundedFile } from '../../io/bounded-read.ts';
import { mulberry32 } from '../../random/mulberry32.ts';
import { toolformerCacheDir } from '../cli/start-cache.mjs';
import { loadModel } from '../model/load-model.ts';
import { cachedDenseIndex, type IndexCache } from './retrieval-cache.ts';

export interface RetrieverSetOptions {
  /** The run's model folder: its hidden states feed the dense retriever. */
  model: string;
  /** Build the baselines too (names, random). @default false */
  all?: boolean;
  /** Projection training seed. @default 0 */
  seed?: number;
  /** Where the LM runs (`--device`). @default "cpu" */
  device?: Device;
  /** Read the dense index from, and store it in, this on-disk cache. @default none: always built */
  cache?: IndexCache;
}

export interface RetrieverSet {
  retrievers: ToolRetriever[];
  /** The dense index (undefined when the model has no hidden-state output). */
  index?: DenseIndex;
  byName(name: string): ToolRetriever;
}

/**
 * Chosen on the dev split only (NDCG@5, models/default, out of 99 dev requests), with BM25 (terms.ts: stop words and
 * numbers dropped) at 0.654: the dense retriever alone 0.282 (64 wide, 800 steps) and 0.280 (256 wide, 1500 steps);
 * fused at dense weight 0.1 / 0.15 / 0.3 / 0.5: 0.666 / 0.662 / 0.642 / 0.624 (64 wide) and 0.671 / 0.672 / 0.632 /
 * 0.608 (256 wide); digits removed before encoding: lower (0.636 and 0.663 at 0.1). 64 wide, 800 steps, weight 0.1:
 * as good as the best within noise at a quarter of the training cost.
 */
const DENSE_TRAINING = { width: 64, steps: 800 } as const;
const FUSION_DENSE_WEIGHT = 0.1;

const cache = new Map<string, Promise<{ lm: HiddenStateLM; index: DenseIndex }>>();

let expansions: Map<string, string> | undefined;
/** The tools' WordNet expansions (pipeline/data/tool-expansions.json: the built-in tools and the mathjs catalog), read once. */
export function toolExpansions(): ReadonlyMap<string, string> {
  expansions ??= new Map(Object.entries((JSON.parse(readFileSync(new URL('../../data/tool-expansions.json', import.meta.url), 'utf8')) as { expansions: Record<string, string> }).expansions));
  return expansions;
}

/** The bundled word vectors (pipeline/data/word-vectors.bin, 4.7 MB: trimmed GloVe, pipeline/data/word-vectors.ts). */
export const WORD_VECTORS_PATH = fileURLToPath(new URL('../../data/word-vectors.bin', import.meta.url));
const WORD_VECTORS_CAP = 16 << 20;
let vectors: WordVectors | undefined;
/** The bundled word vectors, read and parsed once (~0.1 s). */
export function bundledWordVectors(): WordVectors {
  vectors ??= parseWordVectors(readBoundedFile(WORD_VECTORS_PATH, WORD_VECTORS_PATH, WORD_VECTORS_CAP), WORD_VECTORS_PATH);
  return vectors;
}

/**
 * The weight of "vectors" beside "expanded" (weight 1) in their fusion, chosen on the dev splits
 * (pipeline/eval/retrieval/vector-tuning.md; NDCG@5 labelled / blind dev): 0.5 70.7 / 13.7, 1 71.6 / 16.8, 2 69.9 / 16.6,
 * 3 69.9 / 16.3; expanded alone 68.3 / 11.7, vectors alone 66.9 / 15.7.
 */
export const VECTOR_FUSION_WEIGHT = 1;

/** The retrievers that need no model, by name. */
const WORD_RETRIEVERS: Record<string, (tools: readonly RetrievableTool[]) => ToolRetriever> = {
  bm25: (tools) => new Bm25Retriever(tools),
  expanded: (tools) => new Bm25Retriever(tools, { expansions: toolExpansions() }),
  vectors: (tools) => new VectorRetriever(tools, bundledWordVectors(), undefined, toolExpansions()),
  'vector-fusion': (tools) => vectorFusion(WORD_RETRIEVERS.expanded(tools), WORD_RETRIEVERS.vectors(tools), tools.map((t) => t.name)),
};

/** "vector-fusion": reciprocal-rank fusion of expanded (weight 1) and vectors (`weight`). */
export function vectorFusion(expanded: ToolRetriever, vectors: ToolRetriever, names: readonly string[], weight = VECTOR_FUSION_WEIGHT): FusionRetriever {
  return new FusionRetriever([{ retriever: expanded, weight: 1 }, { retriever: vectors, weight }], names, 'vector-fusion');
}

export async function buildToolRetrievers(tools: readonly RetrievableTool[], options: RetrieverSetOptions): Promise<RetrieverSet> {
  const names = tools.map((t) => t.name);
  const bm25 = WORD_RETRIEVERS.bm25(tools);
  const expanded = WORD_RETRIEVERS.expanded(tools);
  const key = JSON.stringify([options.model, options.seed ?? 0, names, options.device ?? 'cpu']);
  if (!cache.has(key)) {
    cache.set(key, (async () => {
      const lm = (await loadModel(options.model, { device: options.device, lm: { hiddenStates: true } })) as unknown as HiddenStateLM;
      const source = { tools, encoder: hiddenStateEncoder(lm), model: options.model, device: options.device, seed: options.seed ?? 0, training: DENSE_TRAINING };
      return { lm, index: (await cachedDenseIndex(source, options.cache)).index };
    })());
  }
  const { lm, index } = await (cache.get(key) as Promise<{ lm: HiddenStateLM; index: DenseIndex }>);
  const dense = new DenseRetriever(index, hiddenStateEncoder(lm));
  // The fusion's word side is the expanded BM25, chosen on the dev splits (NDCG@5, labelled / blind): fused with bm25
  // 0.666 / 0.017, with expanded 0.702 / 0.114 (expanded alone 0.683 / 0.117, bm25 alone 0.654 / 0.014).
  const fusion = new FusionRetriever([{ retriever: expanded, weight: 1 }, { retriever: dense, weight: FUSION_DENSE_WEIGHT }], names);
  const vectors = WORD_RETRIEVERS.vectors(tools);
  const retrievers: ToolRetriever[] = [fusion, bm25, expanded, dense, vectors, vectorFusion(expanded, vectors, names)];
  if (options.all) retrievers.push(new Bm25Retriever(tools, { namesOnly: true }), new RandomRetriever(names, mulberry32(1).next));
  return {
    retrievers,
    index,
    byName(name) {
      const found = retrievers.find((r) => r.name === name);
      if (!found) throw new Error(`--retriever: unknown retriever ${JSON.stringify(name)} (known: ${retrievers.map((r) => r.name).join(', ')})`);
      return found;
    },
  };
}

/**
 * annotate --tool-retrieval k: the retriever over the run's tools that have no pre-filter (a tool with one keeps its
 * own verdict), built once; each document's searched text gets its top k. BM25 alone needs no model; the dense
 * and fusion retrievers load `model` a second time with its hidden-state output.
 */
export async function toolRetrievalFor(registry: ToolRegistry, config: Pick<AnnotateConfig, 'tools' | 'toolRetrieval' | 'device'>, model: string, cache?: IndexCache): Promise<(text: string) => Promise<RankedTool[]>> {
  const { k, retriever: name } = config.toolRetrieval as NonNullable<AnnotateConfig['toolRetrieval']>;
  const tools = config.tools.map((t) => registry.get(t)).filter((t) => t !== undefined && !t.prefilter) as RetrievableTool[];
  if (tools.length === 0) return async () => [];
  const retriever = await retrieverNamed(tools, name, model, config.device, cache);
  return (text) => retriever.rank(text, k);
}

/** One retriever by name; `bm25` and `expanded` without loading the model. `device`: where the dense retriever's LM runs. */
export async function retrieverNamed(tools: readonly RetrievableTool[], name: string, model: string, device?: Device, cache?: IndexCache): Promise<ToolRetriever> {
  return WORD_RETRIEVERS[name]?.(tools) ?? (await buildToolRetrievers(tools, { model, device, cache })).byName(name);
}

/** The on-disk index cache of annotate and retrieve: $TOOLFORMER_CACHE (or its default), problems on stderr. */
export function userIndexCache(): IndexCache {
  return { dir: toolformerCacheDir(), warn: (line) => console.error(line) };
}
