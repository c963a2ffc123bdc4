/**
 * Browser scoring throughput next to Node's, on one model and one workload (browser-worker/bench-rows.ts):
 *   - Node: onnxruntime-node via pipeline/node/model/load-model.ts (1 intra-op thread, the pipeline's setting)
 *   - Chromium, WASM (multi-threaded: the app is cross-origin isolated)
 *   - Chromium, WebGPU (here: the SwiftShader software adapter; a real GPU is much faster)
 * Reports CausalLM.score tokens/s and the raw forward limit of the same session options.
 *
 *   npm run bench:web -- [--model default|tiny-random] [--batch 16] [--length 128] [--repeats 5] [--backends wasm,webgpu]
 *                        [--dtypes fp32,fp16,q8] [--threads auto,1]
 *
 * Per dtype (the model's onnx/ variants), Node and Chromium WASM score the same rows: their ratio is the
 * browser's distance from Node on the same model and shapes.
 *
 * Writes pipeline/bench/results/web.json and prints a markdown table.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DTYPE_FILES, isDtype, type Dtype } from '../core/lm/dtypes.ts';
import { loadModel } from '../node/model/load-model.ts';
import type { BenchResult } from '../../web/src/analysis-types.ts';
import { launch, openPage } from '../../web/e2e/browser.ts';
import { buildAndServe, repoRoot } from '../../web/e2e/serve.ts';
import { BENCH_BUILD } from './bench-build.ts';
import { benchRows, scoreThroughput, scoreTimes } from './browser-worker/bench-rows.ts';
import type { BrowserDtypeRow } from './browser.ts';
import { descendantsCpuSeconds } from './chromium-proc.ts';
import { scriptFlag } from '../io/script-flag.ts';

const arg = scriptFlag;

const model = arg('model', existsSync(join(repoRoot, 'models/default/onnx/model.onnx')) ? 'default' : 'tiny-random');
const batch = Number(arg('batch', '16'));
const length = Number(arg('length', '128'));
const repeats = Number(arg('repeats', '5'));
const backends = arg('backends', 'wasm,webgpu').split(',').filter((b): b is 'wasm' | 'webgpu' => b === 'wasm' || b === 'webgpu');

const dtypes = arg('dtypes', 'fp32,fp16,q8').split(',').filter(isDtype)
  .filter((d) => existsSync(join(repoRoot, 'models', model, 'onnx', DTYPE_FILES[d])));

/** WASM thread settings to try per dtype: "auto" (the app's default) or a number (an upper bound). */
const threadSettings = arg('threads', 'auto').split(',').map((t) => (t === 'auto' ? 0 : Number(t)));

const rows: { runtime: string; scoreTokensPerSecond: number; forwardTokensPerSecond?: number; note: string }[] = [];

const lm = await loadModel(join(repoRoot, 'models', model));
const nodeTps = await scoreThroughput(lm, benchRows(lm, batch, length), repeats);
rows.push({ runtime: 'Node, onnxruntime-node', scoreTokensPerSecond: nodeTps, note: '1 intra-op thread' });

/** Per dtype, Node and Chromium WASM on the same rows: best-of-repeats wall tokens/s, and tokens per CPU-second
 * (Node: this process; Chromium: all its processes, threads included) — the machine is shared, so CPU time is the
 * comparison that other processes' load does not move. */
const perDtype: (BrowserDtypeRow & { dtype: Dtype; note: string })[] = [];

const served = await buildAndServe('bench', BENCH_BUILD);
try {
  for (const dtype of dtypes) {
    const nodeLm = dtype === 'fp32' ? lm : await loadModel(join(repoRoot, 'models', model), { dtype });
    const nodeRows = benchRows(nodeLm, batch, length);
    const tokens = nodeRows.reduce((s, r) => s + r.ids.length, 0);
    await nodeLm.score(nodeRows);
    const c0 = process.cpuUsage();
    const nodeSeconds = await scoreTimes(nodeLm, nodeRows, repeats);
    const c = process.cpuUsage(c0);
    const nodeCpu = (c.user + c.system) / 1e6;
    for (const threads of threadSettings) {
    const browser = await launch({ webgpu: false });
    try {
      const { page } = await openPage(browser, `${served.url}?model=${model}&backend=wasm&dtype=${dtype}&threads=${threads}&tools=&own=&m=0`);
      await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 120_000 });
      const note = (await page.textContent('[data-testid="backend-reason"]'))?.trim() ?? '';
      const request = (n: number) =>
        page.evaluate(
          (body) => (globalThis as unknown as { toolformer: { client: { request(t: string, b: unknown): Promise<unknown> } } })
            .toolformer.client.request('benchScore', body),
          { batch, length, repeats: n },
        ) as Promise<{ seconds: number[]; tokens: number; threads: number }>;
      await request(1); // warm-up: kernels, buffers
      const b0 = descendantsCpuSeconds();
      const r = await request(repeats);
      const browserCpu = descendantsCpuSeconds() - b0;
      if (r.tokens !== tokens) throw new Error(`browser rows have ${r.tokens} tokens, Node's ${tokens}`);
      const row = {
        dtype,
        nodeScoreTokensPerSecond: tokens / Math.min(...nodeSeconds),
        browserScoreTokensPerSecond: tokens / Math.min(...r.seconds),
        nodeOverBrowser: 0,
        nodeTokensPerCpuSecond: (tokens * repeats) / nodeCpu,
        browserTokensPerCpuSecond: (tokens * repeats) / browserCpu,
        nodeOverBrowserCpu: 0,
        browserThreads: r.threads,
        note,
      };
      row.nodeOverBrowser = row.nodeScoreTokensPerSecond / row.browserScoreTokensPerSecond;
      row.nodeOverBrowserCpu = row.nodeTokensPerCpuSecond / row.browserTokensPerCpuSecond;
      perDtype.push(row);
      console.error(
        `${dtype}: wall best Node ${Math.round(row.nodeScoreTokensPerSecond)} / Chromium WASM ${Math.round(row.browserScoreTokensPerSecond)} tok/s; ` +
          `per CPU-second ${Math.round(row.nodeTokensPerCpuSecond)} / ${Math.round(row.browserTokensPerCpuSecond)} (${note})`,
      );
    } finally {
      await browser.close();
    }
    }
    if (nodeLm !== lm) await nodeLm.release();
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
mkdirSync(join(repoRoot, 'pipeline/bench/results'), { recursive: true });
writeFileSync(join(repoRoot, 'pipeline/bench/results/web.json'), JSON.stringify(result, null, 2));
console.log(`model ${model}, ${batch} × ${length} tokens per score() call\n`);
console.log('| runtime | scoring tok/s | raw forward tok/s | note |\n|---|---:|---:|---|');
for (const r of rows) {
  console.log(`| ${r.runtime} | ${Math.round(r.scoreTokensPerSecond)} | ${r.forwardTokensPerSecond ? Math.round(r.forwardTokensPerSecond) : '—'} | ${r.note} |`);
}
console.log('\n| dtype | Node tok/s (wall, best) | Chromium WASM tok/s | Node / browser | Node tok per CPU-s | Chromium tok per CPU-s | Node / browser |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const d of perDtype) {
  console.log(
    `| ${d.dtype} | ${Math.round(d.nodeScoreTokensPerSecond)} | ${Math.round(d.browserScoreTokensPerSecond)} | ${d.nodeOverBrowser.toFixed(2)} | ` +
      `${Math.round(d.nodeTokensPerCpuSecond)} | ${Math.round(d.browserTokensPerCpuSecond)} | ${d.nodeOverBrowserCpu.toFixed(2)} |`,
  );
}
