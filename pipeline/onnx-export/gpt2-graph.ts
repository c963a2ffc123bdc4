/**
 * GPT-2 as an ONNX graph with a KV cache, in the Optimum / Transformers.js decoder layout:
 *
 *   inputs   input_ids              int64   [batch_size, sequence_length]
 *            attention_mask         int64   [batch_size, past_sequence_length + sequence_length]
 *            position_ids           int64   [batch_size, sequence_length]
 *            past_key_values.{i}.key|value  float32 [batch_size, n_head, past_sequence_length, head_dim]
 *   outputs  logits                 float32 [batch_size, sequence_length, vocab_size]
 *            present.{i}.key|value  float32 [batch_size, n_head, past_sequence_length + sequence_length, head_dim]
 *
 * The first step sends empty past tensors (past_sequence_length 0). Masked positions (attention_mask 0 or in the
 * future) get the float32 minimum before the softmax, as Hugging Face does, so a fully masked row (left padding)
 * gives a uniform distribution instead of NaN.
 */
import { decoderInputs, decoderOutputs } from './decoder-io.ts';
import { GraphBuilder, float } from '../onnx/graph-builder.ts';
import { checkGpt2Weights, type Gpt2Config, type Gpt2Weights } from './gpt2-weights.ts';

/** Builds the model and returns the serialised ONNX bytes. */
export function buildGpt2Onnx(config: Gpt2Config, weights: Gpt2Weights): Uint8Array {
  checkGpt2Weights(config, weights);
  const { vocabSize: V, nEmbd: C, nLayer, nHead: H, layerNormEpsilon } = config;
  const D = C / H;
  const g = new GraphBuilder('gpt2');
  const w = (name: string, dims: number[]) => g.initializer(`transformer.${name}`, weights.get(name)!, dims);
  const cache = { layers: nLayer, kvHeads: H, headDim: D };
  const { inputIds, positionIds, past, visible, masked } = decoderInputs(g, cache);

  const layerNorm = (x: string, prefix: string) =>
    g.op('LayerNormalization', [x, w(`${prefix}.weight`, [C]), w(`${prefix}.bias`, [C])], {
      axis: -1,
      epsilon: float(layerNormEpsilon),
    });
  const linear = (x: string, prefix: string, nIn: number, nOut: number) =>
    g.op('Add', [g.op('MatMul', [x, w(`${prefix}.weight`, [nIn, nOut])]), w(`${prefix}.bias`, [nOut])]);

  const headShape = g.constInt([0, 0, H, D]);
  const mergedShape = g.constInt([0, 0, C]);
  const splitSizes = g.constInt([C, C, C]);
  const scale = g.constFloat(1 / Math.sqrt(D), []);
  // GELU, tanh approximation: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), written as PyTorch exports it.
  const three = g.constFloat(3, []);
  const geluA = g.constFloat(0.044715, []);
  const geluB = g.constFloat(Math.sqrt(2 / Math.PI), []);
  const half = g.constFloat(0.5, []);
  const one = g.constFloat(1, []);
  const gelu = (x: string) => {
    const inner = g.op('Mul', [g.op('Add', [x, g.op('Mul', [geluA, g.op('Pow', [x, three])])]), geluB]);
    return g.op('Mul', [g.op('Mul', [half, x]), g.op('Add', [one, g.op('Tanh', [inner])])]);
  };

  let x = g.op('Add', [
    g.op('Gather', [w('wte.weight', [V, C]), inputIds], { axis: 0 }),
    g.op('Gather', [w('wpe.weight', [config.nPositions, C]), positionIds], { axis: 0 }),
  ]); // [B, S, C]

  for (let i = 0; i < nLayer; i++) {
    const h = `h.${i}`;
    const qkv = linear(layerNorm(x, `${h}.ln_1`), `${h}.attn.c_attn`, C, 3 * C); // [B, S, 3C]
    const [q, k, v] = g.opN('Split', [qkv, splitSizes], 3, { axis: 2 });
    const heads = (t: string) => g.op('Transpose', [g.op('Reshape', [t, headShape])], { perm: [0, 2, 1, 3] }); // [B,H,S,D]
    const key = g.op('Concat', [past[i].key, heads(k)], { axis: 2 }, `present.${i}.key`); // [B, H, T, D]
    const value = g.op('Concat', [past[i].value, heads(v)], { axis: 2 }, `present.${i}.value`);
    const query = g.op('Mul', [heads(q), scale]);
    const scores = g.op('MatMul', [query, g.op('Transpose', [key], { perm: [0, 1, 3, 2] })]); // [B, H, S, T]
    const probs = g.op('Softmax', [g.op('Where', [visible, scores, masked])], { axis: -1 });
    const context = g.op('Reshape', [
      g.op('Transpose', [g.op('MatMul', [probs, value])], { perm: [0, 2, 1, 3] }), // [B, S, H, D]
      mergedShape,
    ]); // [B, S, C]
    x = g.op('Add', [x, linear(context, `${h}.attn.c_proj`, C, C)]);
    const mlp = linear(gelu(linear(layerNorm(x, `${h}.ln_2`), `${h}.mlp.c_fc`, C, 4 * C)), `${h}.mlp.c_proj`, 4 * C, C);
    x = g.op('Add', [x, mlp]);
  }

  // Tied LM head: the transpose of the embedding is constant-folded by ONNX Runtime at session creation.
  const wteT = g.op('Transpose', ['transformer.wte.weight'], { perm: [1, 0] });
  const logits = g.op('MatMul', [layerNorm(x, 'ln_f'), wteT], {}, 'logits');

  decoderOutputs(g, logits, V, cache);
  return g.toBytes(`GPT-2 (${nLayer} layers, ${C} wide, ${H} heads, vocab ${V}) exported by toolformer-ts`);
}
