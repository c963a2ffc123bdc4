/**
 * Initialise a two-layer induction circuit BY CONSTRUCTION, then let ordinary training shape the rest (a small GPT-2
 * trained from random weights on this corpus did not learn to copy in context; measured in PyTorch first: copy gain
 * +6.8 nats/token constructed, +2.8 after 255 steps of LM training, +0.19 for random init trained as long).
 *
 * Residual stream subspaces (C = 256):
 *   POS  [0, 64)    position code: 16 frequencies × (cos, sin, −cos, −sin), zero-mean so LayerNorm only rescales
 *   TOK  [64, 128)  token identity: a random zero-mean unit vector per token (the tied unembedding reads it)
 *   PREV [128, 192) the previous token's identity, written by layer 0 head 0
 *   FLAG [192, 194) (+f, −f) on `<|endoftext|>`: the attention sink for "no earlier occurrence"
 *   FREE [194, C)   learned features (small random init)
 * Layer 0 head 0: query = position rotated by one step, key = position → attends to t−1; copies TOK into PREV.
 * Layer 1 head 0 (induction): query = TOK, key = PREV → attends to the token after an earlier occurrence of the
 *   current token and writes its TOK ×α, so the tied unembedding predicts it; the sink (`<|endoftext|>`, whose TOK
 *   code is zero, so it contributes nothing) scores half a match.
 * Layer 1 head 1: attends to itself and subtracts the current token's TOK, so an unmatched token is not repeated.
 * Every other attention/MLP output weight starts at zero; their input weights keep the random init.
 */
import { mulberry32, type Random } from '../random/mulberry32.ts';
import type { Gpt2 } from './gpt2.ts';

export interface ConstructOptions {
  /** Attention logit of the previous-token match in layer 0. @default 40 */
  prevScore?: number;
  /** Attention logit of an induction match in layer 1. @default 30 */
  matchScore?: number;
  /** Gain of the copied identity in the residual stream. @default 4 */
  copyGain?: number;
  /**
   * Norm of the constructed codes (POS, TOK). LayerNorm makes the circuit invariant to it, but AdamW moves every
   * weight by ~lr per step: larger codes are relatively less disturbed by training. @default 4
   */
  codeNorm?: number;
  /** Logit of a copied token after the final LayerNorm (sets ln_f's gain). @default 10 */
  copyLogit?: number;
  seed?: number;
}

const POS = 0;
const TOK = 64;
const PREV = 128;
const FLAG = 192;
const FREE = 194;
const NF = 16; // frequencies

/** Frequencies whose cosine sums are near zero at every non-zero offset below maxT (random search, seeded). */
export function positionFrequencies(maxT: number, seed = 7): number[] {
  const rng = mulberry32(seed);
  let best: number[] = [];
  let bestMax = Infinity;
  for (let trial = 0; trial < 300; trial++) {
    const w = Array.from({ length: NF }, () => 0.15 + rng.next() * (Math.PI - 0.3));
    let max = 0;
    for (let d = 1; d < maxT; d++) {
      let s = 0;
      for (const f of w) s += Math.cos(f * d);
      max = Math.max(max, Math.abs(s));
    }
    if (max < bestMax) {
      bestMax = max;
      best = w;
    }
  }
  return best;
}

/**
 * Token embeddings [V, C]: each token's TOK code (64 dims, zero-mean, norm E), <|endoftext|>'s FLAG pair (±E/√2)
 * instead, FREE dims small random, everything else 0.
 */
function writeTokenCodes(wte: Float32Array, V: number, C: number, eosId: number, E: number, rng: Random): void {
  wte.fill(0);
  for (let v = 0; v < V; v++) {
    const row = v * C;
    if (v !== eosId) {
      const code = Array.from({ length: 64 }, () => rng.normal());
      const mean = code.reduce((a, b) => a + b, 0) / 64;
      const norm = Math.hypot(...code.map((x) => x - mean));
      for (let j = 0; j < 64; j++) wte[row + TOK + j] = (E * (code[j] - mean)) / norm;
    } else {
      wte[row + FLAG] = E / Math.SQRT2;
      wte[row + FLAG + 1] = -E / Math.SQRT2;
    }
    for (let j = FREE; j < C; j++) wte[row + j] = rng.normal() * 0.02;
  }
}

/** Position embeddings [P, C]: the POS code, (cos ωt, sin ωt, −cos ωt, −sin ωt)·posScale per frequency ω of `omega`. */
function writePositionCode(wpe: Float32Array, P: number, C: number, omega: readonly number[], posScale: number): void {
  wpe.fill(0);
  for (let t = 0; t < P; t++) {
    for (let f = 0; f < NF; f++) {
      const c = Math.cos(omega[f] * t) * posScale;
      const s = Math.sin(omega[f] * t) * posScale;
      const o = t * C + POS + 4 * f;
      wpe[o] = c;
      wpe[o + 1] = s;
      wpe[o + 2] = -c;
      wpe[o + 3] = -s;
    }
  }
}

