/**
 * Llama-family decoders (Llama / SmolLM2, Qwen2) as an ONNX graph with a KV cache, in the layout of Hugging Face's
 * ONNX repositories (what Optimum exports and Transformers.js loads):
 *
 *   inputs   input_ids              int64   [batch_size, sequence_length]
 *            attention_mask         int64   [batch_size, past_sequence_length + sequence_length]
 *            position_ids           int64   [batch_size, sequence_length]
 *            past_key_values.{i}.key|value  float32 [batch_size, num_kv_heads, past_sequence_length, head_dim]
 *   outputs  logits                 float32 [batch_size, sequence_length, vocab_size]
 *            present.{i}.key|value  float32 [batch_size, num_kv_heads, past_sequence_length + sequence_length, head_dim]
 *
 * The cache holds the KV heads only (grouped-query attention) with RoPE already applied to the keys, as in
 * Transformers. Initializers are the PyTorch state dict unchanged (names and [out, in] shapes, llama-weights.ts);
 * the transposes MatMul needs are constant-folded by ONNX Runtime at session creation.
 */
import { decoderInputs, decoderOutputs } from './decoder-io.ts';
import { GraphBuilder, DataType } from '../onnx/graph-builder.ts';
import { checkLlamaWeights, llamaWeightShapes, type LlamaConfig, type LlamaWeights } from './llama-weights.ts';

/** Builds the model and returns the serialised ONNX bytes. */
export function buildLlamaOnnx(config: LlamaConfig, weights: LlamaWeights): Uint8Array {
  checkLlamaWeights(config, weights);
  const { vocabSize: V, hiddenSize: C, numLayers, numHeads: H, numKvHeads: KV, headDim: D } = config;
  const shapes = llamaWeightShapes(config);
  const g = new GraphBuilder(config.modelType);
  const w = (name: string) => g.initializer(name, weights.get(name)!, shapes.get(name)!);
  const cache = { layers: numLayers, kvHeads: KV, headDim: D };
  const { inputIds, positionIds, past, visible, masked } = decoderInputs(g, cache);
  const rope = ropeFrom(g, positionIds, D, config.ropeTheta);

  const one = g.constFloat(1, []);
  const eps = g.constFloat(config.rmsNormEps, []);
  const rmsNorm = (x: string, weight: string) => {
    const meanSquare = g.op('ReduceMean', [g.op('Mul', [x, x])], { axes: [-1], keepdims: 1 });
    return g.op('Mul', [g.op('Mul', [x, g.op('Div', [one, g.op('Sqrt', [g.op('Add', [meanSquare, eps])])])]), w(weight)]);
  };
  /** nn.Linear: x · Wᵀ (+ b). */
  const linear = (x: string, prefix: string, bias = false) => {
    const y = g.op('MatMul', [x, g.op('Transpose', [w(`${prefix}.weight`)], { perm: [1, 0] })]);
    return bias ? g.op('Add', [y, w(`${prefix}.bias`)]) : y;
  };
  const silu = (x: string) => g.op('Mul', [x, g.op('Sigmoid', [x])]);

  const scale = g.constFloat(1 / Math.sqrt(D), []);
  const shapeOf = (heads: number) => g.constInt([0, 0, heads, D]);
  const [qShape, kvShape] = [shapeOf(H), shapeOf(KV)];
  const groupedShape = g.constInt([0, KV, -1, 0]); // [B, H, X, Y] ↔ [B, KV, G·X, Y]: head h reads KV head ⌊h / G⌋
  const headsShape = g.constInt([0, H, -1, 0]);
  const mergedShape = g.constInt([0, 0, H * D]);
  const heads = (t: string, shape: string) => g.op('Transpose', [g.op('Reshape', [t, shape])], { perm: [0, 2, 1, 3] }); // [B,h,S,D]

  let x = g.op('Gather', [w('model.embed_tokens.weight'), inputIds], { axis: 0 }); // [B, S, C]
  for (let i = 0; i < numLayers; i++) {
    const l = `model.layers.${i}`;
    const a = `${l}.self_attn`;
    const h = rmsNorm(x, `${l}.input_layernorm.weight`);
    const q = rope(heads(linear(h, `${a}.q_proj`, config.attentionBias), qShape)); // [B, H, S, D]
    const k = rope(heads(linear(h, `${a}.k_proj`, config.attentionBias), kvShape)); // [B, KV, S, D]
    const v = heads(linear(h, `${a}.v_proj`, config.attentionBias), kvShape);
    const key = g.op('Concat', [past[i].key, k], { axis: 2 }, `present.${i}.key`); // [B, KV, T, D]
    const value = g.op('Concat', [past[i].value, v], { axis: 2 }, `present.${i}.value`);
    const grouped = g.op('Reshape', [g.op('Mul', [q, scale]), groupedShape]); // [B, KV, G·S, D]
    const scores = g.op('Reshape', [g.op('MatMul', [grouped, g.op('Transpose', [key], { perm: [0, 1, 3, 2] })]), headsShape]); // [B,H,S,T]
    const probs = g.op('Softmax', [g.op('Where', [visible, scores, masked])], { axis: -1 });
    const context = g.op('Reshape', [g.op('MatMul', [g.op('Reshape', [probs, groupedShape]), value]), headsShape]); // [B,H,S,D]
    const merged = g.op('Reshape', [g.op('Transpose', [context], { perm: [0, 2, 1, 3] }), mergedShape]); // [B, S, H·D]
    x = g.op('Add', [x, linear(merged, `${a}.o_proj`)]);
    const m = rmsNorm(x, `${l}.post_attention_layernorm.weight`);
    const mlp = linear(g.op('Mul', [silu(linear(m, `${l}.mlp.gate_proj`)), linear(m, `${l}.mlp.up_proj`)]), `${l}.mlp.down_proj`);
    x = g.op('Add', [x, mlp]);
  }

  // LM head: hidden · Wᵀ with W the embedding when tied (its transpose is constant-folded at session creation).
  const head = config.tieWordEmbeddings ? 'model.embed_tokens.weight' : w('lm_head.weight');
  const headT = g.op('Transpose', [head], { perm: [1, 0] });
  const logits = g.op('MatMul', [rmsNorm(x, 'model.norm.weight'), headT], {}, 'logits');

  decoderOutputs(g, logits, V, cache);
  const what = config.modelType === 'qwen2' ? 'Qwen2' : 'Llama';
  return g.toBytes(`${what} (${numLayers} layers, ${C} wide, ${H} heads / ${KV} KV heads of ${D}, vocab ${V}) exported by toolformer-ts`);
}

