/**
 * Which onnxruntime-web execution provider to use, and why. Runs in the worker (WorkerNavigator has `gpu` too).
 *
 * `auto`: WebGPU when `navigator.gpu.requestAdapter()` gives a hardware adapter — checked here, before
 * onnxruntime-web is asked, because its WebGPU setup can hang or throw a bare number when there is none (seen in
 * headless Chromium without `--enable-unsafe-webgpu`). A fallback (software) adapter is not a GPU: Chromium on a
 * machine without one offers SwiftShader (`info.isFallbackAdapter` true, vendor "google", architecture
 * "swiftshader", measured in Chromium 156), which scores ~30× slower than WASM on the same CPU
 * (pipeline/bench/README.md: 90 vs 2,940 tok/s), so `auto` takes WASM then. `webgpu` takes any adapter, software included (the browser tests run
 * WebGPU on SwiftShader). WASM is multi-threaded when the page is cross-origin isolated (SharedArrayBuffer).
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

/** What a WebGPU adapter says about itself (GPUAdapterInfo); every field may be missing or empty. */
export interface AdapterInfo {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
  /** GPUAdapterInfo.isFallbackAdapter (Chromium ≥ 136); older builds had it on the adapter itself. */
  isFallbackAdapter?: boolean;
}

/** The slice of the (worker) global scope the choice depends on. */
export interface BackendEnv {
  gpu?: { requestAdapter(): Promise<{ info?: AdapterInfo; isFallbackAdapter?: boolean } | null> };
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
}

/**
 * Thread count for WASM, only when cross-origin isolated: onnxruntime-web's own default, half the logical cores
 * (rounded up), at most 4. Its intra-op threads spin while they wait, so one per physical core is the most that
 * helps, and the page, its other workers and other programs keep the rest. (A thread per logical core, this
 * function's rule until now, put 2 spinning threads on CI's 2 cores beside the test runner; one CI run of 2026-12-02
 * saw a page stay in session creation for over 3 minutes there, where a load takes ~30 s. That run's cause was
 * not captured; with this rule a 2-core machine starts no thread pool at all.)
 */
export function wasmThreads(env: BackendEnv): number {
  return env.crossOriginIsolated ? Math.max(1, Math.min(4, Math.ceil((env.hardwareConcurrency || 1) / 2))) : 1;
}

function threadNote(env: BackendEnv): string {
  const n = wasmThreads(env);
  return env.crossOriginIsolated ? `${n} thread${n > 1 ? 's' : ''}` : '1 thread (page not cross-origin isolated)';
}

function describeAdapter(info: AdapterInfo | undefined): string {
  return info ? `${info.vendor || '?'}|${info.architecture || '?'}` : 'unknown adapter';
}

/** Software rasterisers that implement WebGPU on the CPU, by the names their adapters report. */
const SOFTWARE_ADAPTER = /swiftshader|llvmpipe|lavapipe|softpipe|microsoft basic render|\bwarp\b/i;

/** Why an adapter is software (a fallback adapter, or a known CPU implementation by name), or null for a GPU. */
export function softwareAdapter(adapter: { info?: AdapterInfo; isFallbackAdapter?: boolean }): string | null {
  const info = adapter.info;
  if (info?.isFallbackAdapter === true || adapter.isFallbackAdapter === true) return 'a fallback adapter';
  const named = [info?.vendor, info?.architecture, info?.device, info?.description].find((s) => s && SOFTWARE_ADAPTER.test(s));
  return named ? `a software adapter (${named})` : null;
}

export async function chooseBackend(prefer: BackendPreference, env: BackendEnv): Promise<BackendChoice> {
  const threads = wasmThreads(env);
  const wasm = (why: string): BackendChoice => ({ backend: 'wasm', threads, reason: `${why}; WASM, ${threadNote(env)}` });
  if (prefer === 'wasm') return wasm('WASM requested');
  if (!env.gpu) return wasm('WebGPU unavailable: navigator.gpu is missing in this browser');
  let adapter: Awaited<ReturnType<NonNullable<BackendEnv['gpu']>['requestAdapter']>> = null;
  try {
    adapter = await env.gpu.requestAdapter();
  } catch (e) {
    return wasm(`WebGPU unavailable: requestAdapter() threw ${String(e)}`);
  }
  if (!adapter) return wasm('WebGPU unavailable: requestAdapter() returned no adapter');
  const name = describeAdapter(adapter.info);
  const software = softwareAdapter(adapter);
  if (software && prefer === 'auto') {
    return wasm(`WebGPU adapter ${name} is ${software} (software, not a GPU; slower than WASM), so not used (?backend=webgpu forces it)`);
  }
  if (software) return { backend: 'webgpu', threads, adapter: name, reason: `WebGPU requested: WebGPU adapter ${name}, ${software} (software, slower than WASM)` };
  return { backend: 'webgpu', threads, adapter: name, reason: `WebGPU adapter ${name}` };
}

/** The choice after WebGPU session creation failed: WASM, with the error as the reason. */
export function fallbackToWasm(env: BackendEnv, error: unknown): BackendChoice {
  const msg = error instanceof Error ? error.message : String(error);
  return { backend: 'wasm', threads: wasmThreads(env), reason: `WebGPU failed (${msg}); fell back to WASM, ${threadNote(env)}` };
}
