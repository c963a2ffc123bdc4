/**
 * The weight layout of Optimum's exports: every MatMul reads a stored [in, out] initializer, where this project's
 * exporters keep the PyTorch [out, in] weight under a Transpose (llama-graph.ts, gpt2-graph.ts) that ONNX Runtime
 * constant-folds at load — holding the folded copy beside the original. Folding here gives the published layout,
 * tied LM head included (stored a second time, as the exports store `lm_head`): the fp32 SmolLM2-135M shape is then
 * 651 MB, as its real model.onnx (≈ 654 MB). Used by the bench's real-size model (pipeline/bench/real-size.ts).
 * Isomorphic.
 */
import type { onnx as P } from 'onnx-proto';
import { bytesOf, decodeModel, encodeModel, floatData, noteDoc, pruneDead, T } from '../onnx/onnx-edit.ts';

export function foldWeightTransposes(model: Uint8Array): Uint8Array {
  const proto = decodeModel(model);
  const graph = proto.graph!;
  const inits = new Map((graph.initializer ?? []).map((t) => [t.name!, t]));
  const folded: P.ITensorProto[] = [];
  graph.node = (graph.node ?? []).filter((node) => {
    const src = node.opType === 'Transpose' ? inits.get(node.input![0]) : undefined;
    if (!src || src.dataType !== T.FLOAT || src.dims?.length !== 2) return true;
    const [R, C] = [Number(src.dims[0]), Number(src.dims[1])];
    const from = floatData(src);
    const out = new Float32Array(R * C);
    for (let r = 0; r < R; r++) for (let c = 0; c < C; c++) out[c * R + r] = from[r * C + c];
    folded.push({ name: node.output![0], dims: [C, R], dataType: T.FLOAT, rawData: bytesOf(out) });
    return false;
  });
  graph.initializer = [...(graph.initializer ?? []), ...folded];
  pruneDead(graph);
  noteDoc(proto, `${folded.length} weight Transposes folded into [in, out] initializers (Optimum's layout): pipeline/onnx/optimum-layout.ts`);
  return encodeModel(proto);
}
