/**
 * Tensor storage types a GGUF file from this project holds, their byte sizes and encoders: float32, float16
 * (round to nearest even), and Q8_0 (blocks of 32 values along a row: a float16 scale d = max|x| / 127, then 32
 * int8 q = roundf(x / d), half away from zero; value = d · q — ggml-quants.c quantize_row_q8_0_ref, float32 math).
 */
import { halfToFloat } from '../core/lm/ort-graph-io.ts';
import { toHalfBits } from '../onnx/onnx-edit.ts';

/** ggml_type ids (ggml.h). */
export const GgmlType = { F32: 0, F16: 1, Q8_0: 8 } as const;
export type GgmlType = (typeof GgmlType)[keyof typeof GgmlType];

export const Q8_0_BLOCK = 32;
const Q8_0_BLOCK_BYTES = 2 + Q8_0_BLOCK;

/** Bytes of a tensor of `dims` (GGUF order) stored as `type`. */
export function tensorBytes(type: GgmlType, dims: readonly number[]): number {
  const count = dims.reduce((a, b) => a * b, 1);
  if (type === GgmlType.F32) return 4 * count;
  if (type === GgmlType.F16) return 2 * count;
  if (dims[0] % Q8_0_BLOCK !== 0) throw new Error(`gguf: Q8_0 needs rows of a multiple of ${Q8_0_BLOCK} values, got ${dims[0]}`);
  return (count / Q8_0_BLOCK) * Q8_0_BLOCK_BYTES;
}

/** The stored bytes of `values` (row-major, rows of `rowLength` values) as `type`. */
export function encodeTensor(type: GgmlType, values: Float32Array, rowLength: number): Uint8Array {
  if (type === GgmlType.F32) return new Uint8Array(values.buffer.slice(values.byteOffset, values.byteOffset + values.byteLength));
  if (type === GgmlType.F16) {
    const half = new Uint16Array(values.length);
    for (let i = 0; i < values.length; i++) half[i] = toHalfBits(values[i]);
    return new Uint8Array(half.buffer);
  }
  return quantizeQ8_0(values, rowLength);
}

/** Q8_0 blocks of `values`; every row (`rowLength` values) must hold whole blocks. */
export function quantizeQ8_0(values: Float32Array, rowLength: number): Uint8Array {
  if (rowLength % Q8_0_BLOCK !== 0 || values.length % rowLength !== 0) {
    throw new Error(`gguf: Q8_0 needs rows of a multiple of ${Q8_0_BLOCK} values, got ${rowLength}`);
  }
  const blocks = values.length / Q8_0_BLOCK;
  const out = new Uint8Array(blocks * Q8_0_BLOCK_BYTES);
  const view = new DataView(out.buffer);
  const f = Math.fround;
  for (let b = 0; b < blocks; b++) {
    const x = values.subarray(b * Q8_0_BLOCK, (b + 1) * Q8_0_BLOCK);
    let amax = 0;
    for (let j = 0; j < Q8_0_BLOCK; j++) amax = Math.max(amax, Math.abs(x[j]));
    const d = f(amax / 127);
    const id = d !== 0 ? f(1 / d) : 0;
    const at = b * Q8_0_BLOCK_BYTES;
    view.setUint16(at, toHalfBits(d), true);
    for (let j = 0; j < Q8_0_BLOCK; j++) {
      const v = f(x[j] * id);
      view.setInt8(at + 2 + j, Math.sign(v) * Math.floor(Math.abs(v) + 0.5));
    }
  }
  return out;
}

/** The values a Q8_0 tensor stands for (d · q per block, d read back from float16): for tests and error reports. */
export function dequantizeQ8_0(bytes: Uint8Array): Float32Array {
  const blocks = bytes.length / Q8_0_BLOCK_BYTES;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(blocks * Q8_0_BLOCK);
  for (let b = 0; b < blocks; b++) {
    const d = halfToFloat(Uint16Array.of(view.getUint16(b * Q8_0_BLOCK_BYTES, true)))[0];
    for (let j = 0; j < Q8_0_BLOCK; j++) out[b * Q8_0_BLOCK + j] = d * view.getInt8(b * Q8_0_BLOCK_BYTES + 2 + j);
  }
  return out;
}

/** The file-level dtype a user names, and the `general.file_type` (llama_ftype) it writes. */
export type GgufDtype = 'f32' | 'f16' | 'q8_0';
export const GGUF_DTYPES: readonly GgufDtype[] = ['f32', 'f16', 'q8_0'];
export const FILE_TYPE: Record<GgufDtype, number> = { f32: 0, f16: 1, q8_0: 7 };

/**
 * The type one tensor is stored as under `dtype`, by convert_hf_to_gguf's rules: 1-D tensors, norms, position
 * embeddings and anything not a `.weight` stay float32; the other matrices take the file's dtype, Q8_0 falling back
 * to float16 when a row is not whole blocks.
 */
export function storedType(dtype: GgufDtype, name: string, dims: readonly number[]): GgmlType {
  if (dtype === 'f32' || dims.length <= 1 || name.endsWith('_norm.weight') || !name.endsWith('.weight') || name.startsWith('position_embd.')) {
    return GgmlType.F32;
  }
  if (dtype === 'f16') return GgmlType.F16;
  return dims[0] % Q8_0_BLOCK === 0 ? GgmlType.Q8_0 : GgmlType.F16;
}
