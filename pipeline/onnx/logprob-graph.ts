/**
 * The scorer's second graph: log-softmax over the vocabulary and a gather of a few ids per position, so that only
 * [B, T, K] numbers come back to JavaScript instead of doing [B, T, V] log-softmax in JS (NOTES §2: ~11 ms vs
 * ~105 ms at 16 × 128 × 4096). Built in memory at load time; works for any vocabulary size.
 *
 *   inputs   logits     float32 [batch_size, sequence_length, vocab_size]
 *            indices    int64   [batch_size, sequence_length, k]      ids to read at each position
 *   output   log_probs  float32 [batch_size, sequence_length, k]      log_softmax(logits)[b, t, indices[b, t, j]]
 */
import { GraphBuilder } from './graph-builder.ts';

export function buildLogProbGatherOnnx(): Uint8Array {
  const g = new GraphBuilder('logprob_gather');
  const logits = g.input('logits', 'float32', ['batch_size', 'sequence_length', 'vocab_size']);
  const indices = g.input('indices', 'int64', ['batch_size', 'sequence_length', 'k']);
  const logProbs = g.op('LogSoftmax', [logits], { axis: -1 });
  g.output(g.op('GatherElements', [logProbs, indices], { axis: 2 }, 'log_probs'), 'float32', ['batch_size', 'sequence_length', 'k']);
  return g.toBytes('log_softmax + gather for teacher-forced scoring');
}
