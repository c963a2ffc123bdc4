/**
 * `hidden_states`, the LM head's input, as an extra graph output (hidden-state.ts) for every model the loader reads:
 * the committed GPT-2 (models/default in fp32, fp16 and q8; models/toolformer), the Llama and Qwen2 exports, and every
 * dtype replica of models/tiny-llama (../onnx-export/replicas.ts, made here in a temporary directory), external data and
 * num_logits_to_keep included.
 *
 * What shows h is the head's input: for float32 heads, logits = h · W with W read from the file's own initializer.
 * For every dtype: h is C wide at every position, close to the fp32 file's h (the same weights, rounded), and the
 * KV-cache decoder's h at the last position equals the full pass's.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DTYPES, type Dtype } from '../core/lm/dtypes.ts';
import { loadModel } from '../node/model/load-model.ts';
import { lmHeadInput } from './hidden-state.ts';
import { constantWeights, decodeModel } from './onnx-edit.ts';
import { writeReplicas } from '../onnx-export/replicas.ts';

const TEXT = 'The capital of France is Paris. 3 + 4 = 7';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hidden-'));
  await writeReplicas(join(dir, 'all'));
  await writeReplicas(join(dir, 'external'), { dtypes: ['fp32', 'q4f16'], externalData: true, numLogitsToKeep: true });
}, 300_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

/** h and logits of TEXT under `model`/`dtype`, and the decoder's h after the same tokens. */
async function hiddenOf(model: string, dtype: Dtype = 'fp32') {
  const lm = await loadModel(model, { dtype, lm: { hiddenStates: true } });
  try {
    const ids = lm.encode(TEXT);
    const full = await lm.hiddenStates(ids);
    const state = await lm.openDecoder(ids);
    const decoded = state.hidden!;
    state.release?.();
    return { ids, ...full, decoded, width: lm.hiddenSize };
  } finally {
    await lm.release();
  }
}

const maxAbs = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
const lastRow = (h: Float32Array, C: number) => h.subarray(h.length - C);

describe('hidden_states: the LM head input of the committed models', () => {
  for (const [model, dtype] of [['models/default', 'fp32'], ['models/default', 'fp16'], ['models/default', 'q8'], ['models/toolformer', 'fp32'],
    ['models/tiny-llama', 'fp32'], ['models/tiny-qwen2', 'fp32']] as const) {
    it(`${model} ${dtype}: logits = h · W, W read from the file's head initializer`, async () => {
      const file = dtype === 'fp32' ? 'model.onnx' : dtype === 'fp16' ? 'model_fp16.onnx' : 'model_quantized.onnx';
      const graph = decodeModel(await readFile(join(model, 'onnx', file))).graph!;
      const head = graph.node!.find((n) => n.output?.includes('logits'))!;
      expect(lmHeadInput(graph)?.name).toBe(head.input![0]);
      const { ids, hidden, logits, hiddenSize, vocabSize, decoded, width } = await hiddenOf(model, dtype);
      expect(hiddenSize).toBe(width);
      expect(hidden.length).toBe(ids.length * width);
      const W = constantWeights(graph, { shared: true })(head);
      if (W) {
        // fp16 files hold float16 weights: the check runs only where the weight is a float32 initializer
        const C = W.K;
        let worst = 0;
        for (let t = 0; t < ids.length; t++) {
          for (let v = 0; v < vocabSize; v += 7) {
            let dot = 0;
            for (let k = 0; k < C; k++) dot += hidden[t * C + k] * W.data[k * W.N + v];
            worst = Math.max(worst, Math.abs(dot - logits[t * vocabSize + v]));
          }
        }
        expect(worst).toBeLessThan(1e-3);
      } else {
        expect(dtype).toBe('fp16');
      }
      expect(maxAbs(decoded, lastRow(hidden, width))).toBeLessThan(dtype === 'fp16' ? 1e-2 : 1e-4);
    });
  }
});

describe('hidden_states: every dtype replica of models/tiny-llama', () => {
  // Quantized weights move h (a random model's 4-bit error is large): cosine similarity to the fp32 file's h over
  // every position, measured 2026-12-01: fp16 1.0000, q8 0.9984, int8 0.9981, uint8 0.9979, q4 and q4f16 0.9387, bnb4 0.9280.
  const MIN_COSINE: Record<Dtype, number> = { fp32: 1 - 1e-6, fp16: 0.9999, q8: 0.99, int8: 0.99, uint8: 0.99, q4: 0.9, q4f16: 0.9, bnb4: 0.9 };
  const cosine = (a: Float32Array, b: Float32Array) => {
    let ab = 0, aa = 0, bb = 0;
    for (let i = 0; i < a.length; i++) [ab, aa, bb] = [ab + a[i] * b[i], aa + a[i] * a[i], bb + b[i] * b[i]];
    return ab / Math.sqrt(aa * bb);
  };
  it('every dtype gives h of width C at every position, near the fp32 h; the decoder agrees with the full pass', async () => {
    const reference = await hiddenOf(join(dir, 'all'));
    const scale = reference.hidden.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
    const seen: Record<string, number> = {};
    for (const dtype of DTYPES) {
      const h = await hiddenOf(join(dir, 'all'), dtype);
      expect(h.hidden.length, dtype).toBe(reference.hidden.length);
      seen[dtype] = cosine(h.hidden, reference.hidden);
      expect(seen[dtype], dtype).toBeGreaterThanOrEqual(MIN_COSINE[dtype]);
      expect(maxAbs(h.decoded, lastRow(h.hidden, h.width)) / scale, dtype).toBeLessThan(1e-4);
    }
    for (const dtype of ['fp32', 'q4f16'] as const) {
      const h = await hiddenOf(join(dir, 'external'), dtype);
      expect(cosine(h.hidden, reference.hidden), `external ${dtype}`).toBeCloseTo(seen[dtype], 5);
    }
  }, 300_000);
});
