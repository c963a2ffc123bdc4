import { describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { AutoModelForCausalLM, AutoTokenizer, env, type Tensor } from '@huggingface/transformers';
import { Gpt2 } from './gpt2.ts';
import { AdamW } from './adamw.ts';
import { Batcher, readJsonl } from './data.ts';
import { capitalFacts } from './data-synthetic.ts';
import { trainBpe } from './tokenizer.ts';
import { exportGpt2 } from '../onnx-export/export.ts';

const docs = readJsonl('corpus/sample.jsonl');
const tok = trainBpe(docs.map((d) => d.text), { vocabSize: 320 });
const config = { vocabSize: tok.vocabSize, nPositions: 32, nEmbd: 32, nLayer: 2, nHead: 2, layerNormEpsilon: 1e-5 };

describe('training a tiny GPT-2 on the bundled sample corpus', () => {
  it('lowers the loss within 40 steps (smoke test)', () => {
    const model = new Gpt2(config, 8 * 32);
    model.init(1);
    const opt = new AdamW(model, { lr: 3e-3, warmupSteps: 5, totalSteps: 40 });
    const batcher = new Batcher(tok, docs, capitalFacts(), 32);
    const losses: number[] = [];
    for (let s = 0; s < 40; s++) {
      const { x, y } = batcher.next(8);
      model.zeroGrad();
      losses.push(model.forward(x, 8, 32, y));
      model.backward();
      opt.step();
    }
    const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(losses[0]).toBeGreaterThan(Math.log(tok.vocabSize) - 0.5); // starts near uniform
    expect(mean(losses.slice(-5))).toBeLessThan(mean(losses.slice(0, 5)) - 0.8);
  });
});

describe('export', () => {
  it('onnxruntime-node gives the trainer\'s logits (within 1e-4) and Transformers.js generates from the export', async () => {
    const model = new Gpt2(config, 2 * 32);
    model.init(3);
    // Non-trivial weights everywhere (biases and gains too), as after training.
    let k = 0;
    for (let i = 0; i < model.params.length; i++) model.params[i] += Math.sin(++k * 12.9898) * 0.05;
    const dir = await mkdtemp(join(tmpdir(), 'gpt2-export-'));
    try {
      await exportGpt2(dir, { config, weights: model.weights(), tokenizer: tok.toJSON() as Record<string, unknown> });
      const ids = tok.encode('The Senate and the House of Representatives [QA("x") -> y]').slice(0, 20);
      const T = ids.length;
      model.forward(Int32Array.from(ids), 1, T);
      const ours = model.logits.slice(0, T * config.vocabSize);

      const session = await ort.InferenceSession.create(join(dir, 'onnx/model.onnx'));
      const feeds: Record<string, ort.Tensor> = {
        input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, T]),
        attention_mask: new ort.Tensor('int64', new BigInt64Array(T).fill(1n), [1, T]),
        position_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map((_, t) => BigInt(t))), [1, T]),
      };
      for (let l = 0; l < config.nLayer; l++) {
        for (const kv of ['key', 'value']) {
          feeds[`past_key_values.${l}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [1, config.nHead, 0, 16]);
        }
      }
      const theirs = (await session.run(feeds)).logits.data as Float32Array;
      let maxDiff = 0;
      for (let i = 0; i < ours.length; i++) maxDiff = Math.max(maxDiff, Math.abs(ours[i] - theirs[i]));
      expect(theirs.length).toBe(ours.length);
      expect(maxDiff).toBeLessThan(1e-4);

      env.allowRemoteModels = false;
      const hfTok = await AutoTokenizer.from_pretrained(dir);
      const hfModel = await AutoModelForCausalLM.from_pretrained(dir);
      const inputs = hfTok('The Senate');
      const out = (await hfModel.generate({ ...inputs, max_new_tokens: 5, do_sample: false })) as Tensor;
      expect(out.dims).toEqual([1, inputs.input_ids.dims[1] + 5]);
      await hfModel.dispose();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
