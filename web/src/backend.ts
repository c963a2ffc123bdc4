/**
 * Which onnxruntime-web execution provider to use, and why. Runs in the worker (WorkerNavigator has `gpu` too).
 *
 * WebGPU when `navigator.gpu.requestAdapter()` gives an adapter — checked here, before onnxruntime-web is asked,
 * because its WebGPU setup can hang or throw a bare number when there is none (seen in headless Chromium without
 * `--enable-unsafe-webgpu`). Otherwise WASM,
 * multi-threaded when the page is cross-origin isolated (SharedArrayBuffer available).
 * The environment is passed in, so the rule is testable without a browser.
 */
export type Backend = 'webgpu' | 'wasm';
export type BackendPreference = 'auto' | Backend;

export interface BackendChoice {
  backend: Backend;
  /** WASM threads (1 = single-threaded); also used by the WebGPU EP for CPU-side kernels. */
  threads: number;
  /** One line for the page: why this backend (and, after a fallback, why not the other). */
  reason: string;
  /** e.g. "google|swiftshader" when WebGPU runs. */
  adapter?: string;
}

/** The slice of the (worker) global scope the choice depends on. */
export interface BackendEnv {
  gpu?: { requestAdapter(): Promise<unknown | null> };
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
}

/** Thread count for WASM: up to 4, only when cross-origin isolated. */
export function wasmThreads(env: BackendEnv): number {
  return env.crossOriginIsolated ? Math.max(1, Math.min(4, env.hardwareConcurrency || 1)) : 1;
}

function threadNote(env: BackendEnv): string {
  const n = wasmThreads(env);
  return env.crossOriginIsolated ? `${n} thread${n > 1 ? 's' : ''}` : '1 thread (page not cross-origin isolated)';
}

function describeAdapter(adapter: unknown): string {
  const info = (adapter as { info?: { vendor?: string; architecture?: string } }).info;
  return info ? `${info.vendor || '?'}|${info.architecture || '?'}` : 'unknown adapter';
}

export async function chooseBackend(prefer: BackendPreference, env: BackendEnv): Promise<BackendChoice> {
  const threads = wasmThreads(env);
  const wasm = (why: string): BackendChoice => ({ backend: 'wasm', threads, reason: `${why}; WASM, ${threadNote(env)}` });
  if (prefer === 'wasm') return wasm('WASM requested');
  if (!env.gpu) return wasm('WebGPU unavailable: navigator.gpu is missing in this browser');
  let adapter: unknown = null;
  try {
    adapter = await env.gpu.requestAdapter();
  } catch (e) {
    return wasm(`WebGPU unavailable: requestAdapter() threw ${String(e)}`);
  }
  if (!adapter) return wasm('WebGPU unavailable: requestAdapter() returned no adapter');
  const name = describeAdapter(adapter);
  return { backend: 'webgpu', threads, adapter: name, reason: `WebGPU adapter ${name}` };
}

/** The choice after WebGPU session creation failed: WASM, with the error as the reason. */
export function fallbackToWasm(env: BackendEnv, error: unknown): BackendChoice {
  const msg = error instanceof Error ? error.message : String(error);
  return { backend: 'wasm', threads: wasmThreads(env), reason: `WebGPU failed (${msg}); fell back to WASM, ${threadNote(env)}` };
}
