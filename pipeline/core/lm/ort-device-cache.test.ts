/**
 * The KV cache kept on the device (OrtCausalLMOptions.cacheLocation "gpu-buffer", WebGPU's gpu-buffer outputs) without
 * a GPU: onnxruntime-node behind a stand-in module whose sessions hand present.* back as device tensors — no `data`,
 * `getData(release)` and `dispose()` only, as onnxruntime-web's gpu-buffer tensors — and refuse a disposed one as an
 * input. Decoding must give exactly the host-cache results, feed every cache back as it came, and leave no device
 * tensor alive once a generation or a sample() ends. (The real WebGPU path: web/e2e/disk-model.test.ts.)
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../generate/generate.ts';
import { TINY_RANDOM_DIR } from '../../onnx-export/tiny-random.ts';
import { OrtCausalLM, type OrtModule, type OrtSession, type OrtTensor } from './ort-lm.ts';

/** Device tensors made and still alive, and the sessions' preferredOutputLocation. */
const device = { created: 0, live: new Set<object>(), asked: [] as unknown[] };

class DeviceTensor implements OrtTensor {
  readonly location = 'gpu-buffer';
  disposed = false;
  constructor(readonly host: ort.Tensor) {
    device.created++;
    device.live.add(this);
  }
  get type() { return this.host.type; }
  get dims() { return this.host.dims; }
  get data(): unknown { throw new Error('a gpu-buffer tensor has no host data; call getData()'); }
  async getData(release?: boolean): Promise<unknown> {
    if (this.disposed) throw new Error('getData() of a disposed tensor');
    const data = this.host.data;
    if (release) this.dispose();
    return data;
  }
  dispose(): void {
    if (this.disposed) throw new Error('disposed twice');
    this.disposed = true;
    device.live.delete(this);
  }
}

/** onnxruntime-node, with the outputs named in preferredOutputLocation as "gpu-buffer" returned as DeviceTensors. */
const deviceOrt: OrtModule = {
  Tensor: ort.Tensor as unknown as OrtModule['Tensor'],
  InferenceSession: {
    async create(model, options = {}) {
      const { preferredOutputLocation, ...rest } = options as { preferredOutputLocation?: Record<string, string> };
      device.asked.push(preferredOutputLocation);
      const session = await ort.InferenceSession.create(model, rest);
      const onDevice = new Set(Object.entries(preferredOutputLocation ?? {}).filter(([, l]) => l === 'gpu-buffer').map(([n]) => n));
      const wrapped: OrtSession = {
        inputNames: session.inputNames,
        outputNames: session.outputNames,
        inputMetadata: session.inputMetadata as OrtSession['inputMetadata'],
        outputMetadata: session.outputMetadata as OrtSession['outputMetadata'],
        async run(feeds, fetches) {
          const host: Record<string, ort.Tensor> = {};
          for (const [name, t] of Object.entries(feeds)) {
            if (t instanceof DeviceTensor && t.disposed) throw new Error(`${name}: fed a disposed gpu-buffer tensor`);
            host[name] = t instanceof DeviceTensor ? t.host : (t as ort.Tensor);
          }
          const out = await session.run(host, [...fetches]);
          return Object.fromEntries(Object.entries(out).map(([name, t]) => [name, onDevice.has(name) ? new DeviceTensor(t) : t]));
        },
        release: () => session.release(),
      };
      return wrapped;
    },
  },
};

let onHost: OrtCausalLM;
let onDeviceLm: OrtCausalLM;

async function make(module: OrtModule, cacheLocation: 'cpu' | 'gpu-buffer'): Promise<OrtCausalLM> {
  const json = async (f: string) => JSON.parse(await readFile(join(TINY_RANDOM_DIR, f), 'utf8')) as Record<string, unknown>;
  return OrtCausalLM.create(module, {
    id: `tiny-random (${cacheLocation})`,
    model: await readFile(join(TINY_RANDOM_DIR, 'onnx/model.onnx')),
    config: await json('config.json'),
    tokenizer: await json('tokenizer.json'),
    tokenizerConfig: await json('tokenizer_config.json').catch(() => undefined),
    // The WebGPU worker's choice (web/src/worker.ts): full logits through the gather graph.
    logProbs: 'graph',
    cacheLocation,
  });
}

beforeAll(async () => {
  onHost = await make(ort as unknown as OrtModule, 'cpu');
  onDeviceLm = await make(deviceOrt, 'gpu-buffer');
});
afterAll(async () => {
  await onHost?.release();
  await onDeviceLm?.release();
});

describe('a KV cache kept on the device (gpu-buffer outputs)', () => {
  it('asks the decoder session, and only it, for present.* on the device', () => {
    const decoderAsk = device.asked.find((a) => a !== undefined) as Record<string, string>;
    const layers = onDeviceLm.spec.numLayers;
    expect(Object.keys(decoderAsk).sort()).toEqual(Array.from({ length: layers }, (_, i) => [`present.${i}.key`, `present.${i}.value`]).flat().sort());
    expect(new Set(Object.values(decoderAsk))).toEqual(new Set(['gpu-buffer']));
    // The log-softmax gather session has no cache outputs: it is asked nothing.
    expect(device.asked.filter((a) => a === undefined).length).toBeGreaterThan(0);
  });

  it('generates the host cache\'s greedy text, feeds every step\'s cache back as it came, and frees it at the end', async () => {
    const before = { ...onDeviceLm.cacheStats };
    const created = device.created;
    const options = { tools: false, maxNewTokens: 24, temperature: 0 };
    const expected = await generate(onHost, null, 'The capital of Peru is', options);
    const got = await generate(onDeviceLm, null, 'The capital of Peru is', options);
    expect(got.text).toBe(expected.text);
    expect(got.tokens).toBe(expected.tokens);
    const forwards = onDeviceLm.cacheStats.forwards - before.forwards;
    expect(forwards).toBe(1 + got.tokens); // the prompt's prefill, then one forward per token generated
    expect(onDeviceLm.cacheStats.onDevice - before.onDevice).toBe(forwards);
    expect(device.created - created).toBe(forwards * 2 * onDeviceLm.spec.numLayers);
    expect(device.live.size).toBe(0);
  });

  it('a released decoder state frees its cache and refuses more tokens', async () => {
    const state = await onDeviceLm.openDecoder(onDeviceLm.encode('Hello there'));
    await state.feed(onDeviceLm.encode(' friend'));
    expect(device.live.size).toBe(2 * onDeviceLm.spec.numLayers);
    state.release!();
    expect(device.live.size).toBe(0);
    await expect(state.feed([1])).rejects.toThrow(/released/);
  });

  it('samples as the host cache does (rows tiled, finished rows dropped) and leaves no device tensor alive', async () => {
    const prompt = onDeviceLm.encode('Out of 1400 participants, 400 passed');
    for (const options of [
      // Rows stop at different steps on '&' (tiny-random's samples at seed 3), so finished rows leave the batch.
      { n: 5, maxNewTokens: 12, stop: '&', temperature: 1, seed: 3 },
      { n: 1, maxNewTokens: 8, stop: '', temperature: 0, seed: 0 },
    ]) {
      const expected = await onHost.sample(prompt, options);
      if (options.n > 1) expect(new Set(expected.map((e) => e.stopped))).toEqual(new Set([true, false]));
      expect(await onDeviceLm.sample(prompt, options)).toEqual(expected);
      expect(device.live.size).toBe(0);
    }
  });
});
