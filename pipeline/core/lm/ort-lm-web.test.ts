// The same OrtCausalLM on onnxruntime-web (wasm, run here in Node) as on onnxruntime-node: what the browser gets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ortWeb from 'onnxruntime-web';
import { loadModel } from '../../node/model/load-model.ts';
import { TINY_RANDOM_DIR } from '../../onnx-export/tiny-random.ts';
import { largestScoreGap } from '../testing/score-gap.ts';
import { OrtCausalLM } from './ort-lm.ts';

let web: OrtCausalLM;
let node: OrtCausalLM;

beforeAll(async () => {
  ortWeb.env.wasm.numThreads = 1;
  const json = async (file: string) => JSON.parse(await readFile(join(TINY_RANDOM_DIR, file), 'utf8'));
  web = await OrtCausalLM.create(ortWeb, {
    id: 'tiny-random',
    model: await readFile(join(TINY_RANDOM_DIR, 'onnx/model.onnx')),
    config: await json('config.json'),
    tokenizer: await json('tokenizer.json'),
    tokenizerConfig: await json('tokenizer_config.json'),
  });
  node = await loadModel(TINY_RANDOM_DIR);
});
afterAll(async () => {
  await web.release();
  await node.release();
});

describe('OrtCausalLM on onnxruntime-web', () => {
  it('scores like onnxruntime-node (1e-5; the runtimes are close, not bit-identical)', async () => {
    const requests = ['Hello there [Calculator(1+2) -> 3] ok', 'The year 1812 was', ' [QA("Where?")]'].map((t) => ({
      ids: node.encode(t),
      probe: 256,
    }));
    expect(largestScoreGap(await web.score(requests), await node.score(requests))).toBeLessThan(1e-5);
  });

  it('samples the same texts for a seed', async () => {
    const prompt = node.encode('The capital of France is [QA("');
    const options = { n: 3, maxNewTokens: 8, stop: ']', seed: 42 };
    expect(await web.sample(prompt, options)).toEqual(await node.sample(prompt, options));
  });
});
