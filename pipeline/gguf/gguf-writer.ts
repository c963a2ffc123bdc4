/**
 * The GGUF container (version 3, little-endian), as llama.cpp's gguf-py writes it: the header (magic "GGUF",
 * version, tensor count, metadata count), the metadata key/value pairs, one info record per tensor (name, dims, ggml
 * type, offset), padding to `general.alignment` (32 bytes), then each tensor's bytes at its offset, each padded to
 * the alignment. Isomorphic: the header is built in memory (it holds no weights), the tensor bytes are produced one
 * tensor at a time by the caller's `encode`, so a writer never holds more than one tensor.
 *
 * Dims are GGUF's order, fastest-varying first: a row-major [rows, cols] matrix is dims [cols, rows].
 */
import { encodeTensor, tensorBytes, type GgmlType } from './gguf-tensors.ts';

/** GGUF metadata value types (gguf-py GGUFValueType). */
const VT = { U32: 4, I32: 5, F32: 6, BOOL: 7, STRING: 8, ARRAY: 9, U64: 10 } as const;

export type GgufValue =
  | { type: 'u32'; value: number }
  | { type: 'i32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'string[]'; value: readonly string[] }
  | { type: 'i32[]'; value: readonly number[] }
  | { type: 'f32[]'; value: readonly number[] };

export const u32 = (value: number): GgufValue => ({ type: 'u32', value });
export const f32 = (value: number): GgufValue => ({ type: 'f32', value });
export const str = (value: string): GgufValue => ({ type: 'string', value });
export const bool = (value: boolean): GgufValue => ({ type: 'bool', value });

/** One tensor to write: its GGUF name and dims, the ggml type to store, and how to get its float32 values. */
export interface GgufTensor {
  name: string;
  /** Fastest-varying first (GGUF order). */
  dims: readonly number[];
  type: GgmlType;
  /** The row-major float32 values, [dims reversed]; called once, when the tensor is written. */
  values(): Float32Array | Promise<Float32Array>;
}

export const GGUF_ALIGNMENT = 32;
const pad = (n: number) => (GGUF_ALIGNMENT - (n % GGUF_ALIGNMENT)) % GGUF_ALIGNMENT;

/** A growable little-endian byte buffer for the header. */
class ByteSink {
  private buf = new Uint8Array(1 << 16);
  private view = new DataView(this.buf.buffer);
  length = 0;
  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u8(x: number) { this.room(1); this.view.setUint8(this.length, x); this.length += 1; }
  u32(x: number) { this.room(4); this.view.setUint32(this.length, x, true); this.length += 4; }
  i32(x: number) { this.room(4); this.view.setInt32(this.length, x, true); this.length += 4; }
  f32(x: number) { this.room(4); this.view.setFloat32(this.length, x, true); this.length += 4; }
  u64(x: number) { this.room(8); this.view.setBigUint64(this.length, BigInt(x), true); this.length += 8; }
  string(s: string) {
    const bytes = new TextEncoder().encode(s);
    this.u64(bytes.length);
    this.room(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }
  zeros(n: number) { this.room(n); this.buf.fill(0, this.length, this.length + n); this.length += n; }
  bytes(): Uint8Array { return this.buf.slice(0, this.length); }
}

function writeValue(out: ByteSink, v: GgufValue): void {
  const array = (type: number, n: number) => { out.u32(VT.ARRAY); out.u32(type); out.u64(n); };
  switch (v.type) {
    case 'u32': out.u32(VT.U32); out.u32(v.value); break;
    case 'i32': out.u32(VT.I32); out.i32(v.value); break;
    case 'f32': out.u32(VT.F32); out.f32(v.value); break;
    case 'bool': out.u32(VT.BOOL); out.u8(v.value ? 1 : 0); break;
    case 'string': out.u32(VT.STRING); out.string(v.value); break;
    case 'string[]': array(VT.STRING, v.value.length); for (const s of v.value) out.string(s); break;
    case 'i32[]': array(VT.I32, v.value.length); for (const x of v.value) out.i32(x); break;
    case 'f32[]': array(VT.F32, v.value.length); for (const x of v.value) out.f32(x); break;
  }
}

/**
 * The header: everything before the first tensor's bytes, padded to the alignment. Tensor offsets are laid out in
 * the order given, each tensor's bytes padded to the alignment.
 */
export function ggufHeader(metadata: ReadonlyMap<string, GgufValue>, tensors: readonly GgufTensor[]): Uint8Array {
  const out = new ByteSink();
  out.u32(0x46554747); // "GGUF" read as a little-endian u32
  out.u32(3);
  out.u64(tensors.length);
  out.u64(metadata.size);
  for (const [key, value] of metadata) {
    out.string(key);
    writeValue(out, value);
  }
  let offset = 0;
  for (const t of tensors) {
    out.string(t.name);
    out.u32(t.dims.length);
    for (const d of t.dims) out.u64(d);
    out.u32(t.type);
    out.u64(offset);
    const size = tensorBytes(t.type, t.dims);
    offset += size + pad(size);
  }
  out.zeros(pad(out.length));
  return out.bytes();
}

/**
 * Writes a GGUF file through `write` (called with the header, then each tensor's bytes and padding, in order):
 * at most one tensor's values and bytes are alive at a time.
 */
export async function writeGguf(
  metadata: ReadonlyMap<string, GgufValue>,
  tensors: readonly GgufTensor[],
  write: (chunk: Uint8Array) => Promise<void>,
): Promise<void> {
  await write(ggufHeader(metadata, tensors));
  for (const t of tensors) {
    const values = await t.values();
    const count = t.dims.reduce((a, b) => a * b, 1);
    if (values.length !== count) throw new Error(`gguf: ${t.name} has ${values.length} values, dims [${t.dims}] need ${count}`);
    const bytes = encodeTensor(t.type, values, t.dims[0]);
    await write(bytes);
    if (pad(bytes.length) > 0) await write(new Uint8Array(pad(bytes.length)));
  }
}
