import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../random/mulberry32.ts';
import { AdamW } from './adamw.ts';
import { Arena } from './arena.ts';
import { Gpt2 } from './gpt2.ts';
import { MIN_THREADED_MACS, MatmulThreads, parseThreads } from './matmul-threads.ts';

const randomFill = (x: Float32Array, seed: number): Float32Array => {
  const rng = mulberry32(seed);
  for (let i = 0; i < x.length; i++) x[i] = rng.normal();
  return x;
};

/** c = a·b (then c += a·b again when accumulate) in an arena of `threads` threads; returns a copy of c. */
function product(threads: number, M: number, K: number, N: number, accumulate: boolean): Float32Array {
  const arena = new Arena(4 * (M * K + K * N + M * N) + 2 ** 20, threads);
  try {
    const a = randomFill(arena.alloc(M * K), 1);
    const b = randomFill(arena.alloc(K * N), 2);
    const c = arena.alloc(M * N);
    arena.matmul(a, b, c, M, K, N);
    if (accumulate) arena.matmul(a, b, c, M, K, N, true);
    expect(arena.splitMatmuls).toBe(threads > 1 ? (accumulate ? 2 : 1) : 0);
    return c.slice();
  } finally {
    arena.close();
  }
}

/**
 * The kernel's arithmetic, in JS: each element of C is x = fround(x + fround(a·b)) over k in order, from 0 (or from C
 * when accumulating). Whatever the kernel's tiling, blocking or packing, it must give these bits: that is what makes
 * a thread count, or a faster kernel, train the same bytes as before.
 */
function referenceProduct(a: Float32Array, b: Float32Array, c: Float32Array, M: number, K: number, N: number): void {
  const f = Math.fround;
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let x = c[i * N + j];
      for (let k = 0; k < K; k++) x = f(x + f(a[i * K + k] * b[k * N + j]));
      c[i * N + j] = x;
    }
  }
}

describe('the matmul kernel', () => {
  it('computes every element by the same f32 operations in the same order as the JS reference, bit for bit', () => {
    // Rows not a multiple of 4 (the 1-row tail), columns not a multiple of 8 (the scalar tail) or over one panel of 64,
    // K over one block of 256.
    for (const [M, K, N] of [[7, 300, 21], [13, 64, 40], [4, 513, 8], [9, 17, 3], [9, 40, 150]] as const) {
      const arena = new Arena(4 * (M * K + K * N + 2 * M * N) + 2 ** 20);
      const a = randomFill(arena.alloc(M * K), M);
      const b = randomFill(arena.alloc(K * N), N);
      const c = randomFill(arena.alloc(M * N), K);
      const start = c.slice();
      const want = new Float32Array(M * N);
      referenceProduct(a, b, want, M, K, N);
      arena.matmul(a, b, c, M, K, N);
      expect(Buffer.from(c.slice().buffer).equals(Buffer.from(want.buffer)), `${M}×${K}×${N}`).toBe(true);
      const twice = want.slice();
      referenceProduct(a, b, twice, M, K, N);
      arena.matmul(a, b, c, M, K, N, true);
      expect(Buffer.from(c.slice().buffer).equals(Buffer.from(twice.buffer)), `${M}×${K}×${N} accumulate`).toBe(true);
      expect(start).not.toEqual(c); // (c started random: the non-accumulating call overwrote it)
    }
  });
});

