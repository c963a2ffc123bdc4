/**
 * Small helpers for rewriting a decoded ONNX model (onnx-proto): float data of an initializer, half-precision bits,
 * the constant weight of a MatMul (an initializer, or the Transpose of one), dead-node pruning, and opset imports.
 * Shared by the variant writers (../onnx-export/: quantize.ts, float16.ts, matmul-nbits.ts, bnb4.ts; external-data.ts
 * here). Isomorphic.
 */
import onnxProto from 'onnx-proto';
import type { onnx as P } from 'onnx-proto';

export const { onnx } = onnxProto;
export const T = onnx.TensorProto.DataType;
export const INT = onnx.AttributeProto.AttributeType.INT;
/** Microsoft's contrib-op domain (MatMulNBits, MatMulBnb4), at the opset ONNX Runtime registers them. */
export const MS_DOMAIN = 'com.microsoft';

export const decodeModel = (model: Uint8Array): P.ModelProto => onnx.ModelProto.decode(model);
export const encodeModel = (proto: P.IModelProto): Uint8Array => onnx.ModelProto.encode(proto).finish();
export const bytesOf = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
export const intAttr = (name: string, i: number): P.IAttributeProto => ({ name, type: INT, i });

const scratch = new Float32Array(1);
const scratchBits = new Uint32Array(scratch.buffer);

/** float32 → IEEE half bits, round to nearest even (values past 65504 become ±Infinity). */
export function toHalfBits(x: number): number {
  scratch[0] = x;
  const u = scratchBits[0];
  const sign = (u >>> 16) & 0x8000;
  const exp = (u >>> 23) & 0xff;
  let mant = u & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // Inf / NaN
  const e = exp - 127 + 15;
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
  return sign | half;
}

/** Float32 values as half bits. */
export function toHalfArray(data: Float32Array): Uint16Array {
  const half = new Uint16Array(data.length);
  for (let i = 0; i < data.length; i++) half[i] = toHalfBits(data[i]);
  return half;
}

/** The float32 values of a FLOAT initializer (raw_data or float_data). */
export function floatData(t: P.ITensorProto): Float32Array {
  if (t.rawData && t.rawData.length) {
    const raw = t.rawData;
    return new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  }
  return Float32Array.from(t.floatData ?? []);
}

/** Drops nodes whose outputs nobody reads and initializers nobody uses. */
export function pruneDead(graph: P.IGraphProto): void {
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

/** Adds `domain` at `version` to the model's opset imports (once). */
export function importDomain(proto: P.IModelProto, domain: string, version = 1): void {
  const imports = (proto.opsetImport ??= []);
  if (!imports.some((o) => (o.domain ?? '') === domain)) imports.push({ domain, version });
}

/** Appends a note to the model's doc string. */
export function noteDoc(proto: P.IModelProto, note: string): void {
  proto.docString = `${proto.docString ?? ''} [${note}]`.trim();
}

/** A MatMul's constant right-hand side, as [K, N] row-major (K = input features, N = output features). */
export interface ConstantWeight {
  data: Float32Array;
  K: number;
  N: number;
  /** The initializer the weight comes from (direct, or under a Transpose). */
  source: string;
}

/** Indexes a graph for finding MatMuls whose weight is constant. */
export function constantWeights(graph: P.IGraphProto, options: { shared: boolean }) {
  const inits = new Map((graph.initializer ?? []).map((t) => [t.name!, t]));
  const producer = new Map<string, P.INodeProto>();
  for (const n of graph.node ?? []) for (const o of n.output ?? []) producer.set(o, n);
  const uses = new Map<string, number>();
  for (const n of graph.node ?? []) for (const i of n.input ?? []) uses.set(i, (uses.get(i) ?? 0) + 1);
  const usable = (name: string) => options.shared || (uses.get(name) ?? 0) === 1;

  /**
   * The weight of a MatMul node when its second input is a 2-D float initializer or the 2-D Transpose of one;
   * `shared: false` skips an initializer with other users (the tied embedding, read by Gather and the LM head).
   */
  return (node: P.INodeProto): ConstantWeight | null => {
    if (node.opType !== 'MatMul' || node.input?.length !== 2) return null;
    const value = node.input[1];
    const direct = inits.get(value);
    if (direct) {
      if (direct.dataType !== T.FLOAT || direct.dims?.length !== 2 || !usable(value)) return null;
      return { data: floatData(direct), K: Number(direct.dims[0]), N: Number(direct.dims[1]), source: value };
    }
    const tr = producer.get(value);
    const src = tr?.opType === 'Transpose' ? inits.get(tr.input![0]) : undefined;
    if (!tr || !src || src.dataType !== T.FLOAT || src.dims?.length !== 2 || !usable(src.name!)) return null;
    const [R, C] = [Number(src.dims[0]), Number(src.dims[1])];
    const from = floatData(src);
    const data = new Float32Array(R * C);
    for (let r = 0; r < R; r++) for (let c = 0; c < C; c++) data[c * R + r] = from[r * C + c];
    return { data, K: C, N: R, source: src.name! };
  };
}

/** What replaces one MatMul: the nodes that compute its output, and the initializers they read. */
export interface MatMulReplacement {
  nodes: P.INodeProto[];
  initializers: P.ITensorProto[];
}

/**
 * Replaces every MatMul whose weight is constant (see constantWeights) by `replace`'s nodes, in place, adds their
 * initializers and drops what nothing reads any more. `index` counts the replaced MatMuls. Returns their number.
 */
export function replaceConstantMatMuls(
  graph: P.IGraphProto,
  options: { shared: boolean },
  replace: (node: P.INodeProto, weight: ConstantWeight, index: number) => MatMulReplacement,
): number {
  const weightOf = constantWeights(graph, options);
  const nodes: P.INodeProto[] = [];
  const added: P.ITensorProto[] = [];
  let count = 0;
  for (const node of graph.node ?? []) {
    const w = weightOf(node);
    if (!w) {
      nodes.push(node);
      continue;
    }
    const r = replace(node, w, count++);
    nodes.push(...r.nodes);
    added.push(...r.initializers);
  }
  graph.node = nodes;
  graph.initializer = [...(graph.initializer ?? []), ...added];
  pruneDead(graph);
  return count;
}

/** Marks an initializer as external data: `length` bytes at `offset` of the file `location`; raw_data cleared. */
export function setExternal(t: P.ITensorProto, location: string, offset: number, length: number): void {
  t.rawData = new Uint8Array(0);
  t.dataLocation = onnx.TensorProto.DataLocation.EXTERNAL;
  t.externalData = [
    { key: 'location', value: location },
    { key: 'offset', value: String(offset) },
    { key: 'length', value: String(length) },
  ];
}
