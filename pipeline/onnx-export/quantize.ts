/**
 * Smaller variants of an fp32 ONNX decoder, written from JavaScript (ONNX Runtime's Python quantizer is not
 * available here), named as Hugging Face's ONNX repositories name them:
 *
 *   onnx/model_fp16.onnx       every float weight stored as float16, with a Cast back to float32 in front of its
 *                              users. Inputs, outputs and the KV cache stay float32, so the scorer loads it unchanged;
 *                              ONNX Runtime folds the Casts at session creation (half the file, fp32 compute).
 *   onnx/model_quantized.onnx  dynamic int8 quantization as onnxruntime.quantization.quantize_dynamic does it:
 *                              each MatMul with a constant weight W [K, N] becomes
 *                              DynamicQuantizeLinear(x) → MatMulInteger(x_q, W_q) → Cast → Mul(x_scale · w_scale),
 *                              W_q int8 symmetric per output column (w_scale [N] = max|W[:, n]| / 64: 7-bit weights,
                              quantize_dynamic's reduce_range, see S8_MAX). ONNX Runtime
 *                              fuses the pattern into its DynamicQuantizeMatMul kernel. A weight shared with another
 *                              user (the tied embedding: Gather and LM head) stays float32: quantizing it would store
 *                              it twice, and the scorer's in-graph head needs the head MatMul intact.
 *
 *   npx tsx pipeline/onnx-export/quantize.ts <model-dir> [fp16,q8]      writes the variants next to onnx/model.onnx
 *
 * Isomorphic (no node:* outside the command-line entry).
 */
import type { onnx as P } from 'onnx-proto';
import { S8_MAX } from '../onnx/int8-range.ts';
import { bytesOf as bytes, decodeModel, encodeModel, floatData, INT, noteDoc, replaceConstantMatMuls, T, toHalfArray } from '../onnx/onnx-edit.ts';

export { toHalfBits } from '../onnx/onnx-edit.ts';

/** The fp16 variant: float initializers (matrices) stored as float16, Cast to float32 at use. */
export function convertToFp16(model: Uint8Array): Uint8Array {
  const proto = decodeModel(model);
  const graph = proto.graph!;
  const casts: P.INodeProto[] = [];
  graph.initializer = (graph.initializer ?? []).map((t) => {
    if (t.dataType !== T.FLOAT || (t.dims ?? []).length < 2) return t; // matrices only: norms, biases, RoPE frequencies stay fp32
    const half = toHalfArray(floatData(t));
    const name = `${t.name}_fp16`;
    casts.push({ opType: 'Cast', name: `cast_${t.name}`, input: [name], output: [t.name!], attribute: [{ name: 'to', type: INT, i: T.FLOAT }] });
    return { name, dims: t.dims, dataType: T.FLOAT16, rawData: bytes(half) };
  });
  graph.node = [...casts, ...(graph.node ?? [])];
  noteDoc(proto, 'fp16 weights: pipeline/onnx/quantize.ts');
  return encodeModel(proto);
}

/**
 * How a dynamic-quant variant stores a MatMul weight W [K, N]:
 * - q8 (model_quantized.onnx, this project's own): int8 in [-S8_MAX, S8_MAX], symmetric, one scale per output
 *   column, no weight zero point; a weight shared with another node stays float32.
 * - int8 (model_int8.onnx): onnxruntime quantize_dynamic(weight_type=QInt8, reduce_range=True) — int8 in
 *   [-S8_MAX, S8_MAX], symmetric, one scale and a zero point for the whole tensor; every MatMul with a constant
 *   weight, the tied LM head too.
 * - uint8 (model_uint8.onnx): quantize_dynamic(weight_type=QUInt8) — uint8 asymmetric over [min(0, W), max(0, W)],
 *   one scale and zero point per tensor.
 */
export type DynamicScheme = 'q8' | 'int8' | 'uint8';

interface QuantizedWeight {
  data: Int8Array | Uint8Array;
  scale: Float32Array;
  /** Weight zero point (MatMulInteger's 4th input), absent for q8. */
  zeroPoint?: Int8Array | Uint8Array;
}

