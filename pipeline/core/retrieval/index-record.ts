/**
 * The dense retriever's index (dense.ts buildDenseIndex: the tools encoded, a projection trained on their docs) is a
 * deterministic function of the model, the tools' texts, the seed and the training settings, and costs 13–16 CPU s
 * for the mathjs catalog's 215 tools on models/default — paid again by every process of a run (each --workers child,
 * shard and queue worker) and every `toolformer retrieve`. This is the pure half of caching it across processes:
 * what the key is made of, and the record a cache file holds, checked before it is trusted. The Node edge
 * (node/tools/retrieval-cache.ts) hashes the key, picks the directory, reads and writes the files.
 *
 * The numbers are written as JSON numbers: a float32 is exactly a double, JSON writes a double's shortest exact
 * decimal, so a record read back gives the very same floats (rankings equal to the last bit, runs byte-identical).
 */
import type { DenseIndex } from './dense.ts';
import { MAX_ENCODED_TOKENS, toolSideText, trainingTexts } from './dense.ts';
import type { ProjectionOptions } from './projection.ts';
import type { RetrievableTool } from './tool-text.ts';

/**
 * Bump when dense.ts or projection.ts compute another index for the same inputs (the encoder, the training texts,
 * the loss, the optimiser, their defaults): every cached index of an older version is then a miss.
 */
export const DENSE_INDEX_VERSION = 1;

/** A cache file larger than this is not read (215 tools, 64 wide, a 576-wide model: ≈ 1 MB). */
export const MAX_DENSE_INDEX_BYTES = 64 * 1024 * 1024;

/** What identifies the model whose hidden states were encoded (the Node edge measures it). */
export interface IndexModelIdentity {
  /** SHA-256 over the files the model is loaded from (config, tokenizer, the ONNX file and its data). */
  digest: string;
  dtype: string;
  /** Where it ran (another execution provider rounds differently). */
  device: string;
  /** Library versions that can move a hidden state (onnxruntime, this package's tokenizer). */
  versions: Record<string, string>;
}

/** Everything the index depends on, as one JSON-able value (hashed into the key). */
export function denseIndexKeyInputs(tools: readonly RetrievableTool[], model: IndexModelIdentity, seed: number, training: ProjectionOptions) {
  return {
    version: DENSE_INDEX_VERSION,
    maxEncodedTokens: MAX_ENCODED_TOKENS,
    model,
    seed,
    training,
    tools: tools.map((tool) => ({ name: tool.name, side: toolSideText(tool), training: trainingTexts(tool) })),
  };
}

interface IndexRecord {
  version: number;
  key: string;
  names: string[];
  centre: number[];
  projection: { input: number; output: number; weights: number[] };
  tools: number[][];
  losses: number[];
}

/** The cache file's text for `index` under `key`. */
export function denseIndexRecord(key: string, index: DenseIndex): string {
  const record: IndexRecord = {
    version: DENSE_INDEX_VERSION,
    key,
    names: index.names,
    centre: [...index.centre],
    projection: { input: index.projection.input, output: index.projection.output, weights: [...index.projection.weights] },
    tools: index.tools.map((v) => [...v]),
    losses: index.losses,
  };
  return JSON.stringify(record);
}

const finiteNumbers = (xs: unknown, length: number): xs is number[] =>
  Array.isArray(xs) && xs.length === length && xs.every((x) => typeof x === 'number' && Number.isFinite(x));

/**
 * The index a cache file holds, or what is wrong with it (one phrase): it must be this version's, for this `key`,
 * over exactly these tool `names` in this order, with every array of the right length and every number finite.
 */
export function readDenseIndexRecord(text: string, key: string, names: readonly string[]): DenseIndex | string {
  let r: IndexRecord;
  try {
    r = JSON.parse(text) as IndexRecord;
  } catch {
    return 'not JSON';
  }
  if (typeof r !== 'object' || r === null) return 'not an object';
  if (r.version !== DENSE_INDEX_VERSION) return `version ${JSON.stringify(r.version)}, not ${DENSE_INDEX_VERSION}`;
  if (r.key !== key) return 'written for another key';
  if (!Array.isArray(r.names) || r.names.length !== names.length || r.names.some((n, i) => n !== names[i])) return 'other tools';
  const p = r.projection;
  if (typeof p !== 'object' || p === null || !Number.isInteger(p.input) || !Number.isInteger(p.output) || p.input < 1 || p.output < 1) return 'no projection shape';
  if (!finiteNumbers(r.centre, p.input)) return 'a bad centre';
  if (!finiteNumbers(p.weights, p.input * p.output)) return 'bad projection weights';
  if (!Array.isArray(r.tools) || r.tools.length !== names.length || !r.tools.every((v) => finiteNumbers(v, p.output))) return 'bad tool vectors';
  if (!Array.isArray(r.losses) || !r.losses.every((x) => typeof x === 'number')) return 'bad losses';
  return {
    names: [...r.names],
    centre: Float32Array.from(r.centre),
    projection: { input: p.input, output: p.output, weights: Float32Array.from(p.weights) },
    tools: r.tools.map((v) => Float32Array.from(v)),
    losses: r.losses,
  };
}
