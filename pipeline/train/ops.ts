/**
 * The GPT-2 trainer's elementwise and row-wise operations over Float32Array, forward and backward
 * (the matmuls live in arena.ts's WASM kernel). Shapes in comments: N rows of C features.
 */

/** What LayerNorm keeps from its forward pass for the backward one. */
export interface LnActs {
  xhat: Float32Array; // [N,C] normalised input
  rstd: Float32Array; // [N] 1/std
  out: Float32Array; // [N,C] xhat·g + b
}

const GELU_K = Math.sqrt(2 / Math.PI);

/** out = (x − mean) / std · g + b per row; keeps xhat and 1/std. */
export function layerNorm(x: Float32Array, g: Float32Array, b: Float32Array, acts: LnActs, N: number, C: number, eps: number): void {
  const { xhat, rstd, out } = acts;
  for (let n = 0; n < N; n++) {
    const o = n * C;
    let mean = 0;
    for (let c = 0; c < C; c++) mean += x[o + c];
    mean /= C;
    let v = 0;
    for (let c = 0; c < C; c++) {
      const d = x[o + c] - mean;
      v += d * d;
    }
    const r = 1 / Math.sqrt(v / C + eps);
    rstd[n] = r;
    for (let c = 0; c < C; c++) {
      const xh = (x[o + c] - mean) * r;
      xhat[o + c] = xh;
      out[o + c] = xh * g[c] + b[c];
    }
  }
}

/** dx += d(input) given dout = d(out); dg, db accumulated. */
export function layerNormBackward(dout: Float32Array, acts: LnActs, g: Float32Array, dg: Float32Array, db: Float32Array,
  dx: Float32Array, N: number, C: number): void {
  const { xhat, rstd } = acts;
  for (let n = 0; n < N; n++) {
    const o = n * C;
    let mdxh = 0;
    let mdxhXh = 0;
    for (let c = 0; c < C; c++) {
      const d = dout[o + c];
      const dxh = d * g[c];
      dg[c] += d * xhat[o + c];
      db[c] += d;
      mdxh += dxh;
      mdxhXh += dxh * xhat[o + c];
    }
    mdxh /= C;
    mdxhXh /= C;
    const r = rstd[n];
    for (let c = 0; c < C; c++) {
      const dxh = dout[o + c] * g[c];
      dx[o + c] += r * (dxh - mdxh - xhat[o + c] * mdxhXh);
    }
  }
}

/** out[T,D] = src rows b·T..b·T+T-1, columns col..col+D-1 (src rows are `stride` floats). */
export function gatherHead(src: Float32Array, out: Float32Array, b: number, T: number, stride: number, col: number, D: number): void {
  for (let t = 0; t < T; t++) {
    const o = (b * T + t) * stride + col;
    out.set(src.subarray(o, o + D), t * D);
  }
}

export function scatterHead(src: Float32Array, dst: Float32Array, b: number, T: number, stride: number, col: number, D: number): void {
  for (let t = 0; t < T; t++) dst.set(src.subarray(t * D, t * D + D), (b * T + t) * stride + col);
}

/** GPT-2's "gelu_new": 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))); tanh via exp (faster than Math.tanh in V8). */
export function geluForward(x: Float32Array, out: Float32Array, th: Float32Array, n: number): void {
  for (let i = 0; i < n; i++) {
    const v = x[i];
    const u = GELU_K * (v + 0.044715 * v * v * v);
    const t = u > 15 ? 1 : u < -15 ? -1 : 1 - 2 / (Math.exp(2 * u) + 1);
    th[i] = t;
    out[i] = 0.5 * v * (1 + t);
  }
}

/** d(in place) := d(gelu) · gelu'(x), from the tanh kept by the forward pass. */
export function geluBackward(x: Float32Array, th: Float32Array, d: Float32Array, n: number): void {
  for (let i = 0; i < n; i++) {
    const v = x[i];
    const t = th[i];
    const dth = (1 - t * t) * GELU_K * (1 + 3 * 0.044715 * v * v);
    d[i] *= 0.5 * (1 + t) + 0.5 * v * dth;
  }
}