function quantizeWeight(data: Float32Array, K: number, N: number, scheme: DynamicScheme): QuantizedWeight {
  if (scheme === 'q8') {
    const q = new Int8Array(K * N);
    const scale = new Float32Array(N);
    for (let n = 0; n < N; n++) {
      let max = 0;
      for (let k = 0; k < K; k++) max = Math.max(max, Math.abs(data[k * N + n]));
      scale[n] = max > 0 ? max / S8_MAX : 1;
      for (let k = 0; k < K; k++) q[k * N + n] = Math.max(-S8_MAX, Math.min(S8_MAX, Math.round(data[k * N + n] / scale[n])));
    }
    return { data: q, scale };
  }
  let [min, max] = [0, 0];
  for (const v of data) [min, max] = [Math.min(min, v), Math.max(max, v)];
  if (scheme === 'int8') {
    const s = Math.max(-min, max) / S8_MAX || 1;
    return { data: Int8Array.from(data, (v) => Math.max(-S8_MAX, Math.min(S8_MAX, Math.round(v / s)))), scale: Float32Array.of(s), zeroPoint: Int8Array.of(0) };
  }
  const s = (max - min) / 255 || 1;
  const zp = Math.max(0, Math.min(255, Math.round(-min / s)));
  return { data: Uint8Array.from(data, (v) => Math.max(0, Math.min(255, Math.round(v / s) + zp))), scale: Float32Array.of(s), zeroPoint: Uint8Array.of(zp) };
}

/**
 * Dynamic quantization as onnxruntime.quantization.quantize_dynamic writes it: each MatMul with a constant weight
 * becomes DynamicQuantizeLinear(x) → MatMulInteger(x_q, W_q, x_zero[, W_zero]) → Cast → Mul(x_scale · w_scale).
 */
export function quantizeDynamic(model: Uint8Array, scheme: DynamicScheme): Uint8Array {
  const proto = decodeModel(model);
  const count = replaceConstantMatMuls(proto.graph!, { shared: scheme !== 'q8' }, (node, w, index) => {
    const id = `${scheme}_${index}`;
    const { K, N } = w;
    const q = quantizeWeight(w.data, K, N, scheme);
    const type = q.data instanceof Int8Array ? T.INT8 : T.UINT8;
    const initializers: P.ITensorProto[] = [
      { name: `${id}_w`, dims: [K, N], dataType: type, rawData: bytes(q.data) },
      { name: `${id}_w_scale`, dims: q.scale.length === 1 && scheme !== 'q8' ? [] : [q.scale.length], dataType: T.FLOAT, rawData: bytes(q.scale) },
    ];
    if (q.zeroPoint) initializers.push({ name: `${id}_w_zero`, dims: [], dataType: type, rawData: bytes(q.zeroPoint) });
    const x = node.input![0];
    const nodes: P.INodeProto[] = [
      { opType: 'DynamicQuantizeLinear', name: `${id}_quantize`, input: [x], output: [`${id}_x`, `${id}_x_scale`, `${id}_x_zero`] },
      {
        opType: 'MatMulInteger',
        name: `${id}_matmul`,
        input: [`${id}_x`, `${id}_w`, `${id}_x_zero`, ...(q.zeroPoint ? [`${id}_w_zero`] : [])],
        output: [`${id}_int32`],
      },
      { opType: 'Cast', name: `${id}_cast`, input: [`${id}_int32`], output: [`${id}_float`], attribute: [{ name: 'to', type: INT, i: T.FLOAT }] },
      { opType: 'Mul', name: `${id}_scales`, input: [`${id}_x_scale`, `${id}_w_scale`], output: [`${id}_scale`] },
      { opType: 'Mul', name: `${id}_dequantize`, input: [`${id}_float`, `${id}_scale`], output: node.output! },
    ];
    return { nodes, initializers };
  });
  const what = scheme === 'q8' ? 'int8 dynamic quantization' : `${scheme} dynamic quantization (per tensor)`;
  noteDoc(proto, `${what} of ${count} MatMuls: pipeline/onnx/quantize.ts`);
  return encodeModel(proto);
}

/** The q8 variant (see the file comment). */
export const quantizeDynamicInt8 = (model: Uint8Array): Uint8Array => quantizeDynamic(model, 'q8');

/** `--dtype` → the converter that makes that file from onnx/model.onnx. */
export const CONVERTERS = { fp16: { file: 'model_fp16.onnx', convert: convertToFp16 }, q8: { file: 'model_quantized.onnx', convert: quantizeDynamicInt8 } };

if (typeof process !== 'undefined' && process.argv[1]?.endsWith('quantize.ts')) {
  const { readFileSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: npx tsx pipeline/onnx-export/quantize.ts <model-dir> [fp16,q8]');
  const which = (process.argv[3] ?? 'fp16,q8').split(',') as (keyof typeof CONVERTERS)[];
  const model = readFileSync(join(dir, 'onnx/model.onnx'));
  for (const dtype of which) {
    const { file, convert } = CONVERTERS[dtype];
    const out = convert(model);
    writeFileSync(join(dir, 'onnx', file), out);
    console.log(`wrote ${join(dir, 'onnx', file)}: ${out.length} bytes (fp32 ${model.length})`);
  }
}
