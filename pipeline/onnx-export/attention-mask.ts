/**
 * The decoder's attention visibility, shared by the GPT-2 and Llama graphs: key j is visible to query i iff
 * j ≤ past + i (causal, with past = T − S cached positions) and attention_mask[b, j] = 1 (padding).
 */
import { DataType, type GraphBuilder } from '../onnx/graph-builder.ts';

/** Float32 minimum: masked scores get it before the softmax, so a fully masked row is uniform instead of NaN. */
export const F32_MIN = -3.4028234663852886e38;

/** Returns a bool value [B, 1, S, T] (T = past + S, the attention mask's length). */
export function visibleKeys(g: GraphBuilder, inputIds: string, attentionMask: string): string {
  const scalar1 = g.constInt(1, []);
  const total = g.op('Gather', [g.op('Shape', [attentionMask]), scalar1], { axis: 0 });
  const seq = g.op('Gather', [g.op('Shape', [inputIds]), scalar1], { axis: 0 });
  const zero = g.constInt(0, []);
  const keyPos = g.op('Range', [zero, total, scalar1]); // [T]
  const queryPos = g.op('Range', [g.op('Sub', [total, seq]), total, scalar1]); // [S]
  const causal = g.op('LessOrEqual', [
    g.op('Unsqueeze', [keyPos, g.constInt([0])]), // [1, T]
    g.op('Unsqueeze', [queryPos, g.constInt([1])]), // [S, 1]
  ]); // [S, T]
  const padMask = g.op('Unsqueeze', [g.op('Cast', [attentionMask], { to: DataType.BOOL }), g.constInt([1, 2])]); // [B,1,1,T]
  return g.op('And', [padMask, causal]); // [B, 1, S, T]
}
