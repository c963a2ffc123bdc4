/**
 * What the real-size bench's parts share (real-size.ts, real-size-peer.ts, real-size-annotate.ts): where the model
 * is written, its shape, the rows and workloads the scorer and the peer both run, and the bare session of the limit.
 */
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { DTYPE_FILES, type Dtype } from '../core/lm/dtypes.ts';
import type { LlamaConfig } from '../onnx-export/llama-weights.ts';

const ROOT = resolve(import.meta.dirname, '../..');
export const REAL_SIZE_DIR = join(ROOT, 'out/bench/smollm2-135m-shape');

/** SmolLM2-135M's config.json, shape for shape. */
export const SMOLLM2_135M: LlamaConfig = {
  modelType: 'llama',
  vocabSize: 49152,
  hiddenSize: 576,
  intermediateSize: 1536,
  numLayers: 30,
  numHeads: 9,
  numKvHeads: 3,
  headDim: 64,
  maxPositions: 8192,
  rmsNormEps: 1e-5,
  ropeTheta: 100000,
  attentionBias: false,
  tieWordEmbeddings: true,
};

/** The scorer's workloads: the losses read each row's last LOSS_READS positions; p_i reads PROBE_ID everywhere. */
export const LOSS_READS = 5;
export const PROBE_ID = 256;

/** Token ids of R rows × L (within the byte tokenizer's 266 ids). */
export const rowIds = (rows: number, length: number) => Array.from({ length: rows }, (_, r) => Array.from({ length }, (_, t) => (r * 31 + t * 7) % 256));

/** A bare InferenceSession on the dtype's file, as the limit runs it (1 intra-op thread, all optimisations). */
export const rawSession = (dtype: Dtype) =>
  ort.InferenceSession.create(join(REAL_SIZE_DIR, 'onnx', DTYPE_FILES[dtype]), {
    intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
  });

/** The raw forward's feeds for rows of equal length: no padding, an empty KV cache of the graph's own type. */
export function rawForwardFeeds(session: ort.InferenceSession, ids: number[][]): Record<string, ort.Tensor> {
  const [rows, length] = [ids.length, ids[0].length];
  const feeds: Record<string, ort.Tensor> = {
    input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.flat(), BigInt), [rows, length]),
    attention_mask: new ort.Tensor('int64', new BigInt64Array(rows * length).fill(1n), [rows, length]),
    position_ids: new ort.Tensor('int64', BigInt64Array.from({ length: rows * length }, (_, i) => BigInt(i % length)), [rows, length]),
  };
  for (const meta of session.inputMetadata) {
    if (!meta.name.startsWith('past_key_values')) continue;
    const dims = [rows, SMOLLM2_135M.numKvHeads, 0, SMOLLM2_135M.headDim];
    feeds[meta.name] = 'type' in meta && meta.type === 'float16' ? new ort.Tensor('float16', new Uint16Array(0), dims) : new ort.Tensor('float32', new Float32Array(0), dims);
  }
  return feeds;
}
