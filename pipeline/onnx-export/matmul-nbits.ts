/**
 * 4-bit block quantization of a decoder's MatMuls into ONNX Runtime's `MatMulNBits` contrib op (domain
 * com.microsoft), the format of Hugging Face's `model_q4.onnx` (float32 activations) and `model_q4f16.onnx`
 * (float16 activations, scales and KV cache: the model is converted with float16.ts first).
 *
 * For a MatMul y = x · W with a constant W [K, N] (K input features, N outputs), each output column n is cut into
 * blocks of `blockSize` along K; a block stores q = clamp(round(w / scale) + zp, 0, 15) with its range widened to
 * include 0 (scale = (max − min) / 15, zp = round(−min / scale)), as onnxruntime's MatMul4BitsQuantizer does with
 * is_symmetric=False. MatMulNBits inputs:
 *
 *   A            T1     [..., K]
 *   B            uint8  [N, n_blocks, blockSize / 2]     two values a byte, the even k in the low nibble
 *   scales       T1     [N · n_blocks]
 *   zero_points  uint8  [N · ⌈n_blocks / 2⌉]            two a byte, low nibble first
 *   attributes   K, N, bits = 4, block_size
 *
 * Every MatMul with a constant weight is quantized, the tied LM head too (its weight is the embedding, which the
 * Gather keeps in float: real exports store the head separately as well). Isomorphic.
 */
import type { onnx as P } from 'onnx-proto';
import { convertGraphToFloat16 } from './float16.ts';
import {
  bytesOf, decodeModel, encodeModel, importDomain, intAttr, MS_DOMAIN, noteDoc, replaceConstantMatMuls, T, type ConstantWeight,
} from '../onnx/onnx-edit.ts';

export interface NBitsOptions {
  /** Values per block along K (a power of two ≥ 16). @default 32 */
  blockSize?: number;
  /** q4f16: float16 activations, scales and KV cache. @default false */
  float16?: boolean;
}

/** The packed MatMulNBits operands for one weight. */
export function packNBits4(w: ConstantWeight, blockSize: number): { B: Uint8Array; scales: Float32Array; zeroPoints: Uint8Array; nBlocks: number } {
  const { data, K, N } = w;
  const nBlocks = Math.ceil(K / blockSize);
  const blob = blockSize / 2;
  const B = new Uint8Array(N * nBlocks * blob);
  const scales = new Float32Array(N * nBlocks);
  const zpBytes = Math.ceil(nBlocks / 2);
  const zeroPoints = new Uint8Array(N * zpBytes);
  for (let n = 0; n < N; n++) {
    for (let b = 0; b < nBlocks; b++) {
      const [k0, k1] = [b * blockSize, Math.min(K, (b + 1) * blockSize)];
      let [min, max] = [0, 0];
      for (let k = k0; k < k1; k++) {
        const v = data[k * N + n];
        if (v < min) min = v;
        if (v > max) max = v;
      }
      const scale = max > min ? (max - min) / 15 : 1;
      const zp = Math.max(0, Math.min(15, Math.round(-min / scale)));
      scales[n * nBlocks + b] = scale;
      zeroPoints[n * zpBytes + (b >> 1)] |= zp << ((b & 1) * 4);
      for (let k = k0; k < k0 + blockSize; k++) {
        const q = k < k1 ? Math.max(0, Math.min(15, Math.round(data[k * N + n] / scale) + zp)) : zp; // padding reads as 0
        const i = (n * nBlocks + b) * blob + ((k - k0) >> 1);
        B[i] |= q << (((k - k0) & 1) * 4);
      }
    }
  }
  return { B, scales, zeroPoints, nBlocks };
}

/** The q4 (or, with `float16`, q4f16) variant of an fp32 decoder. */
export function quantizeMatMulNBits(model: Uint8Array, options: NBitsOptions = {}): Uint8Array {
  const blockSize = options.blockSize ?? 32;
  if (blockSize < 16 || (blockSize & (blockSize - 1)) !== 0) throw new Error(`MatMulNBits: block size ${blockSize} is not a power of two ≥ 16`);
  const proto = decodeModel(model);
  const count = replaceConstantMatMuls(proto.graph!, { shared: true }, (node, w) => {
    const id = `${w.source}_q4`;
    const { B, scales, zeroPoints, nBlocks } = packNBits4(w, blockSize);
    const initializers: P.ITensorProto[] = [
      { name: `${id}_B`, dims: [w.N, nBlocks, blockSize / 2], dataType: T.UINT8, rawData: B },
      { name: `${id}_scales`, dims: [w.N * nBlocks], dataType: T.FLOAT, rawData: bytesOf(scales) },
      { name: `${id}_zero_points`, dims: [zeroPoints.length], dataType: T.UINT8, rawData: zeroPoints },
    ];
    const matmul: P.INodeProto = {
      opType: 'MatMulNBits',
      domain: MS_DOMAIN,
      name: `${node.name ?? id}_MatMulNBits`,
      input: [node.input![0], `${id}_B`, `${id}_scales`, `${id}_zero_points`],
      output: node.output!,
      attribute: [intAttr('K', w.K), intAttr('N', w.N), intAttr('bits', 4), intAttr('block_size', blockSize)],
    };
    return { nodes: [matmul], initializers };
  });
  importDomain(proto, MS_DOMAIN);
  if (options.float16) convertGraphToFloat16(proto);
  noteDoc(proto, `MatMulNBits 4-bit (block ${blockSize}) of ${count} MatMuls${options.float16 ? ', float16 elsewhere' : ''}: pipeline/onnx/matmul-nbits.ts`);
  return encodeModel(proto);
}
