import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { foldWeightTransposes } from './optimum-layout.ts';
import { TINY_LLAMA_DIR } from './tiny-llama.ts';

describe('foldWeightTransposes', () => {
  const model = readFileSync(join(TINY_LLAMA_DIR, 'onnx/model.onnx'));
  const folded = foldWeightTransposes(model);

  it('stores every MatMul weight as an [in, out] initializer, the tied head a second time', () => {
    const graph = onnxProto.onnx.ModelProto.decode(folded).graph!;
    const inits = new Set(graph.initializer!.map((t) => t.name!));
    expect(graph.node!.filter((n) => n.opType === 'Transpose' && inits.has(n.input![0]))).toEqual([]);
    for (const n of graph.node!.filter((x) => x.opType === 'MatMul' && inits.has(x.input![1]))) expect(inits.has(n.input![1])).toBe(true);
    expect(graph.node!.filter((n) => n.opType === 'MatMul' && inits.has(n.input![1])).length).toBe(2 * 7 + 1); // 7 per layer + head
    expect(inits.has('model.embed_tokens.weight')).toBe(true); // the Gather keeps it
  });

  it('gives the same logits', async () => {
    const [a, b] = await Promise.all([ort.InferenceSession.create(model), ort.InferenceSession.create(folded)]);
    const T = 3;
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', BigInt64Array.of(7n, 8n, 9n), [1, T]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(T).fill(1n), [1, T]),
      position_ids: new ort.Tensor('int64', BigInt64Array.of(0n, 1n, 2n), [1, T]),
    };
    for (let i = 0; i < 2; i++) for (const kv of ['key', 'value']) feeds[`past_key_values.${i}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [1, 2, 0, 8]);
    const [x, y] = [(await a.run(feeds)).logits.data as Float32Array, (await b.run(feeds)).logits.data as Float32Array];
    expect(Math.max(...x.map((v, i) => Math.abs(v - y[i])))).toBeLessThan(1e-5);
    await Promise.all([a.release(), b.release()]);
  });
});
