/**
 * The scorer-level half of the backends bench (backends.ts): for one model, every runtime on the same R × L rows,
 * each held open in its own process (backends-child.ts; PyTorch: peer_torch.py rows), the rounds interleaved —
 * round k runs every workload on every runtime before round k + 1 starts, the runtimes' order rotating — so a load
 * that comes and goes on the shared machine falls on every runtime alike. Round 0 is a warm-up and is not kept.
 *
 * Per runtime and workload: the median over the kept rounds of CPU seconds (the served runtime: client + server).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { peerEnv } from './peer.ts';
import { LOSS_READS, PROBE_ID, rowIds } from './real-size-shape.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'pipeline/node/bin.mjs');
const PYTHON = process.env.TOOLFORMER_PYTHON ?? '/usr/bin/python3';

/**
 * forwardOne / forwardAll: the runtime's bare forward with the LM head at each row's last position / at every position
 * (backends-child.ts); losses / probe: the scorer's two reads.
 */
export const WORKLOADS = ['forwardOne', 'forwardAll', 'losses', 'probe'] as const;
export type Workload = (typeof WORKLOADS)[number];

export interface RuntimeRow {
  runtime: string;
  /** Median CPU seconds per round of each workload (R × L tokens); absent: the runtime has no such workload. */
  cpuSeconds: Partial<Record<Workload, number>>;
  /** Every kept round's CPU seconds, in round order. */
  rounds: Partial<Record<Workload, number[]>>;
  error?: string;
}

export interface RowsResult {
  model: string;
  rows: number;
  length: number;
  rounds: number;
  loadAverage: number[];
  runtimes: RuntimeRow[];
  /**
   * Per runtime (not PyTorch: torchCheck), the largest |log p − log p of ONNX Runtime f32| over the p_i request's
   * reads (every row and position: the next id and the probe id), nats.
   */
  logProbGap?: Record<string, number>;
  /** PyTorch's logits on the check rows against ONNX Runtime's (peer_rows.py), when PyTorch ran. */
  torchCheck?: { maxAbsLogitDiff: number; maxAbsLogProbDiff: number; torch: string; blas: string[] };
}

/** A runtime held open: `ask(workload)` → CPU seconds of one timed run. */
interface Held {
  name: string;
  ask(workload: Workload): Promise<number | undefined>;
  close(): Promise<void>;
}

/** CPU seconds (user + system) of `pid`, from /proc (Linux). */
export function cpuOfPid(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function holdChild(name: string, args: string[], server?: ChildProcess): Promise<Held & { send(line: string): Promise<string> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'pipeline/bench/backends-child.ts'), ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: Interface = createInterface({ input: child.stdout! });
  const pending: { done(line: string): void; fail(e: Error): void }[] = [];
  lines.on('line', (line) => pending.shift()?.done(line));
  const exited = new Promise<void>((done) =>
    child.on('exit', (code) => {
      for (const p of pending.splice(0)) p.fail(new Error(`${name}: the child exited (${code})`));
      done();
    }),
  );
  const send = (line: string) =>
    new Promise<string>((done, fail) => {
      pending.push({ done, fail });
      child.stdin!.write(line + '\n');
    });
  return {
    name,
    send,
    ask: async (workload) => {
      if (server && workload.startsWith('forward')) return undefined; // the served runtime's forward is ONNX Runtime's
      const serverBefore = server ? cpuOfPid(server.pid!) : 0;
      const answer = JSON.parse(await send(workload)) as { cpuSeconds?: number; error?: string };
      if (answer.error) throw new Error(`${name} ${workload}: ${answer.error}`);
      return answer.cpuSeconds! + (server ? cpuOfPid(server.pid!) - serverBefore : 0);
    },
    close: async () => {
      child.stdin!.end('exit\n');
      await exited;
      server?.kill('SIGTERM');
    },
  };
}

/** `toolformer serve --model <model>` on a free port; resolves with the child and its /v1 URL once it prints it. */
export function startServe(model: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--model', model, '--port', '0', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((done, fail) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      const url = /at (http:\/\/\S+\/v1)/.exec(out)?.[1];
      if (url) done({ child, url });
    });
    child.on('exit', (code) => fail(new Error(`toolformer serve exited ${code}`)));
  });
}

/** PyTorch (peer_torch.py rows): one process per round, its own warm-up, then each workload once. */
function holdTorch(model: string, rows: number, length: number, logits: string): Held {
  const tmp = mkdtempSync(join(tmpdir(), 'backends-torch-'));
  writeFileSync(join(tmp, 'rows.json'), JSON.stringify({
    model, rows: rowIds(rows, length), from: length - LOSS_READS, probe: PROBE_ID, repeats: 1, check: { rows: 2, logits },
  }));
  let round: Record<Workload, number | undefined> | undefined;
  const held: Held & { check?: RowsResult['torchCheck'] } = {
    name: 'PyTorch',
    ask: async (workload) => {
      if (workload === 'forwardOne' || !round) {
        execFileSync(PYTHON, [join(ROOT, 'pipeline/bench/peer_torch.py'), 'rows', join(tmp, 'rows.json'), join(tmp, 'result.json')], { stdio: ['ignore', 'ignore', 'inherit'], env: peerEnv() });
        const out = JSON.parse(readFileSync(join(tmp, 'result.json'), 'utf8'));
        round = { forwardOne: out.forwardOne?.cpuSeconds, forwardAll: out.forward.cpuSeconds, losses: out.losses.cpuSeconds, probe: out.probe.cpuSeconds };
        held.check = { maxAbsLogitDiff: out.check.maxAbsLogitDiff, maxAbsLogProbDiff: out.check.maxAbsLogProbDiff, torch: out.torch, blas: out.blas };
      }
      return round[workload];
    },
    close: async () => rmSync(tmp, { recursive: true, force: true }),
  };
  return held;
}

