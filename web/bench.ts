/**
 * Browser scoring throughput next to Node's, on one model and one workload (web/src/bench-rows.ts):
 *   - Node: onnxruntime-node via pipeline/node/load-model.ts (1 intra-op thread, the pipeline's setting)
 *   - Chromium, WASM (multi-threaded: the app is cross-origin isolated)
 *   - Chromium, WebGPU (here: the SwiftShader software adapter; a real GPU is much faster)
 * Reports CausalLM.score tokens/s and the raw forward limit of the same session options.
 *
 *   npx tsx web/bench.ts [--model default|tiny-random] [--batch 16] [--length 128] [--repeats 5] [--backends wasm,webgpu]
 *                        [--dtypes fp32,fp16,q8]
 *
 * Per dtype (the model's onnx/ variants), Node and Chromium WASM score the same rows: their ratio is the
 * browser's distance from Node on the same model and shapes.
 *
 * Writes out/bench/web.json and prints a markdown table.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DTYPE_FILES, isDtype, type Dtype } from '../pipeline/core/dtypes.ts';
import { loadModel } from '../pipeline/node/load-model.ts';
import type { BenchResult } from './src/analysis-types.ts';
import { benchRows, scoreThroughput } from './src/bench-rows.ts';
import { launch, openPage } from './e2e/browser.ts';
import { buildApp, repoRoot, serveApp } from './e2e/serve.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const model = arg('model', existsSync(join(repoRoot, 'models/default/onnx/model.onnx')) ? 'default' : 'tiny-random');
const batch = Number(arg('batch', '16'));
const length = Number(arg('length', '128'));
const repeats = Number(arg('repeats', '5'));
const backends = arg('backends', 'wasm,webgpu').split(',').filter((b): b is 'wasm' | 'webgpu' => b === 'wasm' || b === 'webgpu');

const dtypes = arg('dtypes', 'fp32,fp16,q8').split(',').filter(isDtype)
  .filter((d) => existsSync(join(repoRoot, 'models', model, 'onnx', DTYPE_FILES[d])));

const rows: { runtime: string; scoreTokensPerSecond: number; forwardTokensPerSecond?: number; note: string }[] = [];

const lm = await loadModel(join(repoRoot, 'models', model));
const nodeTps = await scoreThroughput(lm, benchRows(lm, batch, length), repeats);
rows.push({ runtime: 'Node, onnxruntime-node', scoreTokensPerSecond: nodeTps, note: '1 intra-op thread' });

const perDtype: { dtype: Dtype; nodeScoreTokensPerSecond: number; browserScoreTokensPerSecond: number; browserOverNode: number; note: string }[] = [];

await buildApp();
const served = await serveApp();
try {
  for (const dtype of dtypes) {
    const nodeLm = dtype === 'fp32' ? lm : await loadModel(join(repoRoot, 'models', model), { dtype });
    const node = dtype === 'fp32' ? nodeTps : await scoreThroughput(nodeLm, benchRows(nodeLm, batch, length), repeats);
    const browser = await launch({ webgpu: false });
    try {
      const { page } = await openPage(browser, `${served.url}?model=${model}&backend=wasm&dtype=${dtype}&tools=&own=&m=0`);
      await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 120_000 });
      const note = (await page.textContent('[data-testid="backend-reason"]'))?.trim() ?? '';
      const r = (await page.evaluate(
        (body) => (globalThis as unknown as { toolformer: { client: { request(t: string, b: unknown): Promise<unknown> } } })
          .toolformer.client.request('bench', body),
        { batch, length, repeats },
      )) as BenchResult;
      perDtype.push({ dtype, nodeScoreTokensPerSecond: node, browserScoreTokensPerSecond: r.scoreTokensPerSecond, browserOverNode: r.scoreTokensPerSecond / node, note });
      console.error(`${dtype}: Node ${Math.round(node)} tok/s, Chromium WASM ${Math.round(r.scoreTokensPerSecond)} tok/s (${note})`);
    } finally {
      await browser.close();
      if (nodeLm !== lm) await nodeLm.release();
    }
  }
  for (const backend of backends) {
    const browser = await launch({ webgpu: backend === 'webgpu' });
    try {
      // m=0 and no tools: the explorer's first run stays out of the way of the measurement.
      const { page, errors } = await openPage(browser, `${served.url}?model=${model}&backend=${backend}&tools=&own=&m=0`);
      await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 120_000 });
      const reason = (await page.textContent('[data-testid="backend-reason"]'))?.trim() ?? '';
      // WebGPU on a software adapter is slow: fewer repeats keep the run short.
      const r = (await page.evaluate(
        (body) => (globalThis as unknown as { toolformer: { client: { request(t: string, b: unknown): Promise<unknown> } } })
          .toolformer.client.request('bench', body),
        { batch, length, repeats: backend === 'webgpu' ? Math.min(2, repeats) : repeats },
      )) as BenchResult;
      rows.push({ runtime: `Chromium, ${r.backend}`, scoreTokensPerSecond: r.scoreTokensPerSecond, forwardTokensPerSecond: r.forwardTokensPerSecond, note: reason });
      if (errors.length) console.warn(`${backend}: console errors`, errors);
    } finally {
      await browser.close();
    }
  }
} finally {
  await served.close();
}

const result = { model, batch, length, repeats, date: new Date().toISOString(), rows, dtypes: perDtype };
mkdirSync(join(repoRoot, 'out/bench'), { recursive: true });
writeFileSync(join(repoRoot, 'out/bench/web.json'), JSON.stringify(result, null, 2));
console.log(`model ${model}, ${batch} × ${length} tokens per score() call\n`);
console.log('| runtime | scoring tok/s | raw forward tok/s | note |\n|---|---:|---:|---|');
for (const r of rows) {
  console.log(`| ${r.runtime} | ${Math.round(r.scoreTokensPerSecond)} | ${r.forwardTokensPerSecond ? Math.round(r.forwardTokensPerSecond) : '—'} | ${r.note} |`);
}
console.log('\n| dtype | Node tok/s | Chromium WASM tok/s | browser / Node |\n|---|---:|---:|---:|');
for (const d of perDtype) {
  console.log(`| ${d.dtype} | ${Math.round(d.nodeScoreTokensPerSecond)} | ${Math.round(d.browserScoreTokensPerSecond)} | ${d.browserOverNode.toFixed(2)} |`);
}
