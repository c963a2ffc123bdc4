/**
 * A float32 decoder converted to float16 end to end, as Hugging Face's `model_fp16.onnx` files are (onnxconverter-
 * common's convert_float_to_float16 with keep_io_types=False; SmolLM2-135M-Instruct's fp16 and q4f16 files):
 *
 *   - every float initializer becomes float16, clipped to ±65504 (the attention mask's float32 minimum would
 *     otherwise turn into −∞, and a fully masked padding row into NaN);
 *   - float graph inputs and outputs become float16: the KV cache `past_key_values.*` / `present.*` and `logits`;
 *   - `Cast(to = FLOAT)` nodes cast to FLOAT16 instead (position ids → RoPE angles).
 *
 * Integer inputs (input_ids, attention_mask, position_ids) are unchanged. ONNX Runtime's CPU provider runs nodes it
 * has no float16 kernel for in float32 by inserting Casts itself (its InsertCastTransformer), so the file loads
 * everywhere the published ones do. Isomorphic.
 */
import type { onnx as P } from 'onnx-proto';
import { decodeModel, encodeModel, floatData, bytesOf, noteDoc, T, toHalfArray } from '../onnx/onnx-edit.ts';

const HALF_MAX = 65504;

/** Converts a decoded model in place (used by q4f16 before its MatMuls are quantized). */
export function convertGraphToFloat16(proto: P.IModelProto): void {
  const graph = proto.graph!;
  graph.initializer = (graph.initializer ?? []).map((t) => {
    if (t.dataType !== T.FLOAT) return t;
    const data = floatData(t).map((x) => Math.max(-HALF_MAX, Math.min(HALF_MAX, x)));
    return { name: t.name, dims: t.dims, dataType: T.FLOAT16, rawData: bytesOf(toHalfArray(data)) };
  });
  for (const info of [...(graph.input ?? []), ...(graph.output ?? []), ...(graph.valueInfo ?? [])]) {
    const tensor = info.type?.tensorType;
    if (tensor?.elemType === T.FLOAT) tensor.elemType = T.FLOAT16;
  }
  for (const node of graph.node ?? []) {
    if (node.opType !== 'Cast') continue;
    for (const a of node.attribute ?? []) if (a.name === 'to' && Number(a.i) === T.FLOAT) a.i = T.FLOAT16;
  }
}

/** The fp16 variant with a float16 KV cache and float16 logits. */
export function convertToFloat16(model: Uint8Array): Uint8Array {
  const proto = decodeModel(model);
  convertGraphToFloat16(proto);
  noteDoc(proto, 'float16 weights, KV cache and logits: pipeline/onnx/float16.ts');
  return encodeModel(proto);
}