export interface RowsPlan {
  /** The ONNX folder. */
  model: string;
  /** dtype → GGUF file of the same weights. */
  ggufs: Record<string, string>;
  rows: number;
  length: number;
  rounds: number;
  /** Why PyTorch is left out, or null to run it. */
  torchMissing: string | null;
  log: (...x: unknown[]) => void;
}

export async function benchRows(plan: RowsPlan): Promise<RowsResult> {
  const { model, rows, length, rounds, log } = plan;
  const shape = ['--rows', String(rows), '--length', String(length)];
  const loadAverage = [loadavg()[0]];
  const served = await startServe(model);
  const onnx = await holdChild('onnx', ['--runtime', 'onnx', '--model', model, ...shape]);
  const children = [
    onnx,
    await holdChild('onnx q8', ['--runtime', 'onnx', '--dtype', 'q8', '--model', model, ...shape]),
    await holdChild('served (toolformer serve over onnx, HTTP)', ['--runtime', 'served', '--model', served.url, '--tokenizer', model, ...shape], served.child),
    ...(await Promise.all(Object.entries(plan.ggufs).map(([dtype, file]) => holdChild(`llama.cpp ${dtype}`, ['--runtime', 'llama.cpp', '--model', file, ...shape])))),
  ];
  const held: Held[] = [...children];
  const tmp = mkdtempSync(join(tmpdir(), 'backends-rows-'));
  const logProbGap = await logProbGaps(children, tmp, log);
  const torchError = plan.torchMissing;
  if (!torchError) {
    await onnx.send(`logits ${join(tmp, 'logits.f32')}`); // PyTorch's check: ONNX Runtime's logits of 2 rows
    held.push(holdTorch(model, rows, length, join(tmp, 'logits.f32')));
  }
  const table = new Map<string, RuntimeRow>(held.map((h) => [h.name, { runtime: h.name, cpuSeconds: {}, rounds: {} }]));
  if (torchError) table.set('PyTorch', { runtime: 'PyTorch', cpuSeconds: {}, rounds: {}, error: torchError });
  try {
    for (let round = 0; round <= rounds; round++) {
      for (const workload of WORKLOADS) {
        for (let k = 0; k < held.length; k++) {
          const h = held[(k + round) % held.length];
          const row = table.get(h.name)!;
          if (row.error) continue;
          try {
            const cpu = await h.ask(workload);
            if (cpu !== undefined && round > 0) (row.rounds[workload] ??= []).push(Number(cpu.toFixed(3)));
          } catch (error) {
            row.error = (error as Error).message.split('\n')[0];
          }
        }
      }
      loadAverage.push(loadavg()[0]);
      log(`${model}: round ${round}${round === 0 ? ' (warm-up)' : ''} done, load ${loadavg()[0].toFixed(1)}`);
    }
  } finally {
    for (const h of held) await h.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  for (const row of table.values()) for (const w of WORKLOADS) if (row.rounds[w]) row.cpuSeconds[w] = median(row.rounds[w]!);
  const torch = held.find((h) => h.name === 'PyTorch') as { check?: RowsResult['torchCheck'] } | undefined;
  return { model, rows, length, rounds, loadAverage: loadAverage.map((x) => Number(x.toFixed(1))), runtimes: [...table.values()], logProbGap, torchCheck: torch?.check };
}

/**
 * Per child after the first (ONNX Runtime f32), the largest |log p − the first's| over the p_i request's reads (the
 * `logprobs` request: every row and position, next id and probe id), untimed. A child that cannot answer is left
 * out (its timed rows then say why).
 */
async function logProbGaps(children: { name: string; send(line: string): Promise<string> }[], tmp: string, log: RowsPlan['log']): Promise<Record<string, number>> {
  const read = async (i: number) => {
    const file = join(tmp, `logprobs-${i}.json`);
    const answer = JSON.parse(await children[i].send(`logprobs ${file}`)) as { error?: string };
    if (answer.error) throw new Error(answer.error);
    return JSON.parse(readFileSync(file, 'utf8')) as number[][][]; // [row][next id | probe][position]
  };
  const reference = await read(0);
  const gaps: Record<string, number> = {};
  for (let i = 1; i < children.length; i++) {
    try {
      let gap = 0;
      (await read(i)).forEach((row, r) => row.forEach((xs, k) => xs.forEach((x, t) => (gap = Math.max(gap, Math.abs(x - reference[r][k][t]))))));
      gaps[children[i].name] = Number(gap.toPrecision(2));
    } catch (error) {
      log(`${children[i].name}: no log-probs to compare (${(error as Error).message.split('\n')[0]})`);
    }
  }
  return gaps;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
