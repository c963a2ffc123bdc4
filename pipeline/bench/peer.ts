/**
 * The bench's peer row: the same candidate calls scored by PyTorch on CPU (pipeline/bench/peer_torch.py, Debian's
 * python3-torch; optional — without it the row says "not installed"), batch-1 as public reimplementations do it and
 * batched, next to this project's scorer on the same positions in the same run. Ratios use process CPU time; both
 * sides run one thread.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CausalLM } from '../core/lm/lm.ts';
import { PAPER_WEIGHTS } from '../core/scoring/losses.ts';
import { scorePositions, type PositionToScore } from '../core/scoring/scoring.ts';
import { ROOT } from './model.ts';
import { f } from './format.ts';

/** The interpreter with Debian's torch (the `python3` on PATH may be another one); TOOLFORMER_PYTHON overrides. */
const PYTHON = process.env.TOOLFORMER_PYTHON ?? '/usr/bin/python3';

/** What a peer run gives: not installed (and why), or the peer's torch version with what it measured (T). */
export type PeerOutcome<T> = { installed: false; reason: string } | ({ installed: true; torch: string } & T);

interface PeerRun {
  cpuSeconds: number;
  wallSeconds: number;
  forwardPasses: number;
}
export type PeerResult = PeerOutcome<{
  calls: number;
  batch1: PeerRun & { callsPerSecond: number };
  batched: PeerRun & { callsPerSecond: number };
  scorer: { cpuSeconds: number; callsPerSecond: number };
  scorerOverBatch1: number;
  scorerOverBatched: number;
  /** Largest |loss difference| between PyTorch (batched) and the scorer, nats. */
  maxAbsLossDifference: number;
}>;

/**
 * The environment of a PyTorch peer process: one thread, and OpenBLAS's kernels chosen from the CPU's own flags.
 * Debian's torch calls whichever libblas.so.3 is installed; OpenBLAS 0.3.21 (Debian 12) does not know this VM's
 * CPU model ("Intel Xeon Processor") and falls back to its Prescott (SSE3) kernels, measured 23 GFLOP/s against
 * 117 with the AVX-512 (SkylakeX) ones on one thread. OPENBLAS_CORETYPE set by the caller is kept.
 */
export function peerEnv(): NodeJS.ProcessEnv {
  let coreType: string | undefined;
  try {
    const flags = new Set(/^flags\s*:(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1].trim().split(/\s+/) ?? []);
    coreType = flags.has('avx512f') && flags.has('avx512bw') && flags.has('avx512vl') ? 'SkylakeX' : flags.has('avx2') ? 'Haswell' : undefined;
  } catch {
    // not Linux: OpenBLAS's own detection
  }
  return { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', ...(coreType && !process.env.OPENBLAS_CORETYPE ? { OPENBLAS_CORETYPE: coreType } : {}) };
}

/** null when PYTHON imports torch and onnx, else why not. */
export function torchAvailable(): string | null {
  try {
    execFileSync(PYTHON, ['-c', 'import torch, onnx'], { stdio: 'ignore' });
    return null;
  } catch {
    return `${PYTHON} cannot import torch and onnx (apt-get install python3-torch python3-onnx)`;
  }
}

/**
 * Runs peer_torch.py on `request`: writes it into `dir` (a temporary folder of the caller's), runs the script in
 * `env` (peerEnv()) with `mode` as its first argument when given, and returns the result file the script wrote there.
 * Its stderr shows; its stdout when `stdout` is 'inherit'.
 */
export function runPeerScript<T>(dir: string, request: unknown, options: { mode?: string; env: NodeJS.ProcessEnv; stdout: 'ignore' | 'inherit' }): T {
  writeFileSync(join(dir, 'request.json'), JSON.stringify(request));
  const args = [join(ROOT, 'pipeline/bench/peer_torch.py'), ...(options.mode ? [options.mode] : []), join(dir, 'request.json'), join(dir, 'result.json')];
  execFileSync(PYTHON, args, { stdio: ['ignore', options.stdout, 'inherit'], env: options.env });
  return JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as T;
}

export async function benchTorchPeer(lm: CausalLM, dir: string, positions: readonly PositionToScore[]): Promise<PeerResult> {
  const missing = torchAvailable();
  if (missing) return { installed: false, reason: missing };
  const bos = lm.bosId === undefined ? [] : [lm.bosId];
  const seq = (callIds: number[], p: PositionToScore) => {
    const ids = [...bos, ...callIds, ...p.window.prefix, ...p.window.next];
    return { ids, from: ids.length - p.window.next.length };
  };
  const request = {
    model: dir,
    weights: PAPER_WEIGHTS,
    positions: positions.map((p) => ({
      noCall: seq([], p),
      calls: p.calls.map((c) => ({
        callOnly: seq(lm.encode(c.callOnly + p.window.separator), p),
        withResult: seq(lm.encode(c.withResult + p.window.separator), p),
      })),
    })),
  };
  const tmp = mkdtempSync(join(tmpdir(), 'bench-peer-'));
  try {
    const out = runPeerScript<{ torch: string; calls: number; batch1: PeerRun; batched: PeerRun; losses: [number, number, number][] }>(
      tmp,
      request,
      { env: peerEnv(), stdout: 'ignore' },
    );
    const c0 = process.cpuUsage();
    const scored = await scorePositions(lm, positions);
    const c = process.cpuUsage(c0);
    const scorerCpu = (c.user + c.system) / 1e6;
    let worst = 0;
    scored.flatMap((p) => p.losses).forEach((l, i) => {
      const [a, b, cc] = out.losses[i];
      worst = Math.max(worst, Math.abs(l.noCall - a), Math.abs(l.callOnly - b), Math.abs(l.withResult - cc));
    });
    const rate = (s: number) => out.calls / s;
    return {
      installed: true,
      torch: out.torch,
      calls: out.calls,
      batch1: { ...out.batch1, callsPerSecond: rate(out.batch1.cpuSeconds) },
      batched: { ...out.batched, callsPerSecond: rate(out.batched.cpuSeconds) },
      scorer: { cpuSeconds: scorerCpu, callsPerSecond: rate(scorerCpu) },
      scorerOverBatch1: out.batch1.cpuSeconds / scorerCpu,
      scorerOverBatched: out.batched.cpuSeconds / scorerCpu,
      maxAbsLossDifference: worst,
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export function peerLines(model: string, peer: PeerResult): string[] {
  if (!peer.installed) return [`PyTorch peer (${model}): not installed — ${peer.reason}.`];
  return [
    `PyTorch peer (${model}, the same ${f(peer.calls)} calls and weights; torch ${peer.torch} on CPU, 1 thread; process CPU time, one run):`,
    '',
    '| Scorer | Calls/s | Forward passes | This project\'s scorer is |',
    '|---|---|---|---|',
    `| PyTorch batch-1 (3 passes per call, full-vocab log-softmax: how the peers do it) | ${f(peer.batch1.callsPerSecond, 1)} | ${f(peer.batch1.forwardPasses)} | **${f(peer.scorerOverBatch1, 2)}×** faster |`,
    `| PyTorch batched (each sequence once, length-sorted batches of 16) | ${f(peer.batched.callsPerSecond, 1)} | ${f(peer.batched.forwardPasses)} | **${f(peer.scorerOverBatched, 2)}×** faster |`,
    `| toolformer-ts scorer (onnxruntime-node, in-graph head) | ${f(peer.scorer.callsPerSecond, 1)} | | |`,
    '',
    `Largest loss difference, PyTorch vs the scorer: ${peer.maxAbsLossDifference.toExponential(1)} nats.`,
  ];
}