/** Sets one entry of a weight matrix (`name`, [row, col]); every constructed head is written through it. */
type SetWeight = (name: string, row: number, col: number, value: number) => void;

/**
 * Layer 0, head 0, the previous-token head: its query is the position code rotated one step back (scaled by `c0`), its
 * key the position code, so position t attends to t − 1; its value is the attended token's TOK code (÷ `s0`, the
 * LayerNorm scale, back to norm E), written into PREV.
 */
function previousTokenHead(model: Gpt2, set: SetWeight, omega: readonly number[], c0: number, s0: number): void {
  const C = model.config.nEmbd;
  const qk0 = 'h.0.attn.c_attn.weight';
  clearHead(model, 0, 0);
  for (let f = 0; f < NF; f++) {
    const [cw, sw] = [Math.cos(omega[f]), Math.sin(omega[f])];
    const xc = POS + 4 * f;
    const xs = xc + 1;
    // q = c0 · R(−ω) (cos ωt, sin ωt) = c0 · (cos ω(t−1), sin ω(t−1))
    set(qk0, xc, 2 * f, c0 * cw);
    set(qk0, xs, 2 * f, c0 * sw);
    set(qk0, xc, 2 * f + 1, -c0 * sw);
    set(qk0, xs, 2 * f + 1, c0 * cw);
    set(qk0, xc, C + 2 * f, 1);
    set(qk0, xs, C + 2 * f + 1, 1);
  }
  for (let j = 0; j < 64; j++) {
    set(qk0, TOK + j, 2 * C + j, 1 / s0); // v = TOK at the attended position, back to norm E
    set('h.0.attn.c_proj.weight', j, PREV + j, 1); // head 0 dims → PREV
  }
}

export function constructInduction(model: Gpt2, eosId: number, options: ConstructOptions = {}): void {
  const { prevScore = 40, matchScore = 30, copyGain = 4, codeNorm: E = 4, copyLogit = 10, seed = 11 } = options;
  const { vocabSize: V, nPositions: P, nEmbd: C, nHead: H, nLayer: L } = model.config;
  const D = C / H;
  if (C !== 256 || D !== 64 || L < 2) throw new Error('the construction is laid out for nEmbd 256, 4 heads, ≥ 2 layers');
  const omega = positionFrequencies(P);
  const posScale = E / Math.sqrt(2 * NF); // |POS| = E: 4 dims per frequency, (c, s, −c, −s)·posScale
  writeTokenCodes(model.param('wte.weight'), V, C, eosId, E, mulberry32(seed));
  writePositionCode(model.param('wpe.weight'), P, C, omega, posScale);
  // LayerNorm scales the stream to norm √C: s = √C / |x|. |POS| = |TOK| = E, so layer 0 sees |x| = E√2,
  // layer 1 E√3 (POS, TOK, PREV), the final LayerNorm E·√(2 + α²) (POS, PREV, α·copied TOK).
  const s0 = Math.sqrt(C) / (E * Math.sqrt(2));
  const s1 = Math.sqrt(C) / (E * Math.sqrt(3));
  const scale = Math.sqrt(D);

  for (let l = 0; l < L; l++) {
    const h = `h.${l}`;
    // Zero every output projection: only the constructed heads write to the stream at init.
    model.param(`${h}.attn.c_proj.weight`).fill(0);
    model.param(`${h}.mlp.c_proj.weight`).fill(0);
  }
  const set: SetWeight = (name, row, col, value) => {
    const w = model.param(name);
    const cols = name.endsWith('c_attn.weight') ? 3 * C : C;
    w[row * cols + col] = value;
  };
  // The POS entries after LayerNorm: u·cos, u·sin with u = s·posScale.
  const u0 = s0 * posScale;
  const u1 = s1 * posScale;

  previousTokenHead(model, set, omega, (prevScore * scale) / (NF * u0 * u0), s0);

  // Layer 1, head 0: induction head. Score = c1 · s1² · <TOK_t, PREV_s> / √D = matchScore on a match.
  const qk1 = 'h.1.attn.c_attn.weight';
  clearHead(model, 1, 0);
  clearHead(model, 1, 1);
  const c1 = (matchScore * scale) / (s1 * s1 * E * E);
  for (let j = 0; j < 64; j++) {
    set(qk1, TOK + j, j, c1);
    set(qk1, PREV + j, C + j, 1);
    set(qk1, TOK + j, 2 * C + j, 1 / s1);
    set('h.1.attn.c_proj.weight', j, TOK + j, copyGain);
  }
  // Sink: the all-ones direction of the head's 64 dims, unused by the zero-mean codes. q gets σ/8 per dim from
  // the bias; at <|endoftext|> the flag (+sBos, −sBos after LayerNorm) gives k = 2·sBos·w per dim, so the sink
  // scores 64 · (σ/8) · 2·sBos·w / √D = 2σ·sBos·w; w is set for matchScore / 2.
  const bias1 = model.param('h.1.attn.c_attn.bias');
  // At <|endoftext|>: |x| = E√2 (POS, FLAG), flag entries ±E/√2.
  const sBos = Math.sqrt(C) / (E * Math.SQRT2);
  const sigma = 1;
  const wFlag = matchScore / (4 * sigma * sBos * (E / Math.SQRT2));
  for (let j = 0; j < 64; j++) {
    bias1[j] = sigma / 8;
    set(qk1, FLAG, C + j, wFlag);
    set(qk1, FLAG + 1, C + j, -wFlag);
  }
  // Layer 1, head 1: attends to itself (position code, no rotation) and subtracts the current token's identity.
  const c2 = (prevScore * scale) / (NF * u1 * u1);
  for (let f = 0; f < NF; f++) {
    const xc = POS + 4 * f;
    set(qk1, xc, D + 2 * f, c2);
    set(qk1, xc + 1, D + 2 * f + 1, c2);
    set(qk1, xc, C + D + 2 * f, 1);
    set(qk1, xc + 1, C + D + 2 * f + 1, 1);
  }
  for (let j = 0; j < 64; j++) {
    set(qk1, TOK + j, 2 * C + D + j, -1 / s1);
    set('h.1.attn.c_proj.weight', D + j, TOK + j, 1);
  }
  // Final LayerNorm: the copied token's logit = g · (√C · α / √(2 + α²)) · E  (its TOK code has norm E).
  const g = copyLogit / ((Math.sqrt(C) * copyGain * E) / Math.sqrt(2 + copyGain * copyGain));
  model.param('ln_f.weight').fill(g);
}

