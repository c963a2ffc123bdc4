/**
 * A GPT-2 made k× wider and deeper that computes the same logits as its source, up to float rounding — a
 * function-preserving expansion (Net2Net, Chen et al. 2016), exact for GPT-2's operations. The bench uses it to run
 * the pipeline at a real model's cost with a trained model's verdicts (random weights at that size reject or keep calls
 * by chance, which changes how much work two-pass scoring can skip). Isomorphic (no node:*).
 *
 * With rep(v) = [v, v, …, v] (k copies) the wide model keeps rep(h) wherever the source has h:
 * - embeddings: wte'[t] = rep(wte[t]), wpe'[p] = rep(wpe[p]);
 * - LayerNorm: mean and variance of rep(h) equal those of h, so LN'(rep(h)) = rep(LN(h)) with rep(weight), rep(bias);
 * - a Conv1D x·W + b whose input is rep(x) (k copies) and whose output is `parts` blocks each to be rep'd:
 *   W'[j·I + i, p·kO + j'·O + o] = W[i, p·O + o] / k and b'[p·kO + j'·O + o] = b[p·O + o] (I, O the source's block
 *   widths), so x'·W' + b' = rep(x·W + b) block by block. c_attn has parts q, k, v; the heads stay C/nHead wide, so
 *   wide head h is source head h mod nHead and its scores and 1/√d scale are the source's;
 * - the residual adds rep to rep; GELU is elementwise;
 * - layers past the source's are identities: random LayerNorm, c_attn and c_fc (their cost is real), zero c_proj
 *   weights and biases (their output is exactly 0, so h + 0 = h);
 * - the tied head sums k copies (rep(y) · rep(e) = k·(y · e)), so ln_f's weight and bias are rep(·) / k.
 * The vocabulary and positions stay the source's (a wider vocabulary would add logits to every softmax).
 */
import { checkGpt2Weights, randomGpt2Weights, type Gpt2Config, type Gpt2Weights } from './gpt2-weights.ts';

export interface WidenGpt2Options {
  /** k: each hidden vector becomes k copies of itself (nEmbd and nHead × k). */
  factor: number;
  /** Layers of the wide model (≥ the source's); the extra ones are identities. */
  nLayer: number;
  /** Seed of the identity layers' random weights. */
  seed: number;
}

/** Each `block`-long block of v as k copies of itself: rep(v) when block = v.length; rows of an embedding, parts of a bias. */
function repeatBlocks(v: Float32Array, block: number, k: number): Float32Array {
  const out = new Float32Array(v.length * k);
  for (let start = 0; start < v.length; start += block) out.set(repeat(v.subarray(start, start + block), k), start * k);
  return out;
}

/** rep(v): k copies of v, end to end. */
function repeat(v: Float32Array, k: number, scale = 1): Float32Array {
  const out = new Float32Array(v.length * k);
  for (let j = 0; j < k; j++) for (let i = 0; i < v.length; i++) out[j * v.length + i] = v[i] * scale;
  return out;
}

/**
 * A Conv1D [I, parts·O] (row-major, y = x·W) widened to [k·I, parts·k·O]: input copies summed with weight 1/k,
 * each output part repeated k times.
 */
function widenConv1D(w: Float32Array, I: number, O: number, parts: number, k: number): Float32Array {
  const cols = parts * O;
  const wideCols = parts * k * O;
  const out = new Float32Array(k * I * wideCols);
  for (let ji = 0; ji < k; ji++) {
    for (let i = 0; i < I; i++) {
      const row = (ji * I + i) * wideCols;
      for (let p = 0; p < parts; p++) {
        for (let jo = 0; jo < k; jo++) {
          for (let o = 0; o < O; o++) out[row + p * k * O + jo * O + o] = w[i * cols + p * O + o] / k;
        }
      }
    }
  }
  return out;
}

/** The wide model's config and weights (see the header for why its logits equal the source's). */
export function widenGpt2(config: Gpt2Config, weights: Gpt2Weights, options: WidenGpt2Options): { config: Gpt2Config; weights: Gpt2Weights } {
  checkGpt2Weights(config, weights);
  const { factor: k, nLayer } = options;
  if (!Number.isInteger(k) || k < 1) throw new Error(`widenGpt2: factor must be a positive integer, got ${k}`);
  if (!Number.isInteger(nLayer) || nLayer < config.nLayer) throw new Error(`widenGpt2: nLayer ${nLayer} is below the source's ${config.nLayer}`);
  const C = config.nEmbd;
  const wide: Gpt2Config = { ...config, nEmbd: k * C, nHead: k * config.nHead, nLayer };
  // Identity layers start from random weights (as a real layer's cost), their projections then zeroed.
  const out: Gpt2Weights = randomGpt2Weights(wide, options.seed);
  const W = (name: string) => weights.get(name)!;
  out.set('wte.weight', repeatBlocks(W('wte.weight'), C, k));
  out.set('wpe.weight', repeatBlocks(W('wpe.weight'), C, k));
  for (let l = 0; l < config.nLayer; l++) {
    const h = `h.${l}`;
    for (const ln of ['ln_1', 'ln_2']) {
      out.set(`${h}.${ln}.weight`, repeat(W(`${h}.${ln}.weight`), k));
      out.set(`${h}.${ln}.bias`, repeat(W(`${h}.${ln}.bias`), k));
    }
    const linears: [string, number, number, number][] = [['attn.c_attn', C, C, 3], ['attn.c_proj', C, C, 1], ['mlp.c_fc', C, 4 * C, 1], ['mlp.c_proj', 4 * C, C, 1]];
    for (const [name, I, O, parts] of linears) {
      out.set(`${h}.${name}.weight`, widenConv1D(W(`${h}.${name}.weight`), I, O, parts, k));
      out.set(`${h}.${name}.bias`, repeatBlocks(W(`${h}.${name}.bias`), O, k));
    }
  }
  for (let l = config.nLayer; l < nLayer; l++) {
    for (const name of ['attn.c_proj', 'mlp.c_proj']) {
      out.get(`h.${l}.${name}.weight`)!.fill(0);
      out.get(`h.${l}.${name}.bias`)!.fill(0);
    }
  }
  out.set('ln_f.weight', repeat(W('ln_f.weight'), k, 1 / k));
  out.set('ln_f.bias', repeat(W('ln_f.bias'), k, 1 / k));
  checkGpt2Weights(wide, out);
  return { config: wide, weights: out };
}
