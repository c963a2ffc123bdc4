/**
 * The PyTorch peer row of the real-size bench (real-size.ts): the same fp32 weights (read by the peer from
 * onnx/model.onnx), the same R × L rows and the same two workloads as the scorer, timed by
 * pipeline/bench/peer_torch.py rows (peer_rows.py; Debian's python3-torch, optional — without it one line says so
 * and the row is left out). Before timing, the peer's logits are compared with ONNX Runtime's raw forward on the
 * first CHECK_ROWS rows, and its losses read with the scorer's, so the peer is shown to be the same model.
 *
 *   reference child: node --import tsx pipeline/bench/real-size-peer.ts --reference <dir> --rows R --length L
 *     writes <dir>/logits.f32 (ONNX Runtime's [CHECK_ROWS, L, V] float32 logits) and <dir>/scorer.json (the scorer's
 *     log-probs of the losses workload, [R][LOSS_READS])
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../node/model/load-model.ts';
import { scriptFlag } from '../io/script-flag.ts';
import { f } from './format.ts';
import { peerEnv, runPeerScript, torchAvailable, type PeerOutcome } from './peer.ts';
import { LOSS_READS, PROBE_ID, rawForwardFeeds, rawSession, REAL_SIZE_DIR, rowIds } from './real-size-shape.ts';

/** Rows whose full logits are compared (2 × 128 × 49,152 floats = 48 MiB through a file). */
const CHECK_ROWS = 2;
/** Largest |logit difference| (and |log-prob difference|) accepted between PyTorch and ONNX Runtime, fp32. */
export const PEER_TOLERANCE = 1e-4;

interface PeerRate {
  cpuSeconds: number;
  tokensPerSecond: number;
}
export type RealSizePeer = PeerOutcome<{
  threads: number;
  /** The BLAS libraries the peer process mapped (Debian's torch calls whichever provides libblas.so.3). */
  blas: string[];
  /** OpenBLAS's kernels (peer.ts peerEnv), or null when left to its detection. */
  openblasCoreType: string | null;
  /** Constant MatMul weights the peer mapped (7 per layer + the head). */
  linears: number;
  check: { rows: number; maxAbsLogitDiff: number; maxAbsLogProbDiff: number; tolerance: number; passed: boolean };
  /** |log-prob difference|, peer vs this project's scorer, over the losses workload's R × LOSS_READS reads. */
  maxAbsScorerLogProbDiff: number;
  /** [R, L, V] logits (as the raw ONNX Runtime forward); the losses read; the p_i read. Process CPU time. */
  forward: PeerRate;
  losses: PeerRate;
  probe: PeerRate;
}>;

