/**
 * Causal multi-head self-attention forward and backward for the hand-written GPT-2 (gpt2.ts), per (batch, head) over
 * per-head scratch buffers in the trainer's arena; matmuls in the arena's WASM SIMD kernel, softmax in plain JS.
 * Shapes: B batch, T time, C width, H heads, D = C/H.
 */
import type { Arena } from './arena.ts';
import { gatherHead, scatterHead } from './ops.ts';

export class CausalAttention {
  readonly D: number;
  // Per-head scratch: [T,D] (or [T,T] for hKT's transposes) ×5 and [T,T] ×2, sized for maxT.
  private readonly hQ: Float32Array;
  private readonly hK: Float32Array;
  private readonly hV: Float32Array;
  private readonly hY: Float32Array;
  private readonly hKT: Float32Array;
  private readonly hS: Float32Array;
  private readonly hS2: Float32Array;

  constructor(private readonly arena: Arena, maxT: number, readonly C: number, readonly H: number) {
    const D = (this.D = C / H);
    [this.hQ, this.hK, this.hV, this.hY, this.hKT] = [0, 1, 2, 3, 4].map(() => arena.alloc(maxT * Math.max(D, maxT)));
    this.hS = arena.alloc(maxT * maxT);
    this.hS2 = arena.alloc(maxT * maxT);
  }

  /**
   * Causal self-attention, per (batch, head): S = Q·Kᵀ/√D, P = softmax(S masked), Y = P·V. Reads qkv [N,3C] (N = B·T
   * rows, Q then K then V), writes the probabilities into att [B,H,T,T] (0 above the diagonal; backward needs them)
   * and the heads, concatenated, into y [N,C].
   */
  forward(qkv: Float32Array, att: Float32Array, y: Float32Array, B: number, T: number): void {
    const { C, H, D } = this;
    const scale = 1 / Math.sqrt(D);
    const { hQ, hK, hV, hY, hKT } = this;
    for (let b = 0; b < B; b++) {
      for (let h = 0; h < H; h++) {
        gatherHead(qkv, hQ, b, T, 3 * C, h * D, D);
        gatherHead(qkv, hK, b, T, 3 * C, C + h * D, D);
        gatherHead(qkv, hV, b, T, 3 * C, 2 * C + h * D, D);
        const P = att.subarray((b * H + h) * T * T, (b * H + h + 1) * T * T);
        this.arena.transpose(hK, hKT, T, D);
        this.arena.matmul(hQ, hKT, P, T, D, T); // S[T,T]
        for (let i = 0; i < T; i++) {
          const o = i * T;
          let max = -Infinity;
          for (let j = 0; j <= i; j++) {
            const s = P[o + j] * scale;
            P[o + j] = s;
            if (s > max) max = s;
          }
          let sum = 0;
          for (let j = 0; j <= i; j++) {
            const e = Math.exp(P[o + j] - max);
            P[o + j] = e;
            sum += e;
          }
          const inv = 1 / sum;
          for (let j = 0; j <= i; j++) P[o + j] *= inv;
          for (let j = i + 1; j < T; j++) P[o + j] = 0;
        }
        this.arena.matmul(P, hV, hY, T, T, D); // Y[T,D]
        scatterHead(hY, y, b, T, C, h * D, D);
      }
    }
  }

  /**
   * Given dy [N,C] (the gradient of forward's y), writes d(qkv) [N,3C] (every element overwritten); reads the qkv and
   * the probabilities `att` that forward used.
   */
  backward(qkv: Float32Array, att: Float32Array, dy: Float32Array, dqkv: Float32Array, B: number, T: number): void {
    const { C, H, D } = this;
    const scale = 1 / Math.sqrt(D);
    const a = this.arena;
    const { hQ, hK, hV, hY, hKT, hS, hS2 } = this;
    for (let b = 0; b < B; b++) {
      for (let h = 0; h < H; h++) {
        const P = att.subarray((b * H + h) * T * T, (b * H + h + 1) * T * T);
        gatherHead(dy, hY, b, T, C, h * D, D); // dY[T,D]
        gatherHead(qkv, hV, b, T, 3 * C, 2 * C + h * D, D);
        // dP = dY · Vᵀ  [T,T]
        a.transpose(hV, hKT, T, D);
        a.matmul(hY, hKT, hS, T, D, T);
        // dV = Pᵀ · dY  [T,D]
        a.transpose(P, hS2, T, T);
        a.matmul(hS2, hY, hV, T, T, D);
        scatterHead(hV, dqkv, b, T, 3 * C, 2 * C + h * D, D);
        // dS = P ⊙ (dP − Σ_j dP⊙P) · scale   (rows i, j ≤ i)
        for (let i = 0; i < T; i++) {
          const o = i * T;
          let dot = 0;
          for (let j = 0; j <= i; j++) dot += hS[o + j] * P[o + j];
          for (let j = 0; j <= i; j++) hS[o + j] = P[o + j] * (hS[o + j] - dot) * scale;
          for (let j = i + 1; j < T; j++) hS[o + j] = 0;
        }
        gatherHead(qkv, hQ, b, T, 3 * C, h * D, D);
        gatherHead(qkv, hK, b, T, 3 * C, C + h * D, D);
        // dQ = dS · K ; dK = dSᵀ · Q
        a.matmul(hS, hK, hY, T, T, D);
        scatterHead(hY, dqkv, b, T, 3 * C, h * D, D);
        a.transpose(hS, hS2, T, T);
        a.matmul(hS2, hQ, hY, T, T, D);
        scatterHead(hY, dqkv, b, T, 3 * C, C + h * D, D);
      }
    }
  }
}
