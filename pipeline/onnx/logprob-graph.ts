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
import { GraphBuilder } from './graph-builder.ts';

const { onnx } = onnxProto;

export function buildLogProbGatherOnnx(): Uint8Array {
  const g = new GraphBuilder('logprob_gather');
  const logits = g.input('logits', 'float32', ['batch_size', 'sequence_length', 'vocab_size']);
  const indices = g.input('indices', 'int64', ['batch_size', 'sequence_length', 'k']);
  const logProbs = g.op('LogSoftmax', [logits], { axis: -1 });
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
 * When the node producing `logits` is a MatMul (GPT-2, Llama, Qwen exports: hidden · Wᵀ), the rows are gathered
 * from its hidden-state input before the MatMul, so the [B, T, V] LM head is computed only for the n rows; otherwise
 * the rows are gathered from the logits. The graph's other outputs (logits, present.*) are dropped, so the runtime
 * does not compute them. Returns null when the model has no `logits` output (then use buildLogProbGatherOnnx).
 */
export function buildScoringDecoderOnnx(model: Uint8Array): Uint8Array | null {
  const proto = onnx.ModelProto.decode(model);
  const graph = proto.graph;
  const head = graph?.node?.find((n) => n.output?.includes('logits'));
  if (!graph || !head || !graph.output?.some((o) => o.name === 'logits')) return null;
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
  const { FLOAT, INT64 } = onnx.TensorProto.DataType;
  const added: P.INodeProto[] = [];
  if (head.opType === 'MatMul' && head.input?.length === 2) {
    // [B, T, C] → [B·T, C] → [n, C] → [n, V]
    added.push(
      node('Flatten', [head.input[0]], 'score_head_hidden', [int('axis', 2)]),
      node('Gather', ['score_head_hidden', 'score_rows'], 'score_head_rows', [int('axis', 0)]),
      node('MatMul', ['score_head_rows', head.input[1]], 'score_head_logits'),
    );
  } else {
    added.push(
      node('Flatten', ['logits'], 'score_head_all', [int('axis', 2)]),
      node('Gather', ['score_head_all', 'score_rows'], 'score_head_logits', [int('axis', 0)]),
    );
  }
  added.push(
    node('LogSoftmax', ['score_head_logits'], 'score_head_log_probs', [int('axis', -1)]),
    node('GatherElements', ['score_head_log_probs', 'score_ids'], 'score_log_probs', [int('axis', 1)]),
  );
  graph.node = [...(graph.node ?? []), ...added];
  graph.input = [...(graph.input ?? []), tensorInfo('score_rows', INT64, ['n']), tensorInfo('score_ids', INT64, ['n', 'k'])];
  graph.output = [tensorInfo('score_log_probs', FLOAT, ['n', 'k'])];
  return onnx.ModelProto.encode(proto).finish();
}
