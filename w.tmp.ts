import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ortWeb from 'onnxruntime-web';
import { loadModel } from './pipeline/node/load-model.ts';
import { OrtCausalLM } from './pipeline/core/ort-lm.ts';
import { benchRows } from './web/src/bench-rows.ts';
ortWeb.env.wasm.numThreads = 1;
const dir = 'models/default';
const json = async (f: string) => JSON.parse(await readFile(join(dir, f), 'utf8'));
const cpu = async (f: () => Promise<unknown>) => { const c0 = process.cpuUsage(); await f(); const c = process.cpuUsage(c0); return (c.user + c.system) / 1e6; };
for (const file of ['model.onnx', 'model_quantized.onnx']) {
  const web = await OrtCausalLM.create(ortWeb as any, { id: 'w', model: await readFile(join(dir, 'onnx', file)), config: await json('config.json'), tokenizer: await json('tokenizer.json'), sessionOptions: { graphOptimizationLevel: 'all', executionProviders: ['wasm'] } });
  const node = await loadModel(dir, { dtype: file === 'model.onnx' ? 'fp32' : 'q8' });
  const rows = benchRows(node, 16, 128);
  await web.score(rows); await node.score(rows);
  const tw: number[] = [], tn: number[] = [];
  for (let r = 0; r < 4; r++) { tw.push(await cpu(() => web.score(rows))); tn.push(await cpu(() => node.score(rows))); }
  const best = (x: number[]) => Math.min(...x);
  console.log(file, 'web wasm 1 thread best cpu s', best(tw).toFixed(3), 'node', best(tn).toFixed(3), 'ratio', (best(tw) / best(tn)).toFixed(2), 'tok/s node', Math.round(2048 / best(tn)), 'web', Math.round(2048 / best(tw)));
}
