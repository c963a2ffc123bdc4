/**
 * The hand-off between a trainer and the ONNX exporter: a GPT-2 configuration and its weights.
 *
 * `Gpt2Weights` is a `Map<string, Float32Array>` keyed by Hugging Face GPT-2 names (without the `transformer.`
 * prefix), each array row-major in the shape below. Linear layers use GPT-2's Conv1D layout, **[in, out]**, so
 * `y = x · W + b` (not PyTorch nn.Linear's [out, in]). C = nEmbd, V = vocabSize, P = nPositions.
 *
 * | name                         | shape    |
 * |------------------------------|----------|
 * | `wte.weight`                 | [V, C]   | token embedding; the LM head is tied to it (logits = h · wteᵀ)
 * | `wpe.weight`                 | [P, C]   | position embedding
 * | `h.{i}.ln_1.weight` / `.bias` | [C]     | LayerNorm before attention
 * | `h.{i}.attn.c_attn.weight`   | [C, 3C]  | fused q, k, v (columns 0..C-1 are q, then k, then v)
 * | `h.{i}.attn.c_attn.bias`     | [3C]     |
 * | `h.{i}.attn.c_proj.weight`   | [C, C]   | attention output projection
 * | `h.{i}.attn.c_proj.bias`     | [C]      |
 * | `h.{i}.ln_2.weight` / `.bias` | [C]     | LayerNorm before the MLP
 * | `h.{i}.mlp.c_fc.weight`      | [C, 4C]  |
 * | `h.{i}.mlp.c_fc.bias`        | [4C]     |
 * | `h.{i}.mlp.c_proj.weight`    | [4C, C]  |
 * | `h.{i}.mlp.c_proj.bias`      | [C]      |
 * | `ln_f.weight` / `.bias`      | [C]      | final LayerNorm
 *
 * for i in 0..nLayer-1. Heads split q/k/v columns into nHead contiguous blocks of C/nHead. The MLP activation is
 * GPT-2's tanh-approximated GELU ("gelu_new"); attention scores are scaled by 1/sqrt(C/nHead).
 */
import { checkWeightShapes, randomWeights } from './weight-map.ts';

export interface Gpt2Config {
  vocabSize: number;
  /** Longest sequence (rows of `wpe.weight`). */
  nPositions: number;
  nEmbd: number;
  nLayer: number;
  nHead: number;
  /** @default 1e-5 in GPT-2 */
  layerNormEpsilon: number;
}

export type Gpt2Weights = Map<string, Float32Array>;

/** Every weight name with its shape, in a stable order. */
export function gpt2WeightShapes(config: Gpt2Config): Map<string, number[]> {
  const { vocabSize: V, nPositions: P, nEmbd: C, nLayer } = config;
  const shapes = new Map<string, number[]>([
    ['wte.weight', [V, C]],
    ['wpe.weight', [P, C]],
  ]);
  for (let i = 0; i < nLayer; i++) {
    const h = `h.${i}`;
    shapes.set(`${h}.ln_1.weight`, [C]);
    shapes.set(`${h}.ln_1.bias`, [C]);
    shapes.set(`${h}.attn.c_attn.weight`, [C, 3 * C]);
    shapes.set(`${h}.attn.c_attn.bias`, [3 * C]);
    shapes.set(`${h}.attn.c_proj.weight`, [C, C]);
    shapes.set(`${h}.attn.c_proj.bias`, [C]);
    shapes.set(`${h}.ln_2.weight`, [C]);
    shapes.set(`${h}.ln_2.bias`, [C]);
    shapes.set(`${h}.mlp.c_fc.weight`, [C, 4 * C]);
    shapes.set(`${h}.mlp.c_fc.bias`, [4 * C]);
    shapes.set(`${h}.mlp.c_proj.weight`, [4 * C, C]);
    shapes.set(`${h}.mlp.c_proj.bias`, [C]);
  }
  shapes.set('ln_f.weight', [C]);
  shapes.set('ln_f.bias', [C]);
  return shapes;
}

/** Throws one Error listing every missing, unexpected or wrongly sized weight. */
export function checkGpt2Weights(config: Gpt2Config, weights: Gpt2Weights): void {
  if (config.nEmbd % config.nHead !== 0) {
    throw new Error(`Gpt2Config: nEmbd ${config.nEmbd} is not divisible by nHead ${config.nHead}`);
  }
  checkWeightShapes('Gpt2Weights', gpt2WeightShapes(config), weights);
}

/**
 * Deterministic random weights for tests (not a training init): matrices N(0, 0.2²), `wte` N(0, 0.5²) so the
 * next-token distributions are far from uniform, LayerNorm weights 1 + N(0, 0.1²) and every bias N(0, 0.1²),
 * so that a wrong wiring of any parameter shows up in the logits.
 */
export function randomGpt2Weights(config: Gpt2Config, seed: number): Gpt2Weights {
  return randomWeights(gpt2WeightShapes(config), seed, 'wte.weight', (name) => /ln_[12f]\.weight$/.test(name));
}
