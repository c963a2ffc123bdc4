/**
 * The `num_logits_to_keep` input of newer exports (Transformers.js feeds it when the session declares it): an int64
 * scalar k; the LM head runs only on the last k positions, k = 0 meaning all of them.
 *
 *   extra input  num_logits_to_keep  int64 []
 *   logits       [batch_size, k or sequence_length, vocab_size]
 *
 * Added in front of the node that produces `logits` (its first input is the final hidden state [B, T, C]):
 * hidden[:, T − k':, :] with k' = T when k = 0. Isomorphic.
 */
import type { onnx as P } from 'onnx-proto';
import { decodeModel, encodeModel, intAttr, noteDoc, T } from './onnx-edit.ts';

export function addNumLogitsToKeep(model: Uint8Array): Uint8Array {
  const proto = decodeModel(model);
  addNumLogitsToKeepToGraph(proto.graph!);
  noteDoc(proto, 'num_logits_to_keep input: pipeline/onnx/logits-to-keep.ts');
  return encodeModel(proto);
}

/** The same, in place on a decoded graph (the scorer's one-session graph adds it when the export has none). */
export function addNumLogitsToKeepToGraph(graph: P.IGraphProto): void {
  const head = graph.node?.find((n) => n.output?.includes('logits'));
  if (!head) throw new Error('addNumLogitsToKeep: no node produces "logits"');
  const hidden = head.input![0];
  const int64 = (name: string, values: number[], dims: number[]): P.ITensorProto => ({
    name,
    dims,
    dataType: T.INT64,
    rawData: new Uint8Array(BigInt64Array.from(values, BigInt).buffer),
  });
  graph.initializer!.push(
    int64('keep_axis1', [1], [1]),
    int64('keep_zero', [0], []),
    int64('keep_end', [2 ** 53], [1]), // "to the end" (ONNX Slice clamps)
    int64('keep_axes', [0], [1]),
  );
  const n = (opType: string, input: string[], output: string, attribute: P.IAttributeProto[] = []): P.INodeProto => ({
    opType,
    name: `keep_${output}`,
    input,
    output: [output],
    attribute,
  });
  const sliced = 'keep_hidden';
  const added = [
    n('Shape', [hidden], 'keep_shape'),
    n('Gather', ['keep_shape', 'keep_axis1'], 'keep_T', [intAttr('axis', 0)]), // [1]
    n('Unsqueeze', ['num_logits_to_keep', 'keep_axes'], 'keep_k'), // [1]
    n('Equal', ['keep_k', 'keep_zero'], 'keep_all'),
    n('Where', ['keep_all', 'keep_T', 'keep_k'], 'keep_count'),
    n('Sub', ['keep_T', 'keep_count'], 'keep_start'),
    n('Slice', [hidden, 'keep_start', 'keep_end', 'keep_axis1'], sliced),
  ];
  head.input![0] = sliced;
  const at = graph.node!.indexOf(head);
  graph.node!.splice(at, 0, ...added);
  graph.input!.push({ name: 'num_logits_to_keep', type: { tensorType: { elemType: T.INT64, shape: { dim: [] } } } });
  const logits = graph.output!.find((o) => o.name === 'logits')!;
  const dims = logits.type!.tensorType!.shape!.dim!;
  dims[1] = { dimParam: 'num_logits' };
}
