/**
 * Large matmuls split by rows of C over worker threads that run the same WASM kernel on the same (shared) memory.
 *
 * Why the result is bit for bit the single-threaded one: the kernel computes every element of C by the same sequence
 * of f32 multiplies and adds over k, in order, whichever rows it is handed (kernels.as.ts; the 4-row micro-kernel
 * and the 1-row tail do the same arithmetic per element), so rows [m0, m1) computed on another thread are the
 * bytes the whole call would have written. A training run with --threads N therefore takes the same steps and
 * writes the same checkpoints as one with --threads 1 (matmul-threads.test.ts, resume.test.ts check it).
 *
 * Hand-off: each worker owns a control block of Int32 slots in a SharedArrayBuffer. The caller writes a call's
 * arguments, bumps the block's `posted` counter and wakes the worker (Atomics.notify); the worker runs its rows,
 * copies the counter to `done` and wakes the caller, which meanwhile ran the first share itself. No messages, no
 * promises: a call returns when C is complete, so the trainer's code stays synchronous.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** `--threads <n|auto>` as a count: a whole number ≥ 1, or auto = the cores Node may use (os.availableParallelism). */
export function parseThreads(value: string | number | undefined, flag = '--threads'): number {
  if (value === undefined) return 1;
  if (value === 'auto') return availableParallelism();
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a whole number ≥ 1 or auto, not ${value}`);
  return n;
}

/** Control block slots (Int32), one block per worker. */
const POSTED = 0;
const DONE = 1;
const FAILED = 2;
const ARGS = 3; // a, b, c (byte offsets, as uint32), M, K, N, accumulate
const SLOTS = 16;

/**
 * Below this many multiply-adds a call stays on the calling thread: waking a worker costs tens of µs, about 2^18
 * multiply-adds. (The attention's per-head products, T·D·T = 2^20 at T = 128, D = 64, stay whole.)
 */
export const MIN_THREADED_MACS = 1 << 21;
/** A worker that has not answered in this long is taken as dead (it gets ~50 ms of work per call). */
const ANSWER_TIMEOUT_MS = 10 * 60 * 1000;

/** c[M,N] (+)= a[M,K] · b[K,N] on the calling thread; pointers are byte offsets in the memory. */
export type MatmulFn = (a: number, b: number, c: number, M: number, K: number, N: number, accumulate: number) => void;

/** CommonJS, evaluated by each worker (eval: true, so no loader or file path is involved under tsx or vitest). */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { memory, wasm, control, block, scratch } = workerData;
const ctl = new Int32Array(control, block * ${SLOTS} * 4, ${SLOTS});
let matmul;
try {
  matmul = new WebAssembly.Instance(new WebAssembly.Module(wasm), { env: { memory } }).exports.matmul;
} catch (e) {
  Atomics.store(ctl, ${FAILED}, 1);
}
let seen = 0;
for (;;) {
  Atomics.wait(ctl, ${POSTED}, seen);
  seen = Atomics.load(ctl, ${POSTED});
  if (seen < 0) break;
  try {
    if (!matmul) throw new Error('no kernel');
    matmul(ctl[${ARGS}] >>> 0, ctl[${ARGS + 1}] >>> 0, ctl[${ARGS + 2}] >>> 0, ctl[${ARGS + 3}], ctl[${ARGS + 4}], ctl[${ARGS + 5}], ctl[${ARGS + 6}], scratch);
  } catch (e) {
    Atomics.store(ctl, ${FAILED}, 1);
  }
  Atomics.store(ctl, ${DONE}, seen);
  Atomics.notify(ctl, ${DONE});
}
`;

export class MatmulThreads {
  private readonly workers: Worker[] = [];
  private readonly blocks: Int32Array[] = [];
  private closed = false;
  /** Calls split over the threads so far (the rest ran on the caller's thread alone). */
  splitCalls = 0;

  /**
   * @param threads all threads a call uses, the caller's included (so threads − 1 workers).
   * @param wasm the shared-memory build of the kernel (kernels-shared.wasm).
   * @param scratch each worker's packing scratch in the memory (a byte offset; kernels.as.ts matmul), threads − 1 of them.
   */
  constructor(readonly threads: number, memory: WebAssembly.Memory, wasm: Uint8Array, private readonly local: MatmulFn, scratch: readonly number[]) {
    if (scratch.length !== threads - 1) throw new Error(`matmul threads: ${threads - 1} workers need ${threads - 1} scratch areas, got ${scratch.length}`);
    const control = new SharedArrayBuffer((threads - 1) * SLOTS * 4);
    for (let w = 0; w < threads - 1; w++) {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { memory, wasm, control, block: w, scratch: scratch[w] } });
      worker.unref(); // an unclosed arena must not keep the process alive
      this.workers.push(worker);
      this.blocks.push(new Int32Array(control, w * SLOTS * 4, SLOTS));
    }
  }

  /** c[M,N] (+)= a[M,K] · b[K,N], pointers being byte offsets in the shared memory; rows shared out in multiples of 4. */
  matmul(a: number, b: number, c: number, M: number, K: number, N: number, accumulate: number): void {
    if (this.closed) throw new Error('matmul threads closed');
    const share = Math.ceil(M / this.threads / 4) * 4;
    if (M * K * N < MIN_THREADED_MACS || share >= M) {
      this.local(a, b, c, M, K, N, accumulate);
      return;
    }
    this.splitCalls++;
    const posted: [Int32Array, number][] = [];
    for (let w = 0, m0 = share; w < this.workers.length && m0 < M; w++, m0 += share) {
      const rows = Math.min(share, M - m0);
      const ctl = this.blocks[w];
      ctl.set([a + m0 * K * 4, b, c + m0 * N * 4, rows, K, N, accumulate], ARGS);
      const seq = ctl[POSTED] + 1;
      Atomics.store(ctl, POSTED, seq);
      Atomics.notify(ctl, POSTED);
      posted.push([ctl, seq]);
    }
    this.local(a, b, c, share, K, N, accumulate);
    for (const [ctl, seq] of posted) {
      const deadline = Date.now() + ANSWER_TIMEOUT_MS;
      for (let done = Atomics.load(ctl, DONE); done !== seq; done = Atomics.load(ctl, DONE)) {
        if (Date.now() > deadline) throw new Error(`a matmul worker did not answer in ${ANSWER_TIMEOUT_MS / 1000} s`);
        Atomics.wait(ctl, DONE, done, 1000);
      }
      if (ctl[FAILED]) throw new Error('a matmul worker failed (its kernel could not be built or aborted)');
    }
  }

  /** Stops the workers; later calls throw. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const ctl of this.blocks) {
      Atomics.store(ctl, POSTED, -1);
      Atomics.notify(ctl, POSTED);
    }
    for (const w of this.workers) void w.terminate();
  }
}