/** The scorer-shaped workloads in PyTorch on the fp32 file of REAL_SIZE_DIR; `log` narrates. */
export function benchRealSizePeer(rows: number, length: number, repeats: number, log: (...x: unknown[]) => void): RealSizePeer {
  const missing = torchAvailable();
  if (missing) return { installed: false, reason: missing };
  const tmp = mkdtempSync(join(tmpdir(), 'real-size-peer-'));
  try {
    log(`PyTorch peer: ONNX Runtime's logits of ${CHECK_ROWS} rows and the scorer's losses, for the check`);
    execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--reference', tmp, '--rows', String(rows), '--length', String(length)], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const env = peerEnv();
    log(`PyTorch peer: fp32, ${rows} × ${length} tokens, ${repeats} repeats per workload, OPENBLAS_CORETYPE=${env.OPENBLAS_CORETYPE ?? '(unset)'}`);
    const request = {
      model: REAL_SIZE_DIR, rows: rowIds(rows, length), from: length - LOSS_READS, probe: PROBE_ID, repeats,
      check: { rows: CHECK_ROWS, logits: join(tmp, 'logits.f32') },
    };
    const out = runPeerScript<{
      torch: string; threads: number; blas: string[]; linears: number;
      check: { rows: number; maxAbsLogitDiff: number; maxAbsLogProbDiff: number };
      forward: PeerRate; losses: PeerRate; probe: PeerRate;
      lossLogProbs: number[][];
    }>(tmp, request, { mode: 'rows', env, stdout: 'inherit' });
    const scorer = JSON.parse(readFileSync(join(tmp, 'scorer.json'), 'utf8')) as number[][];
    const maxAbsScorerLogProbDiff = Math.max(...scorer.flatMap((row, r) => row.map((lp, j) => Math.abs(lp - out.lossLogProbs[r][j]))));
    const passed = out.check.maxAbsLogitDiff <= PEER_TOLERANCE && out.check.maxAbsLogProbDiff <= PEER_TOLERANCE && maxAbsScorerLogProbDiff <= PEER_TOLERANCE;
    return {
      installed: true, torch: out.torch, threads: out.threads, blas: out.blas, openblasCoreType: env.OPENBLAS_CORETYPE ?? null, linears: out.linears,
      check: { ...out.check, tolerance: PEER_TOLERANCE, passed }, maxAbsScorerLogProbDiff,
      forward: out.forward, losses: out.losses, probe: out.probe,
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The reference child: ONNX Runtime's raw fp32 logits of the check rows, and the scorer's losses read. */
async function writeReference(dir: string, rows: number, length: number): Promise<void> {
  const ids = rowIds(rows, length);
  const session = await rawSession('fp32');
  const { logits } = await session.run(rawForwardFeeds(session, ids.slice(0, CHECK_ROWS)), ['logits']);
  writeFileSync(join(dir, 'logits.f32'), new Uint8Array((logits.data as Float32Array).buffer));
  await session.release();
  const lm = await loadModel(REAL_SIZE_DIR, { dtype: 'fp32' });
  const scored = await lm.score(ids.map((row) => ({ ids: row, from: length - LOSS_READS })));
  writeFileSync(join(dir, 'scorer.json'), JSON.stringify(scored.map((s) => Array.from(s.tokenLogProbs.subarray(length - LOSS_READS)))));
  await lm.release();
}

/** The markdown lines of the peer row, against the scorer's fp32 and q4f16 rates of the same run. */
export function realSizePeerLines(peer: RealSizePeer, scorer: { dtype: string; losses: number; probe: number; limit: number }[]): string[] {
  if (!peer.installed) return [`PyTorch peer: not run — ${peer.reason}.`];
  const e = (x: number) => x.toExponential(1);
  return [
    `PyTorch peer (\`pipeline/bench/peer_torch.py rows\`, torch ${peer.torch}, ${peer.threads} thread, float32, \`inference_mode\`, BLAS`,
    `${peer.blas.map((b) => `\`${basename(b)}\``).join(', ') || 'none mapped'}, OPENBLAS_CORETYPE ${peer.openblasCoreType ?? 'unset'}): the fp32 file's weights (${peer.linears} MatMul weights mapped from the graph), the same rows,`,
    `batched as one [R, L] pass; process CPU time.`,
    `Same model: largest |logit| difference vs ONNX Runtime ${e(peer.check.maxAbsLogitDiff)}, |log-prob| ${e(peer.check.maxAbsLogProbDiff)} (${peer.check.rows} rows, every`,
    `position and id), |log-prob| vs the scorer's losses ${e(peer.maxAbsScorerLogProbDiff)}; tolerance ${e(peer.check.tolerance)}: **${peer.check.passed ? 'passed' : 'FAILED'}**.`,
    '',
    '| PyTorch peer, fp32 | tok/s | fp32 scorer / peer | q4f16 scorer / peer |',
    '|---|---|---|---|',
    ...(['losses', 'probe', 'forward'] as const).map((k) => {
      const label = { losses: 'losses (head and log-softmax at the 5 read positions only)', probe: 'p_i (head and log-softmax everywhere, next id + probe)', forward: 'raw forward, [R, L, V] logits (vs ONNX Runtime\'s limit)' }[k];
      const ours = (s: (typeof scorer)[number]) => ({ losses: s.losses, probe: s.probe, forward: s.limit })[k];
      const ratio = (dtype: string) => {
        const s = scorer.find((x) => x.dtype === dtype);
        return s ? `**${f(ours(s) / peer[k].tokensPerSecond, 2)}×**` : '—';
      };
      return `| ${label} | ${f(peer[k].tokensPerSecond)} | ${ratio('fp32')} | ${ratio('q4f16')} |`;
    }),
    '',
  ];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await writeReference(scriptFlag('reference', ''), Number(scriptFlag('rows', '16')), Number(scriptFlag('length', '128')));
}
