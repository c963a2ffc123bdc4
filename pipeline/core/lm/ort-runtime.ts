/**
 * The slice of onnxruntime-common that both onnxruntime-node and onnxruntime-web provide (the same
 * InferenceSession / Tensor API), so core code takes either module as a parameter, plus small tensor helpers.
 */

export interface OrtTensor {
  readonly type: string;
  readonly dims: readonly number[];
  readonly data: unknown;
}

export interface OrtValueMetadata {
  readonly name: string;
  readonly isTensor: boolean;
  readonly type?: string;
  readonly shape?: readonly (number | string)[];
}

export interface OrtSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /** Present in onnxruntime ≥ 1.21; used only to check the cache geometry. */
  readonly inputMetadata?: readonly OrtValueMetadata[];
  run(feeds: Record<string, OrtTensor>, fetches: readonly string[]): Promise<Record<string, OrtTensor>>;
  release(): Promise<void>;
}

export interface OrtModule {
  InferenceSession: { create(model: Uint8Array, options?: Record<string, unknown>): Promise<OrtSession> };
  Tensor: {
    new (type: 'float32', data: Float32Array, dims: readonly number[]): OrtTensor;
    new (type: 'int64', data: BigInt64Array, dims: readonly number[]): OrtTensor;
    new (type: 'bool', data: Uint8Array, dims: readonly number[]): OrtTensor;
  };
}

export const toInt64 = (ids: readonly number[]) => BigInt64Array.from(ids, (id) => BigInt(id));

/** [1, ...rest] → [n, ...rest] by repetition. */
export function tileRows(ort: OrtModule, t: OrtTensor, n: number): OrtTensor {
  if (n === 1) return t;
  const data = t.data as Float32Array;
  const out = new Float32Array(data.length * n);
  for (let r = 0; r < n; r++) out.set(data, r * data.length);
  return new ort.Tensor('float32', out, [n, ...t.dims.slice(1)]);
}

/** Keeps rows `rows` (in order) of a [B, ...] float32 tensor. */
export function selectRows(ort: OrtModule, t: OrtTensor, rows: readonly number[]): OrtTensor {
  const data = t.data as Float32Array;
  const size = data.length / t.dims[0];
  const out = new Float32Array(rows.length * size);
  rows.forEach((r, i) => out.set(data.subarray(r * size, (r + 1) * size), i * size));
  return new ort.Tensor('float32', out, [rows.length, ...t.dims.slice(1)]);
}
