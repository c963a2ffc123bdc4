/**
 * The LM head's input as a graph output: the final normed hidden state h [batch_size, sequence_length, hidden],
 * the vector the head multiplies by W_vᵀ to make the logits. ToolkenGPT (toolkens) adds rows W_τ beside W_v and
 * needs h; a new output costs nothing the graph does not compute already (ONNX Runtime copies it out only when it
 * is fetched). The weights are not touched: only `graph.output` grows.
 *
 *   extra output  hidden_states  float32 or float16 [batch_size, sequence_length, hidden]
 *
 * The head is found from the node that produces `logits`, through what the project's dtype writers put after it:
 *   MatMul / Gemm / MatMulNBits / MatMulBnb4 (fp32, fp16, q8, q4, q4f16, bnb4)  → its first input
 *   Mul ← Cast ← MatMulInteger ← DynamicQuantizeLinear (int8, uint8)          → DynamicQuantizeLinear's input
 * and before it a `num_logits_to_keep` Slice (logits-to-keep.ts, or an export's own) is stepped over, so every
 * position's h comes out. Isomorphic.
 */
import type { onnx as P } from 'onnx-proto';
import { decodeModel, encodeModel, noteDoc, T } from './onnx-edit.ts';
import { referenceWeights } from './external-data.ts';

export const HIDDEN_STATES = 'hidden_states';

const MATRIX_HEADS = new Set(['MatMul', 'Gemm', 'MatMulNBits', 'MatMulBnb4']);
/** Nodes between a dynamically quantized head's MatMulInteger and `logits` (../onnx-export/quantize.ts quantizeDynamic). */
const DEQUANT = new Set(['Mul', 'Cast']);

/** The LM head's input tensor name and element type (ONNX TensorProto.DataType), or null when the head is not recognised. */
export function lmHeadInput(graph: P.IGraphProto): { name: string; elemType: number } | null {
  const producer = new Map<string, P.INodeProto>();
  for (const n of graph.node ?? []) for (const o of n.output ?? []) producer.set(o, n);
  const logits = graph.output?.find((o) => o.name === 'logits');
  const logitsType = logits?.type?.tensorType?.elemType ?? T.FLOAT;
  let node = producer.get('logits');
  let elemType = logitsType;
  let input: string | undefined;
  for (let steps = 0; node && steps < 6 && input === undefined; steps++) {
    if (MATRIX_HEADS.has(node.opType ?? '')) input = node.input?.[0];
    else if (node.opType === 'DynamicQuantizeLinear') {
      input = node.input?.[0];
      elemType = T.FLOAT; // DynamicQuantizeLinear takes float32 only
    } else if (DEQUANT.has(node.opType ?? '') || node.opType === 'MatMulInteger') {
      // follow the non-constant operand (Mul's scale and MatMulInteger's weight are initializers)
      const inits = new Set((graph.initializer ?? []).map((t) => t.name));
      const next = (node.input ?? []).find((i) => producer.has(i) && !inits.has(i));
      node = next ? producer.get(next) : undefined;
      continue;
    } else return null;
  }
  if (input === undefined) return null;
  const slice = producer.get(input);
  if (slice?.opType === 'Slice') input = slice.input![0];
  return { name: input, elemType };
}

/** Adds `hidden_states` (the LM head's input) to a decoded graph's outputs, in place. False when the head is not found. */
export function addHiddenStateOutput(graph: P.IGraphProto): boolean {
  if (graph.output?.some((o) => o.name === HIDDEN_STATES)) return true;
  const head = lmHeadInput(graph);
  if (!head) return false;
  const dims = ['batch_size', 'sequence_length', 'hidden'].map((d) => ({ dimParam: d }));
  if (head.name === HIDDEN_STATES) return true;
  // An Identity gives the output its own name (the hidden tensor keeps feeding the head under its old one).
  graph.node!.push({ opType: 'Identity', name: 'hidden_states_out', input: [head.name], output: [HIDDEN_STATES] });
  graph.output!.push({ name: HIDDEN_STATES, type: { tensorType: { elemType: head.elemType, shape: { dim: dims } } } });
  return true;
}

/**
 * A model's bytes with the `hidden_states` output added, or null when its head is not recognised. With
 * `weightsFile` the weights stay in the original bytes as external data (external-data.ts referenceWeights): the
 * result is a graph of kilobytes, not a copy of the weights.
 */
export function withHiddenStateOutput(model: Uint8Array, options: { weightsFile?: string } = {}): Uint8Array | null {
  const proto = decodeModel(model);
  if (!proto.graph || !addHiddenStateOutput(proto.graph)) return null;
  noteDoc(proto, 'hidden_states output: pipeline/onnx/hidden-state.ts');
  if (options.weightsFile) referenceWeights(proto, model, options.weightsFile);
  return encodeModel(proto);
}
