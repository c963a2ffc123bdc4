// The same toolkens give the same p(toolken) on onnxruntime-web (wasm, what the browser runs; here in Node) as on
// onnxruntime-node: the hidden_states output and the toolken softmax are the same code on both (1e-4).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ortWeb from 'onnxruntime-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../node/model/load-model.ts';
import { mulberry32 } from '../../random/mulberry32.ts';
import { OrtCausalLM, type OrtModule } from '../lm/ort-lm.ts';
import type { Toolkens } from './file.ts';
import { toolkenProbabilities } from './probabilities.ts';

const DIR = join(import.meta.dirname, '../../../models/default');
let web: OrtCausalLM;
let node: OrtCausalLM;
beforeAll(async () => {
  ortWeb.env.wasm.numThreads = 1;
  const json = async (file: string) => JSON.parse(await readFile(join(DIR, file), 'utf8'));
  web = await OrtCausalLM.create(ortWeb as unknown as OrtModule, {
    id: 'default', model: await readFile(join(DIR, 'onnx/model.onnx')), config: await json('config.json'),
    tokenizer: await json('tokenizer.json'), tokenizerConfig: await json('tokenizer_config.json'), hiddenStates: true,
  });
  node = await loadModel(DIR, { lm: { hiddenStates: true } });
});
afterAll(async () => {
  await web.release();
  await node.release();
});

describe('toolkenProbabilities', () => {
  it('onnxruntime-web and onnxruntime-node agree within 1e-4, and the bias raises every toolken', async () => {
    const rng = mulberry32(29);
    const toolkens: Toolkens = { tools: ['Calculator', 'QA'], hiddenSize: 256, weights: Float32Array.from({ length: 512 }, () => (rng.next() - 0.5) / 4), meta: {} };
    const ids = node.encode('Population: 5,664,939 (July 2015 est.) The capital of Kyrgyzstan is Bishkek.');
    const [a, b] = [await toolkenProbabilities(web, toolkens, ids), await toolkenProbabilities(node, toolkens, ids)];
    expect(a.length).toBe(ids.length * 2);
    let worst = 0;
    for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
    expect(worst).toBeLessThan(1e-4);
    expect(Math.max(...a)).toBeGreaterThan(1e-6); // not all zero: the comparison means something
    const biased = await toolkenProbabilities(node, toolkens, ids, 3);
    for (let i = 0; i < b.length; i++) expect(biased[i]).toBeGreaterThan(b[i]);
  });
});
