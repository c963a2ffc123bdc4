/**
 * Each quantizer on one MatMul y = x · W, run by ONNX Runtime's own kernels (MatMulNBits, MatMulBnb4,
 * DynamicQuantizeLinear + MatMulInteger), against x · W' where W' is read back from the stored bytes by this test's
 * own reading of the operator specs — so a wrong nibble order, block layout or zero point fails here — and W' within
 * the format's rounding of W.
 */
import * as ort from 'onnxruntime-node';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { NF4_LEVELS, quantizeBnb4 } from './bnb4.ts';
import { GraphBuilder } from '../onnx/graph-builder.ts';
import { quantizeMatMulNBits } from './matmul-nbits.ts';
import { quantizeDynamic } from './quantize.ts';
import { mulberry32 } from '../random/mulberry32.ts';

const [M, K, N] = [3, 40, 6]; // K is not a multiple of the 32-wide blocks: the last block is padded
const rng = mulberry32(7);
const normal = () => (rng.next() + rng.next() + rng.next() - 1.5) * 1.2;
const W = Float32Array.from({ length: K * N }, normal); // [K, N]
const X = Float32Array.from({ length: M * K }, normal);

function matmulModel(): Uint8Array {
  const g = new GraphBuilder('one_matmul');
  const x = g.input('x', 'float32', [M, K]);
  g.output(g.op('MatMul', [x, g.initializer('w', W, [K, N])], {}, 'y'), 'float32', [M, N]);
  return g.toBytes();
}

async function run(model: Uint8Array): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(model);
  try {
    return (await session.run({ x: new ort.Tensor('float32', X, [M, K]) })).y.data as Float32Array;
  } finally {
    await session.release();
  }
}

const matmul = (x: ArrayLike<number>, w: ArrayLike<number>) =>
  Float32Array.from({ length: M * N }, (_, i) => {
    let s = 0;
    for (let k = 0; k < K; k++) s += x[Math.floor(i / N) * K + k] * w[k * N + (i % N)];
    return s;
  });

const initializers = (model: Uint8Array) =>
  new Map(onnxProto.onnx.ModelProto.decode(model).graph!.initializer!.map((t) => [t.name!, t.rawData!]));
const floats = (raw: Uint8Array) => new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => Math.max(...Array.from(a, (x, i) => Math.abs(x - b[i])));

describe('MatMulNBits (q4)', () => {
  it('runs as x · W read back from B, scales and zero points (low nibble first), W within half a step', async () => {
    const model = quantizeMatMulNBits(matmulModel(), { blockSize: 32 });
    const init = initializers(model);
    const [B, scales, zp] = [init.get('w_q4_B')!, floats(init.get('w_q4_scales')!), init.get('w_q4_zero_points')!];
    const blocks = Math.ceil(K / 32);
    const read = new Float32Array(K * N);
    for (let n = 0; n < N; n++) {
      for (let k = 0; k < K; k++) {
        const b = Math.floor(k / 32);
        const byte = B[(n * blocks + b) * 16 + Math.floor((k % 32) / 2)];
        const q = k % 2 === 0 ? byte & 15 : byte >> 4;
        const zByte = zp[n * Math.ceil(blocks / 2) + Math.floor(b / 2)];
        const z = b % 2 === 0 ? zByte & 15 : zByte >> 4;
        read[k * N + n] = (q - z) * scales[n * blocks + b];
        expect(Math.abs(read[k * N + n] - W[k * N + n])).toBeLessThanOrEqual(scales[n * blocks + b] / 2 + 1e-6);
      }
    }
    expect(maxDiff(await run(model), matmul(X, read))).toBeLessThan(1e-4);
  });
});

describe('MatMulBnb4 (NF4)', () => {
  it('runs as x · W read back from Wᵀ blocks (high nibble first) and absmax', async () => {
    const model = quantizeBnb4(matmulModel(), 64);
    const init = initializers(model);
    const [B, absmax] = [init.get('w_bnb4_B')!, floats(init.get('w_bnb4_absmax')!)];
    const read = new Float32Array(K * N);
    for (let n = 0; n < N; n++) {
      for (let k = 0; k < K; k++) {
        const i = n * K + k;
        const q = i % 2 === 0 ? B[i >> 1] >> 4 : B[i >> 1] & 15;
        read[k * N + n] = NF4_LEVELS[q] * absmax[Math.floor(i / 64)];
      }
    }
    expect(maxDiff(read, W)).toBeLessThan(0.2 * Math.max(...absmax)); // NF4's widest gap is 0.30 of absmax
    expect(maxDiff(await run(model), matmul(X, read))).toBeLessThan(1e-4);
  });
});

describe.each(['int8', 'uint8', 'q8'] as const)('dynamic quantization (%s)', (scheme) => {
  it('runs as DynamicQuantizeLinear(x) times the stored integer weight, rescaled', async () => {
    const model = quantizeDynamic(matmulModel(), scheme);
    const init = initializers(model);
    const id = `${scheme}_0`;
    const raw = init.get(`${id}_w`)!;
    const wq = scheme === 'uint8' ? raw : new Int8Array(raw.buffer, raw.byteOffset, raw.byteLength);
    const wScale = floats(init.get(`${id}_w_scale`)!);
    const wZero = init.has(`${id}_w_zero`) ? (scheme === 'uint8' ? init.get(`${id}_w_zero`)![0] : 0) : 0;
    // DynamicQuantizeLinear (ONNX spec): uint8 over [min(0, x), max(0, x)], zero point round(−min / scale).
    const [lo, hi] = [Math.min(0, ...X), Math.max(0, ...X)];
    const xScale = (hi - lo) / 255;
    const xZero = Math.max(0, Math.min(255, Math.round(-lo / xScale)));
    const xq = Array.from(X, (v) => Math.max(0, Math.min(255, Math.round(v / xScale) + xZero)) - xZero);
    const read = Float32Array.from({ length: K * N }, (_, i) => (wq[i] - wZero) * wScale[wScale.length === 1 ? 0 : i % N]);
    expect(maxDiff(read, W)).toBeLessThan(Math.max(...wScale));
    expect(maxDiff(await run(model), matmul(xq.map((q) => q * xScale), read))).toBeLessThan(1e-4);
  });
});
