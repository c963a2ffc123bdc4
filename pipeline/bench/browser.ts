/**
 * The browser rows of bench.md, from pipeline/bench/results/web.json (written by `npm run bench:web`): scoring throughput per
 * runtime and backend, and browser vs Node per dtype with the ≤ 3× target.
 */
import { f, mark } from './format.ts';

/** Browser WASM scoring tokens/s per dtype, when web.json has them. */
export function browserByDtype(w: Record<string, unknown> | null): Record<string, number> | undefined {
  const rows = (w?.dtypes ?? null) as { dtype: string; browserScoreTokensPerSecond: number }[] | null;
  return rows ? Object.fromEntries(rows.map((r) => [r.dtype, r.browserScoreTokensPerSecond])) : undefined;
}

export function browserLines(w: Record<string, unknown> | null): string[] {
  type Row = { runtime: string; scoreTokensPerSecond: number; forwardTokensPerSecond?: number; note?: string };
  const rows = (w?.rows ?? null) as Row[] | null;
  if (!rows) return ['Browser (WASM / WebGPU): not measured (no pipeline/bench/results/web.json; run `npm run bench:web`).'];
  return [
    `Browser (from pipeline/bench/results/web.json, written by \`npm run bench:web\` on ${String(w?.date ?? '?').slice(0, 10)}: model ${String(w?.model)}, ` +
      `${String(w?.batch)} × ${String(w?.length)} tokens per score() call, wall time):`,
    '',
    '| Runtime | Scoring tokens/s | Bare forward tokens/s | Note |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.runtime} | ${f(r.scoreTokensPerSecond)} | ${r.forwardTokensPerSecond ? f(r.forwardTokensPerSecond) : '—'} | ${r.note ?? ''} |`),
    ...browserDtypeLines(w),
  ];
}

/** One row of web.json's `dtypes`: Node and Chromium WASM scoring the same rows (written by pipeline/bench/web.ts). */
export interface BrowserDtypeRow {
  dtype: string;
  /** Best-of-repeats wall tokens/s. */
  nodeScoreTokensPerSecond: number;
  browserScoreTokensPerSecond: number;
  nodeOverBrowser: number;
  /** Tokens per CPU-second (Node: its process; Chromium: all its processes, threads included). */
  nodeTokensPerCpuSecond: number;
  browserTokensPerCpuSecond: number;
  nodeOverBrowserCpu: number;
  browserThreads: number;
}

/** Browser vs Node per dtype (web.json `dtypes`, written by pipeline/bench/web.ts). */
function browserDtypeLines(w: Record<string, unknown> | null): string[] {
  const rows = (w?.dtypes ?? null) as BrowserDtypeRow[] | null;
  if (!rows?.length || rows[0].nodeOverBrowserCpu === undefined) return [];
  const fp32 = rows.find((r) => r.dtype === 'fp32');
  const best = rows.reduce((a, b) => (b.browserTokensPerCpuSecond > a.browserTokensPerCpuSecond ? b : a));
  return [
    '',
    `Browser (Chromium WASM, ${rows[0].browserThreads} threads, SIMD, in-graph log-prob head) against Node (onnxruntime-node, 1 thread) on the same rows, per dtype. ` +
      'Wall: best of the repeats; CPU: tokens per CPU-second (Chromium: all its processes) — on a shared machine the CPU ratio is the one load does not move:',
    '',
    '| dtype | Node tok/s | Chromium tok/s | Node / Chromium (wall) | Node tok per CPU-s | Chromium tok per CPU-s | Node / Chromium (CPU) | Target |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.dtype} | ${f(r.nodeScoreTokensPerSecond)} | ${f(r.browserScoreTokensPerSecond)} | ${f(r.nodeOverBrowser, 2)} | ` +
        `${f(r.nodeTokensPerCpuSecond)} | ${f(r.browserTokensPerCpuSecond)} | **${f(r.nodeOverBrowserCpu, 2)}** (${mark(r.nodeOverBrowserCpu <= 3)}) | ≤ 3 |`,
    ),
    ...(fp32 && best.dtype !== 'fp32'
      ? [
          `| Chromium ${best.dtype} vs Node fp32 | ${f(fp32.nodeScoreTokensPerSecond)} | ${f(best.browserScoreTokensPerSecond)} | ` +
            `${f(fp32.nodeScoreTokensPerSecond / best.browserScoreTokensPerSecond, 2)} | ${f(fp32.nodeTokensPerCpuSecond)} | ` +
            `${f(best.browserTokensPerCpuSecond)} | **${f(fp32.nodeTokensPerCpuSecond / best.browserTokensPerCpuSecond, 2)}** | ≤ 3 |`,
        ]
      : []),
  ];
}
