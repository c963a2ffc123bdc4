/**
 * The pipeline against golden numbers from an independent implementation: PyTorch (make_goldens.py), reading the
 * same weights from each model's onnx/model.onnx, with its own BPE tokenizer and its own GPT-2 / Llama / Qwen2
 * forward. Nothing here recomputes the expected values; they are the committed JSON files beside this test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scorePositions, type PositionToScore } from '../../core/scoring/scoring.ts';
import { loadModel } from '../../node/model/load-model.ts';
import type { OrtCausalLM } from '../../core/lm/ort-lm.ts';
import { MODELS_DIR } from '../../onnx-export/tiny-llama.ts';

interface Cases {
  weights: number[];
  scoring: { text: string; at: number; separator: string; calls: { callOnly: string; withResult: string }[] }[];
  logits: { text: string; vocabHead: number };
  greedy: { prompt: string; newTokens: number };
}
interface Golden {
  modelType: string;
  bos: number[];
  scoring: {
    prefixIds: number[];
    nextIds: number[];
    noCallIds: number[];
    calls: { callOnlyIds: number[]; withResultIds: number[]; L_a: number; L_b: number; L_c: number }[];
  }[];
  logits: { ids: number[]; head: number[][]; logSumExp: number[] };
  greedy: { promptIds: number[]; ids: number[] };
}

const TOLERANCE = 1e-4;
const here = import.meta.dirname;
const cases = JSON.parse(readFileSync(join(here, 'cases.json'), 'utf8')) as Cases;

describe.each([
  ['tiny-random', 'gpt2'],
  ['tiny-llama', 'llama'],
  ['tiny-qwen2', 'qwen2'],
  ['default', 'gpt2'],
])('models/%s (%s) matches the PyTorch goldens', (name, modelType) => {
  const golden = JSON.parse(readFileSync(join(here, `${name}.json`), 'utf8')) as Golden;
  const dir = join(MODELS_DIR, name);
  let lm: OrtCausalLM;
  beforeAll(async () => {
    lm = await loadModel(dir);
  });
  afterAll(() => lm.release());

  it('is the model the goldens were made for', () => {
    expect(golden.modelType).toBe(modelType);
    expect(lm.bosId === undefined ? [] : [lm.bosId]).toEqual(golden.bos);
  });

  it('tokenizes the fixed texts as the independent BPE does', () => {
    cases.scoring.forEach((c, i) => {
      expect(lm.encode(c.text.slice(0, c.at))).toEqual(golden.scoring[i].prefixIds);
      expect(lm.encode(c.text.slice(c.at)).slice(0, cases.weights.length)).toEqual(golden.scoring[i].nextIds);
      const text = [...golden.scoring[i].prefixIds, ...golden.scoring[i].nextIds];
      expect([...golden.bos, ...text]).toEqual(golden.scoring[i].noCallIds);
      c.calls.forEach((call, j) => {
        const g = golden.scoring[i].calls[j];
        expect([...golden.bos, ...lm.encode(call.callOnly + c.separator), ...text]).toEqual(g.callOnlyIds);
        expect([...golden.bos, ...lm.encode(call.withResult + c.separator), ...text]).toEqual(g.withResultIds);
      });
    });
  });

  it('scores L_a, L_b, L_c of every call within 1e-4 nats (scorePositions, batched)', async () => {
    const positions: PositionToScore[] = cases.scoring.map((c, i) => ({
      window: { prefix: golden.scoring[i].prefixIds, next: golden.scoring[i].nextIds, separator: c.separator },
      calls: c.calls,
    }));
    const scored = await scorePositions(lm, positions, { weights: cases.weights });
    const diffs: number[] = [];
    scored.forEach((p, i) =>
      p.losses.forEach((l, j) => {
        const g = golden.scoring[i].calls[j];
        diffs.push(Math.abs(l.noCall - g.L_a), Math.abs(l.callOnly - g.L_b), Math.abs(l.withResult - g.L_c));
      }),
    );
    expect(diffs).toHaveLength(3 * 7);
    expect(Math.max(...diffs)).toBeLessThan(TOLERANCE);
    // The goldens are not degenerate: a call changes the loss.
    const g = golden.scoring[0].calls[0];
    expect(Math.abs(g.L_a - g.L_c)).toBeGreaterThan(1e-2);
  });

  it('gives the golden logits (onnx/model.onnx in onnxruntime-node, one sequence)', async () => {
    const session = await ort.InferenceSession.create(join(dir, 'onnx/model.onnx'));
    try {
      const { ids, head, logSumExp } = golden.logits;
      const T = ids.length;
      const feeds: Record<string, ort.Tensor> = {
        input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, T]),
        attention_mask: new ort.Tensor('int64', new BigInt64Array(T).fill(1n), [1, T]),
        position_ids: new ort.Tensor('int64', BigInt64Array.from({ length: T }, (_, t) => BigInt(t)), [1, T]),
      };
      for (let i = 0; i < lm.spec.numLayers; i++) {
        for (const kv of ['key', 'value']) {
          feeds[`past_key_values.${i}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [1, lm.spec.numKvHeads, 0, lm.spec.headDim]);
        }
      }
      const logits = (await session.run(feeds, ['logits'])).logits;
      const V = logits.dims[2];
      const data = logits.data as Float32Array;
      let worst = 0;
      for (let t = 0; t < T; t++) {
        const row = data.subarray(t * V, (t + 1) * V);
        head[t].forEach((x, v) => (worst = Math.max(worst, Math.abs(row[v] - x))));
        const max = row.reduce((a, b) => Math.max(a, b), -Infinity);
        const lse = max + Math.log(row.reduce((s, x) => s + Math.exp(x - max), 0));
        worst = Math.max(worst, Math.abs(lse - logSumExp[t]));
      }
      expect(worst).toBeLessThan(TOLERANCE);
    } finally {
      await session.release();
    }
  });

  it('continues greedily as the golden (sample() with the KV cache, temperature 0)', async () => {
    expect(lm.encode(cases.greedy.prompt)).toEqual(golden.greedy.promptIds);
    const [sample] = await lm.sample(golden.greedy.promptIds, {
      n: 1,
      maxNewTokens: cases.greedy.newTokens,
      stop: '',
      seed: 1,
      temperature: 0,
    });
    const expected = lm.decode(golden.greedy.ids);
    // An end-of-text token ends the sample early; compare up to it.
    const eos = golden.greedy.ids.findIndex((id) => lm.spec.eosTokenIds.includes(id));
    expect(sample.text).toBe(eos >= 0 ? lm.decode(golden.greedy.ids.slice(0, eos)) : expected);
  });
});
