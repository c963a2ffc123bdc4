/**
 * The browser rows of the real-size bench (real-size.ts): the SmolLM2-135M-shape folder opened in a Chromium tab
 * through the web app's directory input (the "your own model" path: the Files go to the model worker, which reads the
 * chosen dtype's file), on WASM and on WebGPU — here a software adapter (SwiftShader), not a GPU. Per row: the load
 * (read, session, the in-graph head's self-check), CausalLM.score on the same rows as Node's scorer (the losses
 * workload), tokens/s (wall, best call) and tokens per CPU-second of all Chromium processes, and the tab's memory —
 * the renderer's resident set (the page and its model worker, WebAssembly heap included; peak = VmHWM), the GPU
 * process's (where WebGPU buffers live), and the JS + WebAssembly bytes the page itself counts
 * (performance.measureUserAgentSpecificMemory, available because the app is cross-origin isolated).
 */
import type { Dtype } from '../core/lm/dtypes.ts';
import type { ScoreRequest } from '../core/lm/lm.ts';
import { launch, openPage } from '../../web/e2e/browser.ts';
import { join } from 'node:path';
import { buildApp, repoRoot, serveApp } from '../../web/e2e/serve.ts';
import { BENCH_BUILD } from './bench-build.ts';
import { chromiumProcessMemory, descendantsCpuSeconds, type ProcessMemory } from './chromium-proc.ts';
import { TOOL_SPECS } from '../core/tools/registry.ts';

/** A text and a tool whose pre-filter skips it (e.g. a text without numbers): the explorer's first run does nothing. */
const QUIET_TEXT = 'Hello';
const QUIET_TOOL = TOOL_SPECS.find((s) => s.prefilter && !s.prefilter({ id: 'quiet', text: QUIET_TEXT }).pass)?.name ?? '';

export interface BrowserRealSizeRow {
  dtype: Dtype;
  /** Asked for, and what the tab ran (WebGPU falls back to WASM when its session fails). */
  backend: 'wasm' | 'webgpu';
  ran: string;
  /** The header's reason line (adapter, threads). */
  note: string;
  threads: number;
  loadSeconds: number;
  rows: number;
  length: number;
  repeats: number;
  /** Wall tokens/s of the best score() call. */
  tokensPerSecond: number;
  /** Tokens per CPU-second of every Chromium process (threads included), over all repeats. */
  tokensPerCpuSecond: number;
  renderer: ProcessMemory | null;
  gpuProcess: ProcessMemory | null;
  /** performance.measureUserAgentSpecificMemory() bytes (JS heaps and WebAssembly memories of page and worker), MiB. */
  measuredMiB: number | null;
}

type Hook = { toolformer: { client: { request(t: string, b: unknown): Promise<unknown> }; loaded: { loadMs: number; dtype: string; choice: { backend: string; threads: number } } } };

export interface BrowserBenchOptions {
  /** The model folder (real-size.ts REAL_SIZE_DIR). */
  dir: string;
  dtypes: readonly Dtype[];
  backends: readonly ('wasm' | 'webgpu')[];
  /** The dtypes run on WebGPU too (a software adapter here is slow; see real-size.ts --webgpu-dtypes). */
  webgpuDtypes: readonly Dtype[];
  /** The scorer's rows (real-size.ts: R × L tokens, losses read at the last 5 positions). */
  requests: (backend: 'wasm' | 'webgpu') => { rows: ScoreRequest[]; repeats: number };
  log: (...x: unknown[]) => void;
}

export async function measureBrowser(options: BrowserBenchOptions): Promise<BrowserRealSizeRow[]> {
  // Its own build folder: a browser test running meanwhile keeps web/dist.
  const outDir = join(repoRoot, 'out/bench/web-dist');
  await buildApp({ outDir, ...BENCH_BUILD });
  const served = await serveApp({ outDir });
  const results: BrowserRealSizeRow[] = [];
  try {
    for (const dtype of options.dtypes) {
      for (const backend of options.backends) {
        if (backend === 'webgpu' && !options.webgpuDtypes.includes(dtype)) continue;
        const { rows, repeats } = options.requests(backend);
        options.log(`browser ${dtype} ${backend}: opening the folder in a tab, ${rows.length} × ${rows[0].ids.length} tokens, ${repeats} repeats`);
        const browser = await launch({ webgpu: backend === 'webgpu' });
        try {
          // No bundled model (?model=none): the tab holds only the folder's. The explorer's settings score nothing
          // (one tool whose pre-filter skips the text), so its first run on the folder's model is brief.
          const quiet = `tools=${QUIET_TOOL}&text=${QUIET_TEXT}&own=&k=1&m=0&control=0`;
          const { page } = await openPage(browser, `${served.url}?model=none&backend=${backend}&dtype=${dtype}&${quiet}`);
          await page.waitForFunction(() => document.body.dataset.ready === 'none', null, { timeout: 120_000 });
          await page.setInputFiles('[data-testid="model-folder"]', options.dir);
          await page.waitForFunction(() => document.body.dataset.ready === 'error' || (document.body.dataset.ready === 'true' && document.body.dataset.model?.startsWith('disk:')), null, { timeout: 600_000, polling: 1000 });
          if ((await page.evaluate(() => document.body.dataset.ready)) === 'error') {
            throw new Error(`the tab could not load the folder: ${(await page.textContent('[data-testid="load-status"]'))?.trim()}`);
          }
          const loaded = await page.evaluate(() => (globalThis as unknown as Hook).toolformer.loaded);
          if (loaded.dtype !== dtype) throw new Error(`the tab loaded ${loaded.dtype}, not ${dtype}`);
          const note = (await page.textContent('[data-testid="backend-reason"]'))?.trim() ?? '';
          const request = (n: number) =>
            page.evaluate(
              (body) => (globalThis as unknown as Hook).toolformer.client.request('benchScore', body),
              { batch: rows.length, length: rows[0].ids.length, repeats: n, rows },
            ) as Promise<{ seconds: number[]; tokens: number; threads: number }>;
          await request(1); // warm-up (queued behind the explorer's first run on the folder's model)
          const c0 = descendantsCpuSeconds();
          const r = await request(repeats);
          const cpu = descendantsCpuSeconds() - c0;
          const measuredMiB = await page.evaluate(async () => {
            const measure = (performance as unknown as { measureUserAgentSpecificMemory?: () => Promise<{ bytes: number }> }).measureUserAgentSpecificMemory;
            if (!measure || !crossOriginIsolated) return null;
            // Chromium answers at its next garbage collection: ~20 s on an idle machine here.
            const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), 120_000));
            const m = await Promise.race([measure.call(performance), timeout]);
            return m ? m.bytes / 2 ** 20 : null;
          });
          results.push({
            dtype, backend, ran: loaded.choice.backend, note, threads: r.threads, loadSeconds: loaded.loadMs / 1000,
            rows: rows.length, length: rows[0].ids.length, repeats,
            tokensPerSecond: r.tokens / Math.min(...r.seconds),
            tokensPerCpuSecond: (r.tokens * repeats) / cpu,
            renderer: chromiumProcessMemory('renderer'),
            gpuProcess: chromiumProcessMemory('gpu-process'),
            measuredMiB,
          });
          options.log(`browser ${dtype} ${backend}: ${Math.round(results.at(-1)!.tokensPerSecond)} tok/s, renderer peak ${Math.round(results.at(-1)!.renderer?.peakRssMiB ?? NaN)} MiB`);
        } finally {
          await browser.close();
        }
      }
    }
  } finally {
    await served.close();
  }
  return results;
}
