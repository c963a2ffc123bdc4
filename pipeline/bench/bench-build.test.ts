/**
 * The app's bundle ships no bench code (issue 27 item 5): `buildApp()` (what `vite build web` builds, here into a
 * folder of its own) has none of browser-worker/, and the bench build (bench-build.ts: the build web.ts and
 * real-size-browser.ts serve) has it, so the check can fail. Bench code is recognised by names minification keeps:
 * the worker's request keys and the bench result's fields (browser-worker/worker-bench.ts).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../web/e2e/serve.ts';
import { BENCH_BUILD } from './bench-build.ts';

const BENCH_MARKERS = ['benchScore', 'forwardTokensPerSecond'];
const root = mkdtempSync(join(tmpdir(), 'bench-build-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The built .js files (page, worker, chunks) that contain one of the markers, with the markers found. */
function benchCodeIn(outDir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(outDir, { recursive: true, encoding: 'utf8' })) {
    if (!name.endsWith('.js')) continue;
    const text = readFileSync(join(outDir, name), 'utf8');
    for (const marker of BENCH_MARKERS) if (text.includes(marker)) found.push(`${name}: ${marker}`);
  }
  return found;
}

describe('bench code and the app bundle', () => {
  it('the app build has none; a bench build has it in the worker', async () => {
    const app = join(root, 'app');
    const bench = join(root, 'bench');
    await buildApp({ outDir: app });
    await buildApp({ outDir: bench, ...BENCH_BUILD });
    expect(benchCodeIn(app)).toEqual([]);
    const inBench = benchCodeIn(bench);
    expect(inBench.map((f) => f.split(': ')[1]).sort()).toEqual([...BENCH_MARKERS].sort());
    expect(inBench.every((f) => /(^|\/)assets\/worker-[^/]+\.js: /.test(f))).toBe(true);
  }, 600_000);
});
