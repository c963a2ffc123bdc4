/**
 * A toolkens file: ToolkenGPT's W_τ, one row of C floats per tool, in the safetensors layout (8-byte little-endian
 * header length, a JSON header, then the raw little-endian float32 data), so any safetensors reader opens it:
 *
 *   header  { "__metadata__": { "tools": "[\"QA\",\"Calculator\"]", "model": …, "modelDigest": …, … },
 *             "toolkens": { "dtype": "F32", "shape": [n_tools, C], "data_offsets": [0, 4 · n_tools · C] } }
 *
 * The metadata values are strings (the format's rule); `tools` is a JSON array of names in row order. Isomorphic.
 */

export interface Toolkens {
  /** One name per row, in row order (the registry's tool names). */
  tools: string[];
  /** C: the width of the model's LM-head input. */
  hiddenSize: number;
  /** [tools.length × C] row-major: row k is W_τ[k]; the toolken's logit is h · W_τ[k]. */
  weights: Float32Array;
  /** String metadata: model, modelDigest, training settings and results. */
  meta: Record<string, string>;
}

const TENSOR = 'toolkens';
/** Largest header this reader accepts (a toolkens header is a few kilobytes). */
const MAX_HEADER_BYTES = 1 << 20;

export function encodeToolkens(t: Toolkens): Uint8Array {
  const n = t.tools.length;
  if (t.weights.length !== n * t.hiddenSize) throw new Error(`toolkens: ${t.weights.length} weights for ${n} tools × ${t.hiddenSize}`);
  const header = {
    __metadata__: { ...t.meta, tools: JSON.stringify(t.tools), hiddenSize: String(t.hiddenSize) },
    [TENSOR]: { dtype: 'F32', shape: [n, t.hiddenSize], data_offsets: [0, 4 * n * t.hiddenSize] },
  };
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8; // the data starts 8-byte aligned (spaces pad the header)
  if (padded !== json.length) json = new TextEncoder().encode(JSON.stringify(header) + ' '.repeat(padded - json.length));
  const out = new Uint8Array(8 + json.length + 4 * t.weights.length);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  for (let i = 0; i < t.weights.length; i++) view.setFloat32(8 + json.length + 4 * i, t.weights[i], true);
  return out;
}

/** Reads a toolkens file; throws one line naming what is wrong. */
export function decodeToolkens(bytes: Uint8Array, what = 'toolkens file'): Toolkens {
  const fail = (why: string): never => {
    throw new Error(`${what}: ${why} (expected a safetensors file written by \`toolformer toolkens train\`)`);
  };
  if (bytes.length < 8) fail('shorter than the 8-byte header length');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerBytes = Number(view.getBigUint64(0, true));
  if (headerBytes > MAX_HEADER_BYTES || 8 + headerBytes > bytes.length) fail(`header length ${headerBytes} does not fit the file's ${bytes.length} bytes`);
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + headerBytes))) as Record<string, unknown>;
  } catch (error) {
    return fail(`the header is not JSON (${(error as Error).message})`);
  }
  const meta = (header.__metadata__ ?? {}) as Record<string, unknown>;
  const tensor = header[TENSOR] as { dtype?: unknown; shape?: unknown; data_offsets?: unknown } | undefined;
  if (!tensor) fail(`no "${TENSOR}" tensor`);
  if (tensor!.dtype !== 'F32') fail(`dtype ${String(tensor!.dtype)}, not F32`);
  const shape = tensor!.shape as number[];
  const offsets = tensor!.data_offsets as number[];
  if (!Array.isArray(shape) || shape.length !== 2 || !shape.every((d) => Number.isInteger(d) && d > 0)) fail('shape is not [n_tools, C]');
  const [n, C] = shape;
  if (!Array.isArray(offsets) || offsets[0] !== 0 || offsets[1] !== 4 * n * C) fail(`data_offsets ${JSON.stringify(offsets)} do not match the shape [${n}, ${C}]`);
  const start = 8 + headerBytes;
  if (start + 4 * n * C > bytes.length) fail(`the data is cut short (${bytes.length - start} of ${4 * n * C} bytes)`);
  let tools: unknown;
  try {
    tools = JSON.parse(String(meta.tools ?? ''));
  } catch {
    tools = null;
  }
  if (!Array.isArray(tools) || tools.length !== n || !tools.every((t) => typeof t === 'string')) fail(`metadata "tools" is not a JSON array of ${n} names`);
  const names = tools as string[];
  const twice = names.find((t, i) => names.indexOf(t) !== i);
  if (twice !== undefined) fail(`metadata "tools" names ${JSON.stringify(twice.slice(0, 40))} twice`);
  const weights = new Float32Array(n * C);
  for (let i = 0; i < weights.length; i++) {
    weights[i] = view.getFloat32(start + 4 * i, true);
    // NaN or ±Infinity in a row makes its toolken never (or always) win, whatever the bias: a broken file.
    if (!Number.isFinite(weights[i])) fail(`weight ${Math.floor(i / C)},${i % C} (tool ${JSON.stringify(names[Math.floor(i / C)].slice(0, 40))}) is ${weights[i]}, not a finite number`);
  }
  const strings = Object.fromEntries(Object.entries(meta).filter(([k]) => k !== 'tools' && k !== 'hiddenSize').map(([k, v]) => [k, String(v)]));
  return { tools: tools as string[], hiddenSize: C, weights, meta: strings };
}

/** The toolken logits h · W_τᵀ (+ bias), one per tool. */
export function toolkenLogits(t: Pick<Toolkens, 'weights' | 'hiddenSize' | 'tools'>, hidden: Float32Array, bias = 0, offset = 0): Float32Array {
  const C = t.hiddenSize;
  const out = new Float32Array(t.tools.length);
  for (let k = 0; k < out.length; k++) {
    let dot = 0;
    for (let c = 0; c < C; c++) dot += hidden[offset + c] * t.weights[k * C + c];
    out[k] = dot + bias;
  }
  return out;
}