describe('matmuls split over threads', () => {
  // Shapes large enough to be split (≥ MIN_THREADED_MACS), with rows not a multiple of 4 or of the thread count,
  // columns not a multiple of 8 (the scalar tail), and K over 256 (several k-blocks, the later ones accumulating).
  const shapes: [number, number, number][] = [[1030, 300, 37], [517, 256, 768], [2048, 64, 130]];

  it('write the same bytes as one thread, for 2 and 3 threads, with and without accumulate', () => {
    for (const [M, K, N] of shapes) {
      expect(M * K * N).toBeGreaterThanOrEqual(MIN_THREADED_MACS);
      for (const accumulate of [false, true]) {
        const one = product(1, M, K, N, accumulate);
        // The reference is right, not only self-consistent: one element against a float64 dot product.
        const a = randomFill(new Float32Array(M * K), 1);
        const b = randomFill(new Float32Array(K * N), 2);
        let dot = 0;
        for (let k = 0; k < K; k++) dot += a[(M - 1) * K + k] * b[k * N + (N - 1)];
        expect(one[M * N - 1]).toBeCloseTo((accumulate ? 2 : 1) * dot, 2);
        for (const threads of [2, 3]) {
          const many = product(threads, M, K, N, accumulate);
          expect(Buffer.from(many.buffer).equals(Buffer.from(one.buffer)), `${M}×${K}×${N} threads ${threads}`).toBe(true);
        }
      }
    }
  });

  it('train a GPT-2 to the same weights, moments and losses as one thread', () => {
    const config = { vocabSize: 512, nPositions: 64, nEmbd: 128, nLayer: 2, nHead: 4, layerNormEpsilon: 1e-5 };
    const B = 8;
    const T = config.nPositions;
    const rng = mulberry32(5);
    const x = Int32Array.from({ length: B * T }, () => Math.floor(rng.next() * config.vocabSize));
    const y = Int32Array.from({ length: B * T }, () => Math.floor(rng.next() * config.vocabSize));
    const train = (threads: number) => {
      const model = new Gpt2(config, B * T, T, threads);
      try {
        model.init(3);
        const opt = new AdamW(model, { lr: 1e-3, warmupSteps: 1, totalSteps: 10 });
        const losses: number[] = [];
        for (let s = 0; s < 3; s++) {
          model.zeroGrad();
          losses.push(model.forward(x, B, T, y));
          model.backward();
          opt.step();
        }
        if (threads > 1) expect(model.arena.splitMatmuls).toBeGreaterThan(20); // the large ones of each step
        return { losses, params: model.params.slice(), m: opt.m.slice() };
      } finally {
        model.close();
      }
    };
    const one = train(1);
    const two = train(2);
    expect(two.losses).toEqual(one.losses);
    expect(one.losses[2]).toBeLessThan(one.losses[0]);
    expect(Buffer.from(two.params.buffer).equals(Buffer.from(one.params.buffer))).toBe(true);
    expect(Buffer.from(two.m.buffer).equals(Buffer.from(one.m.buffer))).toBe(true);
  });

  it('a worker whose kernel cannot be built fails the call with an error, not a hang', () => {
    const memory = new WebAssembly.Memory({ initial: 64, maximum: 64, shared: true });
    // The one-thread build imports an unshared memory: instantiating it on a shared one is a LinkError in the worker.
    const unshared = readFileSync(fileURLToPath(new URL('./wasm/kernels.wasm', import.meta.url)));
    let localRows = 0;
    const pool = new MatmulThreads(2, memory, unshared, (_a, _b, _c, M) => { localRows += M; }, [65536]);
    try {
      expect(() => pool.matmul(0, 0, 0, 1024, 64, 64, 0)).toThrow(/matmul worker failed/);
      expect(localRows).toBe(512); // the caller's share ran; the worker's did not
    } finally {
      pool.close();
    }
    expect(() => pool.matmul(0, 0, 0, 1024, 64, 64, 0)).toThrow(/closed/);
  });

  it('--threads takes a count or auto', () => {
    expect(parseThreads(undefined)).toBe(1);
    expect(parseThreads('3')).toBe(3);
    expect(parseThreads('auto')).toBeGreaterThanOrEqual(1);
    for (const bad of ['0', '1.5', 'two', '-2']) expect(() => parseThreads(bad)).toThrow(/--threads must be a whole number/);
    expect(() => new Arena(2 ** 20, 0)).toThrow(/threads must be a whole number/);
  });
});
