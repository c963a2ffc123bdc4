/**
 * Vite config for the web app (`npm run web`, `web:build`, `web:preview`; root = web/).
 *
 * - COOP/COEP on dev and preview → `crossOriginIsolated`, so onnxruntime-web's WASM backend can use threads.
 * - onnxruntime-web goes into its own chunk (`ort`): its thread workers re-import that chunk, which therefore must
 *   hold no DOM code (else a thread worker fails on "document is not defined" and `numThreads > 1` hangs). Its
 *   `.wasm` files are found by Vite through `new URL(…, import.meta.url)` inside the package and emitted as assets:
 *   nothing is fetched from a CDN.
 * - `/models/` and `/corpus/` are served from the repo (see repo-files-plugin.ts).
 * - Compressed responses: a brotli sibling of every compressible output file, served by `vite preview`; `.wasm` and
 *   `.onnx` compressed on the fly by the dev server (precompress-plugin.ts).
 * - The dev server pre-bundles every dependency before the first page load: its scan starts from index.html and the
 *   model worker (which the page loads through `new URL('./worker.ts', import.meta.url)`, a path the scan does not
 *   follow). Without the worker entry the worker's dependencies (mathjs, minisearch, …) are found only when the
 *   worker first asks for them, and Vite reloads the page after optimising them (issue 33: the first visit
 *   reloaded and lost ~a minute).
 */
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { existsSync, realpathSync } from 'node:fs';
import { defineConfig } from 'vite';
import { precompress } from './precompress-plugin.ts';
import { isolationHeaders, repoFiles, repoMounts } from './repo-files-plugin.ts';

const webDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(webDir, '..');
/**
 * Where node_modules really is: a git worktree may link it to another checkout's, and the dev server refuses files
 * outside `fs.allow` by their real path (onnxruntime-web's .wasm then fails to load).
 */
const modulesDir = existsSync(resolve(repoRoot, 'node_modules')) ? realpathSync(resolve(repoRoot, 'node_modules')) : null;

/**
 * Rolldown warns ([PLUGIN_TIMINGS]) when a plugin's hooks take long, which on a loaded 2-core machine is every
 * build: noise in `npm test` (issue 33). The timings are not a fault of the build.
 */
const quietChecks = { bundlerTimings: false };

/**
 * onnxruntime-web alone in its chunks: `ort-wasm` (the `onnxruntime-web/wasm` entry, WASM backend only) and `ort` (the
 * full entry with WebGPU, taken only when WebGPU was chosen: ort-web.ts). Each entry is a self-contained bundle.
 */
const ortChunk = {
  codeSplitting: {
    groups: [
      { name: 'ort-wasm', test: /node_modules[\\/]onnxruntime-web[\\/]dist[\\/]ort\.wasm\./, priority: 20 },
      { name: 'ort', test: /node_modules[\\/]onnxruntime-(web|common)[\\/]/, priority: 10 },
    ],
  },
};

export default defineConfig({
  root: webDir,
  base: './',
  // precompress first: its servers' middleware answers with the compressed file before repo-files streams the raw one.
  plugins: [precompress({ headers: isolationHeaders, mounts: repoMounts(repoRoot) }), repoFiles(repoRoot)],
  server: {
    headers: isolationHeaders,
    fs: { allow: modulesDir ? [repoRoot, modulesDir] : [repoRoot] },
  },
  preview: { headers: isolationHeaders },
  worker: {
    format: 'es',
    rolldownOptions: { output: ortChunk, checks: quietChecks },
  },
  build: {
    outDir: resolve(webDir, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    // kB. The two chunks over 1 MB are data, loaded on first use, that splitting would not shrink: eld's n-gram table
    // (static.medium, 2.0 MB: language detection for Translate) and the QA knowledge base (kb, 2.5 MB, worker only).
    // At 1024 every build warned about them (noise in `npm test`, issue 33); 3 MB still catches app code that grows.
    chunkSizeWarningLimit: 3 * 1024,
    rolldownOptions: { output: ortChunk, checks: quietChecks },
  },
  optimizeDeps: {
    entries: ['index.html', 'src/worker.ts'],
    // Pre-bundling would move onnxruntime-web away from its .wasm files; serve it as is.
    exclude: ['onnxruntime-web'],
  },
});
