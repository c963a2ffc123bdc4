import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ortWeb from 'onnxruntime-web';
import { OrtCausalLM } from './pipeline/core/ort-lm.ts';
import { benchRows } from './web/src/bench-rows.ts';
const threads = Number(process.argv[2]);
const spin = process.argv[3] ?? '1';
ortWeb.env.wasm.numThreads = threads;
const dir = 'models/default';
const json = async (f: string) => JSON.parse(await readFile(join(dir, f), 'utf8'));
const web = await OrtCausalLM.create(ortWeb as any, { id: 'w', model: await readFile(join(dir, 'onnx/model.onnx')), config: await json('config.json'), tokenizer: await json('tokenizer.json'), sessionOptions: { graphOptimizationLevel: 'all', executionProviders: ['wasm'], extra: { session: { intra_op: { allow_spinning: spin } } } } });
const rows = benchRows(web, 16, 128);
await web.score(rows);
const t: number[] = [];
for (let r = 0; r < 5; r++) { const t0 = performance.now(); await web.score(rows); t.push(performance.now() - t0); }
console.log('threads', threads, 'spin', spin, 'best wall ms', Math.min(...t).toFixed(0), 'all', t.map((x) => x.toFixed(0)).join(' '), 'tok/s', Math.round(2048 / Math.min(...t) * 1000));
