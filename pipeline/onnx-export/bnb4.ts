/**
 * NF4 quantization of a decoder's MatMuls into ONNX Runtime's `MatMulBnb4` contrib op (com.microsoft), the format
 * of Hugging Face's `model_bnb4.onnx` (onnxruntime's MatMulBnb4Quantizer). The CPU kernel takes float32 activations.
 *
 * For y = x · W with a constant W [K, N], Wᵀ [N, K] is flattened row-major and cut into blocks of `blockSize`; each
 * block stores its absmax and, per value, the index of the nearest NF4 level to w / absmax. Inputs:
 *
 *   A       float32 [..., K]
 *   B       uint8   [⌈N·K / 2⌉]                     two indices a byte, the even element in the HIGH nibble
 *   absmax  float32 [⌈N·K / blockSize⌉]
 *   attributes  K, N, block_size, quant_type = 1 (NF4)
 *
 * Isomorphic.
 */
import type { onnx as P } from 'onnx-proto';
import { bytesOf, decodeModel, encodeModel, importDomain, intAttr, MS_DOMAIN, noteDoc, replaceConstantMatMuls, T } from '../onnx/onnx-edit.ts';

/** The 16 NF4 levels (normal-distribution quantiles on [−1, 1]), as bitsandbytes and ONNX Runtime define them. */
export const NF4_LEVELS = [
  -1, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635, -0.18477343022823334,
  -0.09105003625154495, 0, 0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
  0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1,
];

const nearestLevel = (x: number) => {
  let best = 0;
  for (let i = 1; i < 16; i++) if (Math.abs(NF4_LEVELS[i] - x) < Math.abs(NF4_LEVELS[best] - x)) best = i;
  return best;
};

/** The bnb4 (NF4, block 64 unless told) variant of an fp32 decoder. */
export function quantizeBnb4(model: Uint8Array, blockSize = 64): Uint8Array {
  const proto = decodeModel(model);
  const count = replaceConstantMatMuls(proto.graph!, { shared: true }, (node, w) => {
    const { data, K, N } = w;
    const numel = N * K;
    const B = new Uint8Array(Math.ceil(numel / 2));
    const absmax = new Float32Array(Math.ceil(numel / blockSize));
    const at = (i: number) => data[(i % K) * N + Math.floor(i / K)]; // Wᵀ[n, k] = W[k, n], i = n·K + k
    for (let block = 0; block < absmax.length; block++) {
      const [i0, i1] = [block * blockSize, Math.min(numel, (block + 1) * blockSize)];
      let max = 0;
      for (let i = i0; i < i1; i++) max = Math.max(max, Math.abs(at(i)));
      absmax[block] = max;
      for (let i = i0; i < i1; i++) B[i >> 1] |= nearestLevel(max ? at(i) / max : 0) << (i & 1 ? 0 : 4);
    }
    const id = `${w.source}_bnb4`;
    const initializers: P.ITensorProto[] = [
      { name: `${id}_B`, dims: [B.length], dataType: T.UINT8, rawData: B },
      { name: `${id}_absmax`, dims: [absmax.length], dataType: T.FLOAT, rawData: bytesOf(absmax) },
    ];
    const matmul: P.INodeProto = {
      opType: 'MatMulBnb4',
      domain: MS_DOMAIN,
      name: `${node.name ?? id}_MatMulBnb4`,
      input: [node.input![0], `${id}_B`, `${id}_absmax`],
      output: node.output!,
      attribute: [intAttr('K', K), intAttr('N', N), intAttr('block_size', blockSize), intAttr('quant_type', 1)],
    };
    return { nodes: [matmul], initializers };
  });
  importDomain(proto, MS_DOMAIN);
  noteDoc(proto, `MatMulBnb4 NF4 (block ${blockSize}) of ${count} MatMuls: pipeline/onnx/bnb4.ts`);
  return encodeModel(proto);
}