/**
 * RoPE from position_ids: the tables angle[b, s, j] = pos · θ^(−2j/D), duplicated over both halves → cos, sin
 * [B, 1, S, D]; returns x ↦ x · cos + rotate_half(x) · sin, rotate_half(x) = [−x₂, x₁] over the last axis.
 */
function ropeFrom(g: GraphBuilder, positionIds: string, D: number, theta: number): (x: string) => string {
  const invFreq = g.constFloat(Array.from({ length: D / 2 }, (_, j) => 1 / theta ** ((2 * j) / D)));
  const angles = g.op('Mul', [g.op('Unsqueeze', [g.op('Cast', [positionIds], { to: DataType.FLOAT }), g.constInt([2])]), invFreq]);
  const emb = g.op('Unsqueeze', [g.op('Concat', [angles, angles], { axis: -1 }), g.constInt([1])]);
  const cos = g.op('Cos', [emb]);
  const sin = g.op('Sin', [emb]);
  const half = g.constInt([D / 2]);
  const [start0, end0, axis3] = [g.constInt([0]), g.constInt([D]), g.constInt([3])];
  return (x: string) => {
    const x1 = g.op('Slice', [x, start0, half, axis3]);
    const x2 = g.op('Slice', [x, half, end0, axis3]);
    const rotated = g.op('Concat', [g.op('Neg', [x2]), x1], { axis: -1 });
    return g.op('Add', [g.op('Mul', [x, cos]), g.op('Mul', [rotated, sin])]);
  };
}
