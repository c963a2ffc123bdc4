/**
 * The web app's bench build: the app with its worker's extra requests (web/src/worker-extras.ts: none) replaced by
 * browser-worker/worker-bench.ts (`bench`, `benchScore`), through web/e2e/serve.ts's `workerExtras` option. The bench
 * sits on top of the app: web/ imports nothing of pipeline/bench (.dependency-cruiser.cjs web-knows-no-bench), and the
 * app's own bundle ships no bench code (bench-build.test.ts).
 */
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from '../../web/e2e/serve.ts';

/** The build options that make a bench build: spread them into buildApp / buildAndServe. */
export const BENCH_BUILD = {
  workerExtras: fileURLToPath(new URL('./browser-worker/worker-bench.ts', import.meta.url)),
} as const satisfies Omit<BuildOptions, 'outDir'>;
