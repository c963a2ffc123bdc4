/**
 * The scorer's second graph: log-softmax over the vocabulary and a gather of a few ids per position, so that only
 * [B, T, K] numbers come back to JavaScript instead of doing [B, T, V] log-softmax in JS (measured on
 * onnxruntime-node: ~11 ms vs ~105 ms at 16 × 128 × 4096, as long as the forward pass itself). Built in memory at load time; works for any vocabulary size.
 *
 *   inputs   logits     float32 [batch_size, sequence_length, vocab_size]
 *            indices    int64   [batch_size, sequence_length, k]      ids to read at each position
 *   output   log_probs  float32 [batch_size, sequence_length, k]      log_softmax(logits)[b, t, indices[b, t, j]]
 */
import onnxProto from 'onnx-proto';
import type { onnx as P } from 'onnx-proto';
import { DataType, GraphBuilder } from './graph-builder.ts';
import { referenceWeights } from './external-data.ts';
import { addNumLogitsToKeepToGraph } from './logits-to-keep.ts';
import { addHiddenStateOutput } from './hidden-state.ts';

const { onnx } = onnxProto;

export function buildLogProbGatherOnnx(logitsType: 'float32' | 'float16' = 'float32'): Uint8Array {
  const g = new GraphBuilder('logprob_gather');
  const logits = g.input('logits', logitsType, ['batch_size', 'sequence_length', 'vocab_size']);
  const indices = g.input('indices', 'int64', ['batch_size', 'sequence_length', 'k']);
  // float16 logits (fp16 / q4f16 files) are widened first: the log-softmax runs in float32.
  const wide = logitsType === 'float16' ? g.op('Cast', [logits], { to: DataType.FLOAT }) : logits;
  const logProbs = g.op('LogSoftmax', [wide], { axis: -1 });
  g.output(g.op('GatherElements', [logProbs, indices], { axis: 2 }, 'log_probs'), 'float32', ['batch_size', 'sequence_length', 'k']);
  return g.toBytes('log_softmax + gather for teacher-forced scoring');
}

/**
 * A decoder turned into a scorer: the log-prob head is added INSIDE the decoder graph, so logits never leave ONNX
 * Runtime, and only the positions a caller reads go through the LM head and the log-softmax.
 *
 *   extra inputs   score_rows       int64 [n]      flat row indices b·T + t into the [B, T] positions
 *                  score_ids        int64 [n, k]   token ids to read at each of those positions
 *   output         score_log_probs  float32 [n, k] log_softmax(logits[b, t, :])[ids]
 *
 * When the node producing `logits` is a row-wise matrix product — MatMul (GPT-2, Llama, Qwen exports: hidden · Wᵀ),
 * or the 4-bit MatMulNBits / MatMulBnb4 of q4, q4f16 and bnb4 files — the rows are gathered from its hidden-state
 * input and the node is repeated on them, so the [B, T, V] LM head is computed only for the n rows; otherwise
 * (a dynamic-quant head ends in a Mul) the rows are gathered from the logits. float16 logits are cast to float32
 * before the log-softmax. Returns null when the model has no `logits` output (then use buildLogProbGatherOnnx).
 *
 * By default the graph's other outputs (logits, present.*) are dropped, so the runtime does not compute them.
 * With `keepDecoderOutputs` the result is ONE graph for scoring and decoding (one session, the weights held once):
 * logits and present.* stay, and a `num_logits_to_keep` input is added when the export has none, so a scoring run
 * feeds 1 (the full head is not computed beside the gathered rows) and a decoding run feeds empty score_rows.
 * ONNX Runtime runs every node of a session whatever is fetched, hence the input rather than a second graph.
 */
