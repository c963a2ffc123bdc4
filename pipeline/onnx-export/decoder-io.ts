/**
 * The inputs and outputs every decoder graph here shares (the Optimum / Transformers.js layout with a KV cache), and
 * the attention's visibility built from them:
 *
 *   inputs   input_ids, attention_mask, position_ids   int64   [batch_size, sequence_length] (the mask: past + sequence)
 *            past_key_values.{i}.key|value              float32 [batch_size, kv_heads, past_sequence_length, head_dim]
 *   outputs  logits                                     float32 [batch_size, sequence_length, vocab_size]
 *            present.{i}.key|value                      float32 [batch_size, kv_heads, past + sequence, head_dim]
 *
 * The graphs add these in this order, so their bytes do not depend on which builder wrote them.
 */
import { F32_MIN, visibleKeys } from './attention-mask.ts';
import type { GraphBuilder } from '../onnx/graph-builder.ts';

/** The cache's geometry: layers, KV heads per layer (all heads without grouped-query attention), head width. */
export interface CacheShape {
  layers: number;
  kvHeads: number;
  headDim: number;
}

/** The decoder's graph inputs, plus `visible` (bool [B, 1, S, T]) and `masked` (the score a hidden key gets). */
export function decoderInputs(g: GraphBuilder, { layers, kvHeads, headDim }: CacheShape) {
  const inputIds = g.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  const attentionMask = g.input('attention_mask', 'int64', ['batch_size', 'past_sequence_length + sequence_length']);
  const positionIds = g.input('position_ids', 'int64', ['batch_size', 'sequence_length']);
  const past: { key: string; value: string }[] = [];
  for (let i = 0; i < layers; i++) {
    const dims = ['batch_size', kvHeads, 'past_sequence_length', headDim];
    past.push({
      key: g.input(`past_key_values.${i}.key`, 'float32', dims),
      value: g.input(`past_key_values.${i}.value`, 'float32', dims),
    });
  }
  const visible = visibleKeys(g, inputIds, attentionMask); // [B, 1, S, T]
  const masked = g.constFloat(F32_MIN, []);
  return { inputIds, positionIds, past, visible, masked };
}

/** Declares the outputs: `logits` (already named so) and each layer's `present.{i}.key|value`. */
export function decoderOutputs(g: GraphBuilder, logits: string, vocabSize: number, { layers, kvHeads, headDim }: CacheShape): void {
  g.output(logits, 'float32', ['batch_size', 'sequence_length', vocabSize]);
  for (let i = 0; i < layers; i++) {
    const dims = ['batch_size', kvHeads, 'past_sequence_length + sequence_length', headDim];
    g.output(`present.${i}.key`, 'float32', dims);
    g.output(`present.${i}.value`, 'float32', dims);
  }
}
