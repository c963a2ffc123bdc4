// @ts-nocheck -- AssemblyScript source (f32, v128, load/store builtins), not TypeScript: built by build.ts into
// kernels.wasm. Every pointer is a byte offset into the memory imported from JS; matrices are f32, row-major.

/**
 * C[M,N] = A[M,K] · B[K,N]   (accumulate = 0), or   C += A · B   (accumulate = 1).
 * Micro-kernel: 4 rows of C × 8 columns (two f32x4 accumulators per row, 8 in all, so they stay in registers);
 * each step over k loads 8 floats of B's row k once and uses them for 4 rows of A.
 * Blocking: k in blocks of KB, and within a k-block the columns in panels of NP; each panel of B (KB × NP floats)
 * is first copied to `scratch` as NP/8 strips of KB × 8 contiguous floats, so the micro-kernel streams B
 * sequentially (a row of B is N floats apart: at N = 1,024 every k would fall in the same cache set) and a panel
 * (64 KiB) stays in L2 while every 4-row block of A passes over it.
 * Every element of C is still x = x + a·b over k in order (the same f32 operations whatever the blocking), so the
 * bits do not depend on KB, NP, the packing or which rows a call is given (matmul-threads.test.ts).
 * `scratch`: KB · NP floats of this thread's own.
 */
export function matmul(a: usize, b: usize, c: usize, M: i32, K: i32, N: i32, accumulate: i32, scratch: usize): void {
  const N8 = N & ~7;
  for (let k0 = 0; k0 < K; k0 += KB) {
    const kb = min(KB, K - k0);
    const acc = k0 > 0 ? 1 : accumulate;
    const ak = a + (<usize>k0 << 2);
    const bk = b + <usize>k0 * (<usize>N << 2);
    for (let j0 = 0; j0 < N8; j0 += NP) {
      const nb = min(NP, N8 - j0);
      pack(bk + (<usize>j0 << 2), scratch, kb, N, nb);
      panel(ak, scratch, c + (<usize>j0 << 2), M, kb, N, K, nb, acc);
    }
    // Columns N8..N−1 (fewer than 8), and the rows after the last multiple of 4 over all of N8, from B unpacked.
    const M4 = M & ~3;
    for (let i = 0; i < M4; i++) tailColumns(ak + <usize>i * (<usize>K << 2), bk, c + <usize>i * (<usize>N << 2), kb, N, N8, acc);
    for (let i = M4; i < M; i++) rowTail(ak + <usize>i * (<usize>K << 2), bk, c + <usize>i * (<usize>N << 2), kb, N, N8, acc);
  }
}

const KB = 256;
const NP = 64;

/** scratch[s][k][0..8) = B[k][8s .. 8s+8) for the nb (a multiple of 8) columns at b, K rows N floats apart. */
function pack(b: usize, scratch: usize, K: i32, N: i32, nb: i32): void {
  const rowB = <usize>N << 2;
  for (let s = 0; s < nb; s += 8) {
    let src = b + (<usize>s << 2);
    let dst = scratch + <usize>s * (<usize>K << 2);
    for (let k = 0; k < K; k++) {
      v128.store(dst, v128.load(src));
      v128.store(dst, v128.load(src, 16), 16);
      src += rowB;
      dst += 32;
    }
  }
}

