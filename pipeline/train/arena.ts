/**
 * One WebAssembly.Memory shared by every tensor of the trainer, and the WASM SIMD kernels that work on it.
 *
 * Tensors are Float32Array views into the memory; a view's `byteOffset` is the pointer the kernels take. The memory
 * is sized once up front and never grown, because growing would detach every existing view. Untouched pages cost no
 * RAM, so a generous reservation is cheap.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PAGE = 65536;
/** The first 64 KiB are left to the AssemblyScript module's own static data. */
const BASE = PAGE;

interface KernelExports {
  matmul(a: number, b: number, c: number, M: number, K: number, N: number, accumulate: number): void;
  transpose(x: number, out: number, M: number, N: number): void;
}

export class Arena {
  readonly memory: WebAssembly.Memory;
  private readonly kernels: KernelExports;
  private top = BASE;

  /** @param bytes capacity reserved for all tensors. */
  constructor(bytes = 2 ** 30) {
    const pages = Math.ceil((bytes + BASE) / PAGE);
    this.memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    const wasm = readFileSync(fileURLToPath(new URL('./wasm/kernels.wasm', import.meta.url)));
    const instance = new WebAssembly.Instance(new WebAssembly.Module(wasm), {
      env: { memory: this.memory, abort: () => { throw new Error('wasm abort'); } },
    });
    this.kernels = instance.exports as unknown as KernelExports;
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

  get usedBytes(): number {
    return this.top;
  }

  /** c[M,N] = a[M,K] · b[K,N], or c += a · b when accumulate. All three must live in this arena. */
  matmul(a: Float32Array, b: Float32Array, c: Float32Array, M: number, K: number, N: number, accumulate = false): void {
    this.kernels.matmul(a.byteOffset, b.byteOffset, c.byteOffset, M, K, N, accumulate ? 1 : 0);
  }

  /** out[N,M] = xᵀ for x[M,N]. */
  transpose(x: Float32Array, out: Float32Array, M: number, N: number): void {
    this.kernels.transpose(x.byteOffset, out.byteOffset, M, N);
  }
}
