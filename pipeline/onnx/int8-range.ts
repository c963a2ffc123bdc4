/**
 * Does an int8 export use the full 8-bit range in its MatMul weights? On x86 CPUs without AVX-512 VNNI or AVX-VNNI,
 * ONNX Runtime's uint8 × int8 matmul kernels (VPMADDUBSW) add each pair of products into an int16 that saturates:
 * 255 · 127 · 2 overflows 32,767, while 255 · 64 · 2 = 32,640 does not (S8_MAX below: why this project's own
 * writers store 7-bit weights, quantize_dynamic's reduce_range). A full-range file therefore scores differently on
 * such a CPU than in WASM or on a VNNI CPU (measured here: 0.1–4.4 nats on the replicas' calls). uint8 weights go
 * through another kernel (uint8 × uint8, widened first) and are not affected.
 *
 * Isomorphic: the graph comes decoded, the weight bytes through `read` (a file named by its external-data location,
 * an offset, a length). Returns which int8 MatMul weights leave [−S8_MAX, S8_MAX].
 */
import type { onnx as P } from 'onnx-proto';
import { T } from './onnx-edit.ts';

/**
 * The largest int8 weight magnitude: 64, quantize_dynamic's `reduce_range=True` (its QInt8 range [-64, 64]), which
 * Transformers.js's converter also sets and this project's int8 writers keep (pipeline/onnx-export/quantize.ts). On
 * x86 CPUs without AVX-512 VNNI, ONNX Runtime's u8·s8 MatMulInteger kernel (VPMADDUBSW) adds two uint8 × int8
 * products into an int16 that saturates: 255 · 127 · 2 overflows 32,767, 255 · 64 · 2 = 32,640 does not. With full-range weights the same file scored ~0.1–4 nats differently on such a CPU (an AMD
 * EPYC with AVX2) than in WASM or on a VNNI CPU; with 7-bit weights it scores the same everywhere.
 */
export const S8_MAX = 64;

/** Reads `length` bytes at `offset` of the external-data file `location` (a name in the model's folder). */
export type ReadExternal = (location: string, offset: number, length: number) => Promise<Uint8Array>;

/** Ops whose input 1 is the int8 weight multiplied by uint8 activations (MatMulInteger, ORT's fused forms). */
const INT8_WEIGHT_INPUT: Record<string, number> = { MatMulInteger: 1, DynamicQuantizeMatMul: 1, MatMulIntegerToFloat: 1, QLinearMatMul: 3 };

export interface Int8RangeReport {
  /** int8 weights of those ops, checked. */
  weights: number;
  /** Those with a value outside [−S8_MAX, S8_MAX], by initializer name. */
  fullRange: string[];
}

/** The int8 bytes of an initializer, inline (raw_data or int32_data) or external; undefined when it holds none. */
async function int8Values(t: P.ITensorProto, read: ReadExternal): Promise<Int8Array | undefined> {
  if (t.dataLocation === 1) {
    const field = (key: string) => t.externalData?.find((e) => e.key === key)?.value ?? undefined;
    const location = field('location');
    if (!location) return undefined;
    const offset = Number(field('offset') ?? 0);
    const length = Number(field('length') ?? 0);
    const bytes = await read(location, offset, length);
    return new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  if (t.rawData && t.rawData.length > 0) return new Int8Array(t.rawData.buffer, t.rawData.byteOffset, t.rawData.byteLength);
  if (t.int32Data && t.int32Data.length > 0) return Int8Array.from(t.int32Data);
  return undefined;
}

/** The int8 weights of the graph's int8 matmuls (INT8_WEIGHT_INPUT), and which of them leave ±S8_MAX. */
export async function int8WeightRange(model: P.IModelProto, read: ReadExternal): Promise<Int8RangeReport> {
  const graph = model.graph;
  const initializers = new Map((graph?.initializer ?? []).map((t) => [t.name ?? '', t]));
  const names = new Set<string>();
  for (const node of graph?.node ?? []) {
    const input = INT8_WEIGHT_INPUT[node.opType ?? ''];
    const name = input === undefined ? undefined : node.input?.[input];
    if (name && initializers.get(name)?.dataType === T.INT8) names.add(name);
  }
  const fullRange: string[] = [];
  for (const name of names) {
    const values = await int8Values(initializers.get(name)!, read);
    if (values?.some((v) => v > S8_MAX || v < -S8_MAX)) fullRange.push(name);
  }
  return { weights: names.size, fullRange };
}
