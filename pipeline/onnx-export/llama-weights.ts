/**
 * The hand-off between a weight source and the Llama-family ONNX exporter (llama-graph.ts): a configuration and
 * its weights, keyed and shaped exactly as the Hugging Face PyTorch state dict of `LlamaForCausalLM` /
 * `Qwen2ForCausalLM` (linear layers nn.Linear **[out, in]**, y = x · Wᵀ + b). C = hiddenSize, I = intermediateSize,
 * H = numHeads, KV = numKvHeads, D = headDim, V = vocabSize.
 *
 * | name                                          | shape     |
 * |-----------------------------------------------|-----------|
 * | `model.embed_tokens.weight`                   | [V, C]    | tied LM head when tieWordEmbeddings
 * | `model.layers.{i}.input_layernorm.weight`     | [C]       | RMSNorm before attention
 * | `model.layers.{i}.self_attn.q_proj.weight`    | [H·D, C]  | (+ `.bias` [H·D] when attentionBias: Qwen2)
 * | `model.layers.{i}.self_attn.k_proj.weight`    | [KV·D, C] | (+ `.bias`)
 * | `model.layers.{i}.self_attn.v_proj.weight`    | [KV·D, C] | (+ `.bias`)
 * | `model.layers.{i}.self_attn.o_proj.weight`    | [C, H·D]  | no bias
 * | `model.layers.{i}.post_attention_layernorm.weight` | [C]  | RMSNorm before the MLP
 * | `model.layers.{i}.mlp.gate_proj.weight`       | [I, C]    | SwiGLU: down(silu(gate(x)) · up(x))
 * | `model.layers.{i}.mlp.up_proj.weight`         | [I, C]    |
 * | `model.layers.{i}.mlp.down_proj.weight`       | [C, I]    |
 * | `model.norm.weight`                           | [C]       | final RMSNorm
 * | `lm_head.weight`                              | [V, C]    | only when !tieWordEmbeddings
 *
 * Grouped-query attention: query head h reads KV head ⌊h / (H / KV)⌋ (Hugging Face `repeat_kv`). RoPE is the
 * "rotate half" form with inv_freq_j = θ^(−2j/D), applied to q and k at `position_ids`.
 */
import { checkWeightShapes, randomWeights } from './weight-map.ts';

export interface LlamaConfig {
  /** config.json `model_type`: "llama" (SmolLM2, Llama 3) or "qwen2" (Qwen2 / Qwen2.5: q/k/v biases). */
  modelType: 'llama' | 'qwen2';
  vocabSize: number;
  hiddenSize: number;
  intermediateSize: number;
  numLayers: number;
  numHeads: number;
  /** Fewer than numHeads under grouped-query attention; numHeads must be a multiple of it. */
  numKvHeads: number;
  headDim: number;
  maxPositions: number;
  rmsNormEps: number;
  ropeTheta: number;
  /** q/k/v projections have biases (Qwen2). */
  attentionBias: boolean;
  tieWordEmbeddings: boolean;
}

export type LlamaWeights = Map<string, Float32Array>;

/** Every weight name with its shape, in a stable order. */
export function llamaWeightShapes(config: LlamaConfig): Map<string, number[]> {
  const { vocabSize: V, hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KV, headDim: D } = config;
  const shapes = new Map<string, number[]>([['model.embed_tokens.weight', [V, C]]]);
  for (let i = 0; i < config.numLayers; i++) {
    const l = `model.layers.${i}`;
    shapes.set(`${l}.input_layernorm.weight`, [C]);
    for (const [p, heads] of [['q', H], ['k', KV], ['v', KV]] as const) {
      shapes.set(`${l}.self_attn.${p}_proj.weight`, [heads * D, C]);
      if (config.attentionBias) shapes.set(`${l}.self_attn.${p}_proj.bias`, [heads * D]);
    }
    shapes.set(`${l}.self_attn.o_proj.weight`, [C, H * D]);
    shapes.set(`${l}.post_attention_layernorm.weight`, [C]);
    shapes.set(`${l}.mlp.gate_proj.weight`, [I, C]);
    shapes.set(`${l}.mlp.up_proj.weight`, [I, C]);
    shapes.set(`${l}.mlp.down_proj.weight`, [C, I]);
  }
  shapes.set('model.norm.weight', [C]);
  if (!config.tieWordEmbeddings) shapes.set('lm_head.weight', [V, C]);
  return shapes;
}

/** Throws one Error listing every missing, unexpected or wrongly sized weight, or an impossible head split. */
export function checkLlamaWeights(config: LlamaConfig, weights: LlamaWeights): void {
  if (config.numHeads % config.numKvHeads !== 0) {
    throw new Error(`LlamaConfig: numHeads ${config.numHeads} is not a multiple of numKvHeads ${config.numKvHeads}`);
  }
  if (config.headDim % 2 !== 0) throw new Error(`LlamaConfig: headDim ${config.headDim} must be even for RoPE`);
  checkWeightShapes('LlamaWeights', llamaWeightShapes(config), weights);
}

/**
 * Deterministic random weights for tests: matrices N(0, 0.2²), the embedding N(0, 0.5²) so next-token
 * distributions are far from uniform, RMSNorm weights 1 + N(0, 0.1²), biases N(0, 0.1²) — any miswired parameter
 * shows in the logits.
 */
export function randomLlamaWeights(config: LlamaConfig, seed: number): LlamaWeights {
  return randomWeights(llamaWeightShapes(config), seed, 'model.embed_tokens.weight', (name) => /norm\.weight$/.test(name));
}
