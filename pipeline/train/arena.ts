/**
 * One WebAssembly.Memory shared by every tensor of the trainer, and the WASM SIMD kernels that work on it.
 *
 * Tensors are Float32Array views into the memory; a view's `byteOffset` is the pointer the kernels take. The memory
 * is sized once up front and never grown, because growing would detach every existing view. Untouched pages cost no
 * RAM, so a generous reservation is cheap.
 *
 * With threads > 1 the memory is shared and large matmuls are split by rows over worker threads
 * (matmul-threads.ts), with results bit for bit those of one thread.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type MatmulFn, MatmulThreads } from './matmul-threads.ts';

const PAGE = 65536;
/** The first 64 KiB are left to the AssemblyScript module's own static data. */
const BASE = PAGE;

/** Floats of packing scratch a matmul needs per thread (kernels.as.ts: KB · NP). */
const MATMUL_SCRATCH_FLOATS = 256 * 64;

interface KernelExports {
  matmul(a: number, b: number, c: number, M: number, K: number, N: number, accumulate: number, scratch: number): void;
  transpose(x: number, out: number, M: number, N: number): void;
}

export class Arena {
  readonly memory: WebAssembly.Memory;
  private readonly kernels: KernelExports;
  private readonly pool: MatmulThreads | undefined;
  /** The kernel's matmul on this thread, with this thread's scratch. */
  private readonly local: MatmulFn;
  private top = BASE;

  /**
   * @param bytes capacity reserved for all tensors.
   * @param threads threads a large matmul is split over (the caller's included); 1 = no workers, ordinary memory.
   */
  constructor(bytes = 2 ** 30, readonly threads = 1) {
    if (!Number.isInteger(threads) || threads < 1) throw new Error(`threads must be a whole number ≥ 1, not ${threads}`);
    const pages = Math.ceil((bytes + BASE) / PAGE);
    const shared = threads > 1;
    this.memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared });
    const wasm = readFileSync(fileURLToPath(new URL(shared ? './wasm/kernels-shared.wasm' : './wasm/kernels.wasm', import.meta.url)));
    const instance = new WebAssembly.Instance(new WebAssembly.Module(wasm), {
      env: { memory: this.memory, abort: () => { throw new Error('wasm abort'); } },
    });
    this.kernels = instance.exports as unknown as KernelExports;
    // Each thread packs B into its own scratch: the caller's first, then one per worker.
    const scratch = Array.from({ length: threads }, () => this.alloc(MATMUL_SCRATCH_FLOATS).byteOffset);
    const matmul = this.kernels.matmul;
    this.local = (a, b, c, M, K, N, accumulate) => matmul(a, b, c, M, K, N, accumulate, scratch[0]);
    if (shared) this.pool = new MatmulThreads(threads, this.memory, wasm, this.local, scratch.slice(1));
  }

  /** Stops the matmul workers (when threads > 1); the arena's tensors stay readable. */
  close(): void {
    this.pool?.close();
  }

  /** A zeroed f32 tensor of n elements, 16-byte aligned for SIMD loads. */
  alloc(n: number): Float32Array {
    const bytes = Math.ceil((n * 4) / 16) * 16;
    if (this.top + bytes > this.memory.buffer.byteLength) {
      throw new Error(`arena full: need ${this.top + bytes} bytes, have ${this.memory.buffer.byteLength}`);
    }
    const view = new Float32Array(this.memory.buffer, this.top, n);
    this.top += bytes;
    return view;
  }

  /** Matmuls split over threads so far (0 with one thread). */
  get splitMatmuls(): number {
    return this.pool?.splitCalls ?? 0;
  }

  get usedBytes(): number {
    return this.top;
  }

  /** c[M,N] = a[M,K] · b[K,N], or c += a · b when accumulate. All three must live in this arena. */
  matmul(a: Float32Array, b: Float32Array, c: Float32Array, M: number, K: number, N: number, accumulate = false): void {
    if (this.pool) this.pool.matmul(a.byteOffset, b.byteOffset, c.byteOffset, M, K, N, accumulate ? 1 : 0);
    else this.local(a.byteOffset, b.byteOffset, c.byteOffset, M, K, N, accumulate ? 1 : 0);
  }

  /** out[N,M] = xᵀ for x[M,N]. */
  transpose(x: Float32Array, out: Float32Array, M: number, N: number): void {
    this.kernels.transpose(x.byteOffset, out.byteOffset, M, N);
  }
}