/**
 * Learning-rate multipliers that protect the constructed circuit: `factor` on the constructed embedding dims
 * (POS, TOK, FLAG), on the q/k/v columns and output rows of the constructed heads (layer 0 head 0, layer 1 heads
 * 0 and 1) and on ln_f; 1 elsewhere (free dims, other heads, MLPs), which learn at full rate.
 */
export function constructedLrScale(model: Gpt2, factor: number): (name: string) => number | Float32Array {
  const { nEmbd: C, nHead: H } = model.config;
  const D = C / H;
  const heads: [number, number][] = [[0, 0], [1, 0], [1, 1]];
  const masks = new Map<string, Float32Array>();
  for (const name of ['wte.weight', 'wpe.weight']) {
    const m = new Float32Array(model.param(name).length).fill(1);
    for (let r = 0; r < m.length / C; r++) m.fill(factor, r * C, r * C + FREE);
    masks.set(name, m);
  }
  for (const [l, h] of heads) {
    const qkvName = `h.${l}.attn.c_attn.weight`;
    const qkv = masks.get(qkvName) ?? new Float32Array(C * 3 * C).fill(1);
    const bias = masks.get(`h.${l}.attn.c_attn.bias`) ?? new Float32Array(3 * C).fill(1);
    for (const part of [0, 1, 2]) {
      const c0 = part * C + h * D;
      for (let r = 0; r < C; r++) qkv.fill(factor, r * 3 * C + c0, r * 3 * C + c0 + D);
      bias.fill(factor, c0, c0 + D);
    }
    masks.set(qkvName, qkv);
    masks.set(`h.${l}.attn.c_attn.bias`, bias);
    const projName = `h.${l}.attn.c_proj.weight`;
    const proj = masks.get(projName) ?? new Float32Array(C * C).fill(1);
    proj.fill(factor, h * D * C, (h + 1) * D * C);
    masks.set(projName, proj);
  }
  masks.set('ln_f.weight', new Float32Array(C).fill(factor));
  return (name) => masks.get(name) ?? 1;
}

/** Zero the q, k, v columns of one head (weights and biases). */
function clearHead(model: Gpt2, layer: number, head: number): void {
  const C = model.config.nEmbd;
  const D = C / model.config.nHead;
  const w = model.param(`h.${layer}.attn.c_attn.weight`);
  const b = model.param(`h.${layer}.attn.c_attn.bias`);
  for (const part of [0, 1, 2]) {
    const col0 = part * C + head * D;
    for (let r = 0; r < C; r++) w.fill(0, r * 3 * C + col0, r * 3 * C + col0 + D);
    b.fill(0, col0, col0 + D);
  }
}
