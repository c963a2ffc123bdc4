/**
 * The bench's dtype section: one model's fp32 / fp16 / q8 files (onnx/model.onnx, model_fp16.onnx,
 * model_quantized.onnx: pipeline/onnx-export/quantize.ts) on the same workload — file size, scoring speed in process CPU
 * time (interleaved rounds, medians), the largest loss difference from fp32, and how many keep/drop decisions
 * change at the paper's thresholds τ_f = 0.5 and 1.0 (a difference that flips no decision is negligible there).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Doc } from '../core/document.ts';
import { judge } from '../core/scoring/judge.ts';
import { scorePositions } from '../core/scoring/scoring.ts';
import { availableDtypes, DTYPE_FILES, type Dtype } from '../node/model/hf-cache.ts';
import { loadModel } from '../node/model/load-model.ts';
import { buildWorkload } from './workload.ts';
import { f } from './format.ts';
import { median } from '../core/median.ts';

export interface DtypeRow {
  dtype: Dtype;
  file: string;
  bytes: number;
  callsPerSecond: number;
  tokensPerSecond: number;
  /** Largest |L − L_fp32| over L_a, L_b, L_c of every call, nats. */
  maxAbsLossDifference: number;
  /** Largest |usefulness − usefulness_fp32|, nats. */
  maxAbsUsefulnessDifference: number;
  /** Calls kept / decisions that differ from fp32, at each τ_f. */
  decisions: { tauF: number; kept: number; flipped: number }[];
}

const TAUS = [0.5, 1.0];

export async function benchDtypes(dir: string, docs: readonly Doc[], rounds: number, log: (...x: unknown[]) => void) {
  const dtypes = (await availableDtypes(dir)).filter((d) => d !== 'q4');
  const lms = await Promise.all(dtypes.map((dtype) => loadModel(dir, { dtype })));
  const workload = await buildWorkload(lms[0], docs);
  const positions = workload.docs.flatMap((d) => d.positions);
  let tokens = 0;
  lms[0].onScoreBatch = (b) => (tokens += b.rows * b.length);
  const scored = await Promise.all(lms.map((lm) => scorePositions(lm, positions)));
  lms[0].onScoreBatch = undefined;
  const cpu: number[][] = dtypes.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < lms.length; i++) {
      const c0 = process.cpuUsage();
      await scorePositions(lms[i], positions);
      const c = process.cpuUsage(c0);
      cpu[i].push((c.user + c.system) / 1e6);
    }
    log(`dtypes round ${r + 1}/${rounds} (cpu s): ${dtypes.map((d, i) => `${d} ${cpu[i][r].toFixed(2)}`).join(', ')}`);
  }
  await Promise.all(lms.map((lm) => lm.release()));
  const flat = (i: number) => scored[i].flatMap((p) => p.losses);
  const base = flat(0);
  const rows: DtypeRow[] = dtypes.map((dtype, i) => {
    const losses = flat(i);
    let maxLoss = 0;
    let maxUse = 0;
    losses.forEach((l, j) => {
      for (const k of ['noCall', 'callOnly', 'withResult'] as const) maxLoss = Math.max(maxLoss, Math.abs(l[k] - base[j][k]));
      maxUse = Math.max(maxUse, Math.abs(judge(l, 0).usefulness - judge(base[j], 0).usefulness));
    });
    const decisions = TAUS.map((tauF) => ({
      tauF,
      kept: losses.filter((l) => judge(l, tauF).kept).length,
      flipped: losses.filter((l, j) => judge(l, tauF).kept !== judge(base[j], tauF).kept).length,
    }));
    const seconds = median(cpu[i]);
    return {
      dtype,
      file: `onnx/${DTYPE_FILES[dtype]}`,
      bytes: statSync(join(dir, 'onnx', DTYPE_FILES[dtype])).size,
      callsPerSecond: workload.calls / seconds,
      tokensPerSecond: tokens / seconds,
      maxAbsLossDifference: maxLoss,
      maxAbsUsefulnessDifference: maxUse,
      decisions,
    };
  });
  return { calls: workload.calls, positions: workload.positions, rows, scoredPositions: positions };
}

/** The markdown table for bench.md / the README. */
export function dtypeLines(model: string, result: Awaited<ReturnType<typeof benchDtypes>>, browser?: Record<string, number>): string[] {
  const fp32 = result.rows[0];
  return [
    `Weight formats (${model}, the same ${f(result.calls)} calls at ${f(result.positions)} positions; Node CPU time; ` +
      'decisions = calls kept at τ_f, and how many differ from fp32):',
    '',
    '| dtype (file) | Size | Node calls/s (× fp32) | Browser WASM tokens/s | Largest loss diff vs fp32 | Largest usefulness diff | τ_f 0.5: kept, flipped | τ_f 1.0: kept, flipped |',
    '|---|---|---|---|---|---|---|---|',
    ...result.rows.map((r) => {
      const [d05, d10] = r.decisions;
      const web = browser?.[r.dtype];
      return (
        `| ${r.dtype} (${r.file}) | ${f(r.bytes / 1e6, 2)} MB | ${f(r.callsPerSecond, 1)} (${f(r.callsPerSecond / fp32.callsPerSecond, 2)}×) | ` +
        `${web ? f(web) : '—'} | ${r.maxAbsLossDifference.toExponential(1)} | ${r.maxAbsUsefulnessDifference.toExponential(1)} | ` +
        `${d05.kept}, ${d05.flipped} | ${d10.kept}, ${d10.flipped} |`
      );
    }),
  ];
}
