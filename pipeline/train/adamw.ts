/**
 * AdamW over the model's flat parameter array, with linear warmup, cosine decay to minLrRatio·lr, and global
 * gradient-norm clipping. Weight decay applies to matrices and embeddings (rank ≥ 2), not to biases or LayerNorm
 * gains, as in nanoGPT.
 */
import type { Gpt2 } from './gpt2.ts';

export interface AdamWOptions {
  lr: number;
  warmupSteps: number;
  totalSteps: number;
  /** @default 0.1 */
  minLrRatio?: number;
  /** @default 0.1 */
  weightDecay?: number;
  /** @default 0.9 */
  beta1?: number;
  /** @default 0.95 */
  beta2?: number;
  /** Clip the global gradient norm to this. @default 1 */
  gradClip?: number;
  /** Learning-rate multipliers by parameter name: one for the tensor or one per element (e.g. to protect
   * constructed heads). */
  lrScale?: (name: string) => number | Float32Array;
}

export class AdamW {
  readonly m: Float32Array;
  readonly v: Float32Array;
  /** Steps taken so far. */
  step_ = 0;
  private readonly decayMask: Uint8Array;
  private readonly lrMul: Float32Array;

  constructor(private readonly model: Gpt2, readonly options: AdamWOptions) {
    const n = model.params.length;
    this.m = new Float32Array(n);
    this.v = new Float32Array(n);
    this.decayMask = new Uint8Array(n);
    this.lrMul = new Float32Array(n).fill(1);
    for (const s of model.segments) {
      if (s.shape.length >= 2) this.decayMask.fill(1, s.offset, s.offset + s.size);
      const scale = options.lrScale?.(s.name) ?? 1;
      if (typeof scale === 'number') this.lrMul.fill(scale, s.offset, s.offset + s.size);
      else this.lrMul.set(scale, s.offset);
    }
  }

  /** Learning rate at step s (0-based). */
  lrAt(s: number): number {
    const { lr, warmupSteps, totalSteps, minLrRatio = 0.1 } = this.options;
    if (s < warmupSteps) return (lr * (s + 1)) / warmupSteps;
    const progress = Math.min(1, (s - warmupSteps) / Math.max(1, totalSteps - warmupSteps));
    return lr * (minLrRatio + (1 - minLrRatio) * 0.5 * (1 + Math.cos(Math.PI * progress)));
  }

  /** One update from model.grads; returns the gradient norm before clipping. */
  step(): number {
    const { weightDecay = 0.1, beta1 = 0.9, beta2 = 0.95, gradClip = 1 } = this.options;
    const p = this.model.params;
    const g = this.model.grads;
    let sq = 0;
    for (let i = 0; i < g.length; i++) sq += g[i] * g[i];
    const norm = Math.sqrt(sq);
    const clip = norm > gradClip ? gradClip / norm : 1;
    const lr = this.lrAt(this.step_);
    this.step_++;
    const bc1 = 1 - beta1 ** this.step_;
    const bc2 = 1 - beta2 ** this.step_;
    const { m, v, decayMask, lrMul } = this;
    for (let i = 0; i < p.length; i++) {
      const gi = g[i] * clip;
      m[i] = beta1 * m[i] + (1 - beta1) * gi;
      v[i] = beta2 * v[i] + (1 - beta2) * gi * gi;
      const lri = lr * lrMul[i];
      if (decayMask[i]) p[i] -= lri * weightDecay * p[i];
      p[i] -= (lri * (m[i] / bc1)) / (Math.sqrt(v[i] / bc2) + 1e-8);
    }
    return norm;
  }
}