/** C[0:M4, 0:nb] (+)= A[0:M4, 0:K] · panel, A's rows being lda floats apart, the panel packed by pack(). */
function panel(a: usize, packed: usize, c: usize, M: i32, K: i32, N: i32, lda: i32, nb: i32, accumulate: i32): void {
  const rowA = <usize>lda << 2;
  const rowBC = <usize>N << 2;
  for (let i = 0; i + 4 <= M; i += 4) {
    const a0 = a + <usize>i * rowA;
    const c0 = c + <usize>i * rowBC;
    for (let j = 0; j < nb; j += 8) {
      const cj = c0 + (<usize>j << 2);
      let x00 = f32x4.splat(0), x01 = f32x4.splat(0), x10 = f32x4.splat(0), x11 = f32x4.splat(0);
      let x20 = f32x4.splat(0), x21 = f32x4.splat(0), x30 = f32x4.splat(0), x31 = f32x4.splat(0);
      if (accumulate) {
        x00 = v128.load(cj); x01 = v128.load(cj, 16);
        x10 = v128.load(cj + rowBC); x11 = v128.load(cj + rowBC, 16);
        x20 = v128.load(cj + 2 * rowBC); x21 = v128.load(cj + 2 * rowBC, 16);
        x30 = v128.load(cj + 3 * rowBC); x31 = v128.load(cj + 3 * rowBC, 16);
      }
      let bp = packed + <usize>j * (<usize>K << 2);
      let ap = a0;
      for (let k = 0; k < K; k++) {
        const b0 = v128.load(bp);
        const b1 = v128.load(bp, 16);
        const s0 = f32x4.splat(load<f32>(ap));
        const s1 = f32x4.splat(load<f32>(ap + rowA));
        const s2 = f32x4.splat(load<f32>(ap + 2 * rowA));
        const s3 = f32x4.splat(load<f32>(ap + 3 * rowA));
        x00 = f32x4.add(x00, f32x4.mul(s0, b0)); x01 = f32x4.add(x01, f32x4.mul(s0, b1));
        x10 = f32x4.add(x10, f32x4.mul(s1, b0)); x11 = f32x4.add(x11, f32x4.mul(s1, b1));
        x20 = f32x4.add(x20, f32x4.mul(s2, b0)); x21 = f32x4.add(x21, f32x4.mul(s2, b1));
        x30 = f32x4.add(x30, f32x4.mul(s3, b0)); x31 = f32x4.add(x31, f32x4.mul(s3, b1));
        bp += 32;
        ap += 4;
      }
      v128.store(cj, x00); v128.store(cj, x01, 16);
      v128.store(cj + rowBC, x10); v128.store(cj + rowBC, x11, 16);
      v128.store(cj + 2 * rowBC, x20); v128.store(cj + 2 * rowBC, x21, 16);
      v128.store(cj + 3 * rowBC, x30); v128.store(cj + 3 * rowBC, x31, 16);
    }
  }
}

/** Columns 0..N8−1 of one row of C (a row after the last multiple of 4), four at a time, B unpacked. */
function rowTail(ai: usize, b: usize, ci: usize, K: i32, N: i32, N8: i32, accumulate: i32): void {
  const rowBC = <usize>N << 2;
  for (let j = 0; j < N8; j += 4) {
    const cj = ci + (<usize>j << 2);
    let x = accumulate ? v128.load(cj) : f32x4.splat(0);
    let bp = b + (<usize>j << 2);
    for (let k = 0; k < K; k++) {
      x = f32x4.add(x, f32x4.mul(f32x4.splat(load<f32>(ai + (<usize>k << 2))), v128.load(bp)));
      bp += rowBC;
    }
    v128.store(cj, x);
  }
  tailColumns(ai, b, ci, K, N, N8, accumulate);
}

/** Columns N8..N-1 of one row of C, scalar. */
function tailColumns(ai: usize, b: usize, ci: usize, K: i32, N: i32, N8: i32, accumulate: i32): void {
  for (let j = N8; j < N; j++) {
    let s: f32 = accumulate ? load<f32>(ci + (<usize>j << 2)) : 0;
    for (let k = 0; k < K; k++) s += load<f32>(ai + (<usize>k << 2)) * load<f32>(b + ((<usize>k * <usize>N + <usize>j) << 2));
    store<f32>(ci + (<usize>j << 2), s);
  }
}

/** out[N,M] = transpose of x[M,N], in 16 × 16 tiles so reads and writes both stay in cache. */
export function transpose(x: usize, out: usize, M: i32, N: i32): void {
  for (let i0 = 0; i0 < M; i0 += 16) {
    const i1 = min(i0 + 16, M);
    for (let j0 = 0; j0 < N; j0 += 16) {
      const j1 = min(j0 + 16, N);
      for (let i = i0; i < i1; i++) {
        const xi = x + ((<usize>i * <usize>N) << 2);
        for (let j = j0; j < j1; j++) store<f32>(out + ((<usize>j * <usize>M + <usize>i) << 2), load<f32>(xi + (<usize>j << 2)));
      }
    }
  }
}