export function buildScoringDecoderOnnx(
  model: Uint8Array,
  options: {
    keepDecoderOutputs?: boolean;
    /** The model file's name: its weights stay in it, referenced as external data (external-data.ts referenceWeights). */
    weightsFile?: string;
    /** Also output the LM head's input, `hidden_states` [B, T, C] (hidden-state.ts; toolkens read it). */
    hiddenStates?: boolean;
  } = {},
): Uint8Array | null {
  const proto = onnx.ModelProto.decode(model);
  const graph = proto.graph;
  const head = graph?.node?.find((n) => n.output?.includes('logits'));
  if (!graph || !head || !graph.output?.some((o) => o.name === 'logits')) return null;
  const hasKeep = graph.input?.some((i) => i.name === 'num_logits_to_keep') ?? false;
  // An export's own num_logits_to_keep slices the hidden state before the head: score from the unsliced one.
  const producer = graph.node?.find((n) => n.output?.includes(head.input?.[0] ?? ''));
  const hidden = hasKeep && producer?.opType === 'Slice' ? producer.input![0] : head.input![0];
  const node = (opType: string, input: string[], output: string, attrs: P.IAttributeProto[] = []): P.INodeProto => ({
    opType,
    name: `score_head_${output}`,
    input,
    output: [output],
    attribute: attrs,
  });
  const int = (name: string, i: number): P.IAttributeProto => ({ name, type: onnx.AttributeProto.AttributeType.INT, i });
  const tensorInfo = (name: string, elemType: number, dims: string[]): P.IValueInfoProto => ({
    name,
    type: { tensorType: { elemType, shape: { dim: dims.map((d) => ({ dimParam: d })) } } },
  });
  const { FLOAT, FLOAT16, INT64 } = onnx.TensorProto.DataType;
  const added: P.INodeProto[] = [];
  const rowWise = (head.opType === 'MatMul' && (head.domain ?? '') === '' && head.input?.length === 2) ||
    ((head.opType === 'MatMulNBits' || head.opType === 'MatMulBnb4') && head.domain === 'com.microsoft');
  if (rowWise) {
    // [B, T, C] → [B·T, C] → [n, C] → [n, V]: the same node, on the gathered rows
    added.push(
      node('Flatten', [hidden], 'score_head_hidden', [int('axis', 2)]),
      node('Gather', ['score_head_hidden', 'score_rows'], 'score_head_rows', [int('axis', 0)]),
      { ...node(head.opType!, ['score_head_rows', ...head.input!.slice(1)], 'score_head_logits', head.attribute ?? []), domain: head.domain },
    );
  } else {
    if (options.keepDecoderOutputs) return null; // rows gathered from the logits would need the full head
    added.push(
      node('Flatten', ['logits'], 'score_head_all', [int('axis', 2)]),
      node('Gather', ['score_head_all', 'score_rows'], 'score_head_logits', [int('axis', 0)]),
    );
  }
  const logitsInfo = graph.output.find((o) => o.name === 'logits');
  let rows = 'score_head_logits';
  if (logitsInfo?.type?.tensorType?.elemType === FLOAT16) {
    added.push(node('Cast', [rows], 'score_head_logits_f32', [int('to', FLOAT)]));
    rows = 'score_head_logits_f32';
  }
  added.push(
    node('LogSoftmax', [rows], 'score_head_log_probs', [int('axis', -1)]),
    node('GatherElements', ['score_head_log_probs', 'score_ids'], 'score_log_probs', [int('axis', 1)]),
  );
  graph.node = [...(graph.node ?? []), ...added];
  graph.input = [...(graph.input ?? []), tensorInfo('score_rows', INT64, ['n']), tensorInfo('score_ids', INT64, ['n', 'k'])];
  const scoreOutput = tensorInfo('score_log_probs', FLOAT, ['n', 'k']);
  if (options.keepDecoderOutputs) {
    if (!hasKeep) addNumLogitsToKeepToGraph(graph);
    graph.output = [...graph.output, scoreOutput];
  } else {
    graph.output = [scoreOutput];
  }
  if (options.hiddenStates && !addHiddenStateOutput(graph)) return null;
  if (options.weightsFile) referenceWeights(proto, model, options.weightsFile);
  return onnx.ModelProto.encode(proto).finish();
}
