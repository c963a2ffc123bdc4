import { describe, expect, it } from 'vitest';
import { chooseBackend, fallbackToWasm, wasmThreads, type BackendEnv } from './backend.ts';

const adapter = { info: { vendor: 'google', architecture: 'swiftshader' } };
const env = (over: Partial<BackendEnv> = {}): BackendEnv => ({
  gpu: { requestAdapter: async () => adapter },
  crossOriginIsolated: true,
  hardwareConcurrency: 8,
  ...over,
});

describe('chooseBackend', () => {
  it('takes WebGPU when an adapter exists, naming it', async () => {
    expect(await chooseBackend('auto', env())).toEqual({
      backend: 'webgpu', threads: 4, adapter: 'google|swiftshader', reason: 'WebGPU adapter google|swiftshader',
    });
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
  it('caps threads at 4 and needs isolation', () => {
    expect(wasmThreads(env({ hardwareConcurrency: 2 }))).toBe(2);
    expect(wasmThreads(env({ hardwareConcurrency: 16 }))).toBe(4);
    expect(wasmThreads(env({ crossOriginIsolated: false }))).toBe(1);
  });
  it('reports the WebGPU error after a failed session', () => {
    expect(fallbackToWasm(env({ hardwareConcurrency: 2 }), new Error('no shader-f16')).reason).toBe(
      'WebGPU failed (no shader-f16); fell back to WASM, 2 threads');
  });
});
