import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { logSoftmaxGather } from '../core/lm/ort-lm.ts';
import { buildScoringDecoderOnnx } from './logprob-graph.ts';
import { TINY_RANDOM_DIR } from '../onnx-export/tiny-random.ts';

const { onnx } = onnxProto;
const model = readFileSync(join(TINY_RANDOM_DIR, 'onnx/model.onnx'));

describe('buildScoringDecoderOnnx', () => {
  it('puts the LM head after a gather of the requested rows and returns only their log-probs', () => {
    const graph = onnx.ModelProto.decode(buildScoringDecoderOnnx(model)!).graph!;
    expect(graph.output!.map((o) => o.name)).toEqual(['score_log_probs']);
    expect(graph.input!.map((i) => i.name)).toEqual(expect.arrayContaining(['input_ids', 'score_rows', 'score_ids']));
    const head = graph.node!.find((n) => n.output!.includes('score_head_logits'))!;
    expect(head.opType).toBe('MatMul');
    expect(head.input![0]).toBe('score_head_rows');
  });

  it('gives log_softmax(logits)[ids] at the requested rows (1e-5)', async () => {
    const options = { graphOptimizationLevel: 'all' as const };
    const plain = await ort.InferenceSession.create(model, options);
    const scoring = await ort.InferenceSession.create(buildScoringDecoderOnnx(model)!, options);
    const B = 2;
    const T = 5;
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from({ length: B * T }, (_, i) => BigInt((i * 37) % 256)), [B, T]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(B * T).fill(1n), [B, T]),
      position_ids: new ort.Tensor('int64', BigInt64Array.from({ length: B * T }, (_, i) => BigInt(i % T)), [B, T]),
    };
    for (let i = 0; i < 2; i++) {
      for (const kv of ['key', 'value']) feeds[`past_key_values.${i}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [B, 4, 0, 8]);
    }
    const rows = BigInt64Array.of(3n, 4n, 9n); // (0, 3), (0, 4), (1, 4)
    const ids = BigInt64Array.of(10n, 256n, 11n, 12n, 200n, 1n);
    const { logits } = await plain.run(feeds, ['logits']);
    const V = logits.dims[2];
    const picked = new Float32Array(rows.length * V);
    rows.forEach((r, i) => picked.set((logits.data as Float32Array).subarray(Number(r) * V, (Number(r) + 1) * V), i * V));
    const expected = logSoftmaxGather(picked, V, ids, 2);
    const { score_log_probs } = await scoring.run(
      { ...feeds, score_rows: new ort.Tensor('int64', rows, [3]), score_ids: new ort.Tensor('int64', ids, [3, 2]) },
      ['score_log_probs'],
    );
    expect(score_log_probs.dims).toEqual([3, 2]);
    Array.from(score_log_probs.data as Float32Array).forEach((x, i) => expect(Math.abs(x - expected[i])).toBeLessThan(1e-5));
    await plain.release();
    await scoring.release();
  });

  it('with keepDecoderOutputs is one graph that also decodes: logits and present.* stay, num_logits_to_keep picks rows', async () => {
    const graph = onnx.ModelProto.decode(buildScoringDecoderOnnx(model, { keepDecoderOutputs: true })!).graph!;
    expect(graph.output!.map((o) => o.name)).toEqual(['logits', 'present.0.key', 'present.0.value', 'present.1.key', 'present.1.value', 'score_log_probs']);
    expect(graph.input!.map((i) => i.name)).toEqual(expect.arrayContaining(['score_rows', 'score_ids', 'num_logits_to_keep']));
    const plain = await ort.InferenceSession.create(model);
    const both = await ort.InferenceSession.create(buildScoringDecoderOnnx(model, { keepDecoderOutputs: true })!);
    const T = 4;
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', BigInt64Array.of(5n, 6n, 7n, 8n), [1, T]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(T).fill(1n), [1, T]),
      position_ids: new ort.Tensor('int64', BigInt64Array.of(0n, 1n, 2n, 3n), [1, T]),
    };
    for (let i = 0; i < 2; i++) {
      for (const kv of ['key', 'value']) feeds[`past_key_values.${i}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [1, 4, 0, 8]);
    }
    const full = (await plain.run(feeds)).logits;
    const last = (
      await both.run({
        ...feeds,
        num_logits_to_keep: new ort.Tensor('int64', BigInt64Array.of(1n), []),
        score_rows: new ort.Tensor('int64', new BigInt64Array(0), [0]),
        score_ids: new ort.Tensor('int64', new BigInt64Array(0), [0, 2]),
      })
    ).logits;
    const V = full.dims[2];
    expect(last.dims).toEqual([1, 1, V]);
    const expected = (full.data as Float32Array).subarray((T - 1) * V, T * V);
    Array.from(last.data as Float32Array).forEach((x, v) => expect(Math.abs(x - expected[v])).toBeLessThan(1e-5));
    await plain.release();
    await both.release();
  });
});
