import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { loadModel } from '../node/model/load-model.ts';
import { exportGpt2 } from './export.ts';
import { buildGpt2Onnx } from './gpt2-graph.ts';
import { randomGpt2Weights, type Gpt2Config, type Gpt2Weights } from './gpt2-weights.ts';
import { readGpt2Onnx } from './onnx-weights.ts';
import { widenGpt2 } from './widen-gpt2.ts';

const i64 = (values: number[], dims: number[]) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), dims);

/** Logits [T, V] of one row with an empty cache. */
async function logits(config: Gpt2Config, weights: Gpt2Weights, ids: number[]): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(buildGpt2Onnx(config, weights));
  const feeds: Record<string, ort.Tensor> = {
    input_ids: i64(ids, [1, ids.length]),
    attention_mask: i64(ids.map(() => 1), [1, ids.length]),
    position_ids: i64(ids.map((_, t) => t), [1, ids.length]),
  };
  const headDim = config.nEmbd / config.nHead;
  for (let i = 0; i < config.nLayer; i++) {
    for (const kv of ['key', 'value']) feeds[`past_key_values.${i}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [1, config.nHead, 0, headDim]);
  }
  const out = (await session.run(feeds, ['logits'])).logits.data as Float32Array;
  await session.release();
  return out;
}

const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

describe('widenGpt2', () => {
  const config: Gpt2Config = { vocabSize: 40, nPositions: 24, nEmbd: 16, nLayer: 2, nHead: 2, layerNormEpsilon: 1e-5 };
  const weights = randomGpt2Weights(config, 7);
  const ids = [3, 17, 0, 39, 22, 5, 5, 11];

  it('computes the source’s logits (1e-4) at 3× the width and twice the depth', async () => {
    const wide = widenGpt2(config, weights, { factor: 3, nLayer: 4, seed: 1 });
    expect(wide.config).toMatchObject({ nEmbd: 48, nHead: 6, nLayer: 4, vocabSize: 40, nPositions: 24 });
    const source = await logits(config, weights, ids);
    expect(maxDiff(source, await logits(wide.config, wide.weights, ids))).toBeLessThan(1e-4);
    // The comparison sees a wiring change: an identity layer whose projection is not zero changes the logits (a
    // non-constant bias: the final LayerNorm cancels a constant shift).
    wide.weights.get('h.3.mlp.c_proj.bias')!.forEach((_, i, b) => (b[i] = (i % 7) * 0.05));
    expect(maxDiff(source, await logits(wide.config, wide.weights, ids))).toBeGreaterThan(1e-2);
  });

  it('refuses a fractional factor and fewer layers than the source', () => {
    expect(() => widenGpt2(config, weights, { factor: 1.5, nLayer: 2, seed: 1 })).toThrow(/factor must be a positive integer/);
    expect(() => widenGpt2(config, weights, { factor: 2, nLayer: 1, seed: 1 })).toThrow(/nLayer 1 is below the source's 2/);
  });

  it('gives the bundled model’s scores when widened and written as a model directory', async () => {
    const root = join(import.meta.dirname, '../../models/default');
    const source = readGpt2Onnx(await readFile(join(root, 'onnx/model.onnx')), JSON.parse(await readFile(join(root, 'config.json'), 'utf8')));
    const wide = widenGpt2(source.config, source.weights, { factor: 2, nLayer: 3, seed: 1 });
    const dir = await mkdtemp(join(tmpdir(), 'widened-'));
    try {
      await exportGpt2(dir, { config: wide.config, weights: wide.weights, tokenizer: JSON.parse(await readFile(join(root, 'tokenizer.json'), 'utf8')) });
      const [small, big] = [await loadModel(root), await loadModel(dir)];
      const text = small.encode('The population of Peru is 29 million, and its capital is Lima.');
      const [a, b] = [(await small.score([{ ids: text }]))[0], (await big.score([{ ids: text }]))[0]];
      expect(maxDiff(a.tokenLogProbs, b.tokenLogProbs)).toBeLessThan(1e-4);
      expect(a.tokenLogProbs.slice(1).every((x) => x < 0)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
