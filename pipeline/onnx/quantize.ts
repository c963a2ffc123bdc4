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
 *                              W_q int8 symmetric per output column (w_scale [N] = max|W[:, n]| / 127). ONNX Runtime
 *                              fuses the pattern into its DynamicQuantizeMatMul kernel. A weight shared with another
 *                              user (the tied embedding: Gather and LM head) stays float32: quantizing it would store
 *                              it twice, and the scorer's in-graph head needs the head MatMul intact.
 *
 *   npx tsx pipeline/onnx/quantize.ts <model-dir> [fp16,q8]      writes the variants next to onnx/model.onnx
 *
 * Isomorphic (no node:* outside the command-line entry).
 */
import onnxProto from 'onnx-proto';
import type { onnx as P } from 'onnx-proto';

const { onnx } = onnxProto;
const T = onnx.TensorProto.DataType;

/** float32 → IEEE half bits, round to nearest even (values past 65504 become ±Infinity). */
export function toHalfBits(x: number): number {
  const f = new Float32Array([x]);
  const u = new Uint32Array(f.buffer)[0];
  const sign = (u >>> 16) & 0x8000;
  const exp = (u >>> 23) & 0xff;
  let mant = u & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // Inf / NaN
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow
  if (e <= 0) {
    // subnormal half (or zero)
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++; // may carry into the exponent: still correct
  e = half >>> 10;
  return sign | half;
}

function floatData(t: P.ITensorProto): Float32Array {
  if (t.rawData && t.rawData.length) {
    const raw = t.rawData;
    return new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  }
  return Float32Array.from(t.floatData ?? []);
}
const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Drops nodes whose outputs nobody reads and initializers nobody uses. */
function pruneDead(graph: P.IGraphProto): void {
  const outputs = new Set((graph.output ?? []).map((o) => o.name!));
  for (;;) {
    const used = new Set([...outputs, ...(graph.node ?? []).flatMap((n) => n.input ?? [])]);
    const before = graph.node!.length;
    graph.node = graph.node!.filter((n) => (n.output ?? []).some((o) => used.has(o)));
    if (graph.node.length === before) {
      graph.initializer = (graph.initializer ?? []).filter((t) => used.has(t.name!));
      return;
    }
  }
}

/** The fp16 variant: float initializers (matrices) stored as float16, Cast to float32 at use. */
export function convertToFp16(model: Uint8Array): Uint8Array {
  const proto = onnx.ModelProto.decode(model);
  const graph = proto.graph!;
  const casts: P.INodeProto[] = [];
  graph.initializer = (graph.initializer ?? []).map((t) => {
    if (t.dataType !== T.FLOAT || (t.dims ?? []).length < 2) return t; // matrices only: norms, biases, RoPE frequencies stay fp32
    const data = floatData(t);
    const half = new Uint16Array(data.length);
    for (let i = 0; i < data.length; i++) half[i] = toHalfBits(data[i]);
    const name = `${t.name}_fp16`;
    casts.push({ opType: 'Cast', name: `cast_${t.name}`, input: [name], output: [t.name!], attribute: [{ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: T.FLOAT }] });
    return { name, dims: t.dims, dataType: T.FLOAT16, rawData: bytes(half) };
  });
  graph.node = [...casts, ...(graph.node ?? [])];
  proto.docString = `${proto.docString ?? ''} [fp16 weights: pipeline/onnx/quantize.ts]`.trim();
  return onnx.ModelProto.encode(proto).finish();
}

/** The q8 variant (see the file comment). */
export function quantizeDynamicInt8(model: Uint8Array): Uint8Array {
  const proto = onnx.ModelProto.decode(model);
  const graph = proto.graph!;
  const inits = new Map((graph.initializer ?? []).map((t) => [t.name!, t]));
  const producer = new Map<string, P.INodeProto>();
  for (const n of graph.node ?? []) for (const o of n.output ?? []) producer.set(o, n);
  const uses = new Map<string, number>();
  for (const n of graph.node ?? []) for (const i of n.input ?? []) uses.set(i, (uses.get(i) ?? 0) + 1);
  const INT = onnx.AttributeProto.AttributeType.INT;

  /** The weight as [K, N] row-major when `value` is a float initializer or the 2-D Transpose of one used once. */
  const constantWeight = (value: string): { data: Float32Array; K: number; N: number } | null => {
    const direct = inits.get(value);
    if (direct) {
      if (direct.dataType !== T.FLOAT || direct.dims?.length !== 2 || (uses.get(value) ?? 0) !== 1) return null;
      return { data: floatData(direct), K: Number(direct.dims[0]), N: Number(direct.dims[1]) };
    }
    const tr = producer.get(value);
    const src = tr?.opType === 'Transpose' ? inits.get(tr.input![0]) : undefined;
    if (!tr || !src || src.dataType !== T.FLOAT || src.dims?.length !== 2 || (uses.get(src.name!) ?? 0) !== 1) return null;
    const [R, Cc] = [Number(src.dims[0]), Number(src.dims[1])];
    const from = floatData(src);
    const data = new Float32Array(R * Cc);
    for (let r = 0; r < R; r++) for (let c = 0; c < Cc; c++) data[c * R + r] = from[r * Cc + c];
    return { data, K: Cc, N: R };
  };

  const nodes: P.INodeProto[] = [];
  const added: P.ITensorProto[] = [];
  let count = 0;
  for (const node of graph.node ?? []) {
    const w = node.opType === 'MatMul' && node.input?.length === 2 ? constantWeight(node.input[1]) : null;
    if (!w) {
      nodes.push(node);
      continue;
    }
    const id = `q8_${count++}`;
    const { data, K, N } = w;
    const q = new Int8Array(K * N);
    const scale = new Float32Array(N);
    for (let n = 0; n < N; n++) {
      let max = 0;
      for (let k = 0; k < K; k++) max = Math.max(max, Math.abs(data[k * N + n]));
      scale[n] = max > 0 ? max / 127 : 1;
      for (let k = 0; k < K; k++) q[k * N + n] = Math.max(-127, Math.min(127, Math.round(data[k * N + n] / scale[n])));
    }
    added.push(
      { name: `${id}_w`, dims: [K, N], dataType: T.INT8, rawData: bytes(q) },
      { name: `${id}_w_scale`, dims: [N], dataType: T.FLOAT, rawData: bytes(scale) },
    );
    const x = node.input![0];
    nodes.push(
      { opType: 'DynamicQuantizeLinear', name: `${id}_quantize`, input: [x], output: [`${id}_x`, `${id}_x_scale`, `${id}_x_zero`] },
      { opType: 'MatMulInteger', name: `${id}_matmul`, input: [`${id}_x`, `${id}_w`, `${id}_x_zero`], output: [`${id}_int32`] },
      { opType: 'Cast', name: `${id}_cast`, input: [`${id}_int32`], output: [`${id}_float`], attribute: [{ name: 'to', type: INT, i: T.FLOAT }] },
      { opType: 'Mul', name: `${id}_scales`, input: [`${id}_x_scale`, `${id}_w_scale`], output: [`${id}_scale`] },
      { opType: 'Mul', name: `${id}_dequantize`, input: [`${id}_float`, `${id}_scale`], output: node.output! },
    );
  }
  graph.node = nodes;
  graph.initializer = [...(graph.initializer ?? []), ...added];
  pruneDead(graph);
  proto.docString = `${proto.docString ?? ''} [int8 dynamic quantization of ${count} MatMuls: pipeline/onnx/quantize.ts]`.trim();
  return onnx.ModelProto.encode(proto).finish();
}

/** `--dtype` → the converter that makes that file from onnx/model.onnx. */
export const CONVERTERS = { fp16: { file: 'model_fp16.onnx', convert: convertToFp16 }, q8: { file: 'model_quantized.onnx', convert: quantizeDynamicInt8 } };

if (typeof process !== 'undefined' && process.argv[1]?.endsWith('quantize.ts')) {
  const { readFileSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: npx tsx pipeline/onnx/quantize.ts <model-dir> [fp16,q8]');
  const which = (process.argv[3] ?? 'fp16,q8').split(',') as (keyof typeof CONVERTERS)[];
  const model = readFileSync(join(dir, 'onnx/model.onnx'));
  for (const dtype of which) {
    const { file, convert } = CONVERTERS[dtype];
    const out = convert(model);
    writeFileSync(join(dir, 'onnx', file), out);
    console.log(`wrote ${join(dir, 'onnx', file)}: ${out.length} bytes (fp32 ${model.length})`);
  }
}
