/**
 * onnxruntime-web, loaded on demand. This module has no DOM code at top level and is imported with `await import()`,
 * so the `ort` chunk can be re-imported by onnxruntime-web's own thread workers (with DOM code in that chunk,
 * `numThreads > 1` hangs: "document is not defined" in the thread worker).
 *
 * Two entries, each resolving its `.wasm` through `new URL(…, import.meta.url)`, which Vite turns into a same-origin
 * asset, each in a chunk of its own (vite.config.ts):
 *   - `onnxruntime-web/wasm` (the WASM backend only): ort-wasm-simd-threaded.wasm, 14.3 MB (2.8 MB brotli);
 *   - `onnxruntime-web` (WebGPU through JSEP, and WASM): ort-wasm-simd-threaded.jsep.wasm, 28.4 MB.
 * The page takes the second only when WebGPU was chosen, so a WASM visit never downloads the JSEP build.
 */
import type { Backend } from './backend.ts';

export type Ort = typeof import('onnxruntime-web');

export async function loadOrt(threads: number, backend: Backend): Promise<Ort> {
  const ort: Ort = backend === 'webgpu' ? await import('onnxruntime-web') : await import('onnxruntime-web/wasm');
  ort.env.wasm.numThreads = threads;
  // We are already in a worker; no extra proxy worker.
  ort.env.wasm.proxy = false;
  ort.env.logLevel = 'error';
  return ort;
}

/** Session options for one backend: the execution provider list, nothing else. */
export function sessionOptions(backend: Backend): { executionProviders: string[]; graphOptimizationLevel: 'all'; logSeverityLevel: 3 } {
  // Severity 3 = errors only: the WebGPU EP otherwise warns (on the console) that shape ops run on the CPU.
  return { executionProviders: backend === 'webgpu' ? ['webgpu'] : ['wasm'], graphOptimizationLevel: 'all', logSeverityLevel: 3 };
}
