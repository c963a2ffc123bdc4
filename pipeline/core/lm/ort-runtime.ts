/**
 * The slice of onnxruntime-common that both onnxruntime-node and onnxruntime-web provide (the same
 * InferenceSession / Tensor API), so core code takes either module as a parameter, plus small tensor helpers.
 */

export interface OrtTensor {
  readonly type: string;
  readonly dims: readonly number[];
  /** The host data; throws for a tensor that lives on a device (`location` "gpu-buffer"). */
  readonly data: unknown;
  /** "cpu", or "gpu-buffer" for an output a WebGPU session keeps on the device (preferredOutputLocation). */
  readonly location?: string;
  /** Copies a device tensor's data to the host; `releaseData` frees the device buffer after the copy. */
  getData?(releaseData?: boolean): Promise<unknown>;
  /** Frees the tensor's data (a device tensor's GPU buffer). */
  dispose?(): void;
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
  /** Present in onnxruntime ≥ 1.21; read for the logits type. */
  readonly outputMetadata?: readonly OrtValueMetadata[];
  run(feeds: Record<string, OrtTensor>, fetches: readonly string[]): Promise<Record<string, OrtTensor>>;
  release(): Promise<void>;
}

export interface OrtModule {
  InferenceSession: { create(model: Uint8Array, options?: Record<string, unknown>): Promise<OrtSession> };
  Tensor: {
    new (type: 'float32', data: Float32Array, dims: readonly number[]): OrtTensor;
    /** float16 data as IEEE half bits (Node 20 has no Float16Array). */
    new (type: 'float16', data: Uint16Array, dims: readonly number[]): OrtTensor;
    new (type: 'int64', data: BigInt64Array, dims: readonly number[]): OrtTensor;
    new (type: 'bool', data: Uint8Array, dims: readonly number[]): OrtTensor;
  };
}

/** Whether `t` lives on a device (a WebGPU gpu-buffer output) rather than in host memory. */
export const onDevice = (t: OrtTensor): boolean => t.location !== undefined && t.location !== 'cpu';

/** Frees the device buffers among `tensors` (host tensors are left to the garbage collector). */
export function disposeOnDevice(tensors: readonly OrtTensor[] | null): void {
  for (const t of tensors ?? []) if (onDevice(t)) t.dispose?.();
}

/** `t` in host memory: a device tensor is copied down and its GPU buffer freed; a host tensor is returned as is. */
export async function toHost(ort: OrtModule, t: OrtTensor): Promise<OrtTensor> {
  if (!onDevice(t)) return t;
  if (!t.getData) throw new Error(`a ${t.location} tensor without getData()`);
  const data = (await t.getData(true)) as FloatData;
  return floatTensor(ort, t, data, t.dims);
}

export const toInt64 = (ids: readonly number[]) => BigInt64Array.from(ids, (id) => BigInt(id));

type FloatData = Float32Array | Uint16Array;
/** A float32 or float16 tensor of the same type as `like`, holding `data`. */
const floatTensor = (ort: OrtModule, like: OrtTensor, data: FloatData, dims: readonly number[]): OrtTensor =>
  like.type === 'float16' ? new ort.Tensor('float16', data as Uint16Array, dims) : new ort.Tensor('float32', data as Float32Array, dims);
const allocLike = (data: FloatData, length: number): FloatData => (data instanceof Uint16Array ? new Uint16Array(length) : new Float32Array(length));

/** [1, ...rest] → [n, ...rest] by repetition (float32 or float16). */
export function tileRows(ort: OrtModule, t: OrtTensor, n: number): OrtTensor {
  if (n === 1) return t;
  const data = t.data as FloatData;
  const out = allocLike(data, data.length * n);
  for (let r = 0; r < n; r++) out.set(data, r * data.length);
  return floatTensor(ort, t, out, [n, ...t.dims.slice(1)]);
}

/** Keeps rows `rows` (in order) of a [B, ...] float32 or float16 tensor. */
export function selectRows(ort: OrtModule, t: OrtTensor, rows: readonly number[]): OrtTensor {
  const data = t.data as FloatData;
  const size = data.length / t.dims[0];
  const out = allocLike(data, rows.length * size);
  rows.forEach((r, i) => out.set(data.subarray(r * size, (r + 1) * size), i * size));
  return floatTensor(ort, t, out, [rows.length, ...t.dims.slice(1)]);
}
