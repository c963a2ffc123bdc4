import { describe, expect, it } from 'vitest';
import { chooseBackend, fallbackToWasm, softwareAdapter, wasmThreads, type BackendEnv } from './backend.ts';

/** What Chromium 156 reports for a GPU, and for SwiftShader with --enable-unsafe-webgpu on a machine without one. */
const gpuAdapter = { info: { vendor: 'nvidia', architecture: 'ampere', device: '', description: '', isFallbackAdapter: false } };
const swiftShader = { info: { vendor: 'google', architecture: 'swiftshader', device: '', description: '', isFallbackAdapter: true } };
const adapter = gpuAdapter;
const env = (over: Partial<BackendEnv> = {}): BackendEnv => ({
  gpu: { requestAdapter: async () => adapter },
  crossOriginIsolated: true,
  hardwareConcurrency: 8,
  ...over,
});

describe('chooseBackend', () => {
  it('takes WebGPU when a hardware adapter exists, naming it', async () => {
    expect(await chooseBackend('auto', env())).toEqual({
      backend: 'webgpu', threads: 4, adapter: 'nvidia|ampere', reason: 'WebGPU adapter nvidia|ampere',
    });
  });
  it('auto: a fallback (software) adapter is not a GPU — WASM, saying why; ?backend=webgpu still takes it', async () => {
    const soft = env({ gpu: { requestAdapter: async () => swiftShader } });
    expect(await chooseBackend('auto', soft)).toEqual({
      backend: 'wasm', threads: 4,
      reason: 'WebGPU adapter google|swiftshader is a fallback adapter (software, not a GPU; slower than WASM), so not used (?backend=webgpu forces it); WASM, 4 threads',
    });
    expect(await chooseBackend('webgpu', soft)).toEqual({
      backend: 'webgpu', threads: 4, adapter: 'google|swiftshader',
      reason: 'WebGPU requested: WebGPU adapter google|swiftshader, a fallback adapter (software, slower than WASM)',
    });
  });
  it('knows software adapters by name when the fallback flag is missing (older browsers, other rasterisers)', () => {
    expect(softwareAdapter({ info: { vendor: 'google', architecture: 'swiftshader' } })).toBe('a software adapter (swiftshader)');
    expect(softwareAdapter({ info: { vendor: 'mesa', description: 'llvmpipe (LLVM 15.0.6, 256 bits)' } })).toBe('a software adapter (llvmpipe (LLVM 15.0.6, 256 bits))');
    expect(softwareAdapter({ isFallbackAdapter: true })).toBe('a fallback adapter');
    expect(softwareAdapter(gpuAdapter)).toBeNull();
  });
  it('falls back to WASM and says why: no navigator.gpu, no adapter, a throwing requestAdapter', async () => {
    expect((await chooseBackend('auto', env({ gpu: undefined }))).reason).toBe(
      'WebGPU unavailable: navigator.gpu is missing in this browser; WASM, 4 threads');
    const none = await chooseBackend('webgpu', env({ gpu: { requestAdapter: async () => null } }));
    expect(none.backend).toBe('wasm');
    expect(none.reason).toMatch(/^WebGPU unavailable: requestAdapter\(\) returned no adapter/);
    const thrown = await chooseBackend('auto', env({ gpu: { requestAdapter: async () => { throw new Error('blocked'); } } }));
    expect(thrown.reason).toMatch(/threw Error: blocked/);
  });
  it('honours an explicit WASM request and uses one thread when not cross-origin isolated', async () => {
    const c = await chooseBackend('wasm', env({ crossOriginIsolated: false }));
    expect(c).toEqual({ backend: 'wasm', threads: 1, reason: 'WASM requested; WASM, 1 thread (page not cross-origin isolated)' });
  });
});

describe('wasmThreads and fallbackToWasm', () => {
  it('half the logical cores (rounded up), at most 4, and only when isolated: onnxruntime-web\'s own default', () => {
    expect(wasmThreads(env({ hardwareConcurrency: 2 }))).toBe(1);
    expect(wasmThreads(env({ hardwareConcurrency: 3 }))).toBe(2);
    expect(wasmThreads(env({ hardwareConcurrency: 6 }))).toBe(3);
    expect(wasmThreads(env({ hardwareConcurrency: 16 }))).toBe(4);
    expect(wasmThreads(env({ crossOriginIsolated: false }))).toBe(1);
  });
  it('reports the WebGPU error after a failed session', () => {
    expect(fallbackToWasm(env({ hardwareConcurrency: 4 }), new Error('no shader-f16')).reason).toBe(
      'WebGPU failed (no shader-f16); fell back to WASM, 2 threads');
  });
});
