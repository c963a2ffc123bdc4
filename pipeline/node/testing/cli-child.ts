/**
 * Run the `toolformer` CLI as a child process, as a user would: for tests of exit codes, stderr and kill -9.
 * Through bin.mjs (tsx registered in-process), so the child is one process and a SIGKILL stops all of it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { childProgress, whileProgressing } from './progress.ts';

export const ROOT = resolve(import.meta.dirname, '../../..');
export const TINY_MODEL = resolve(ROOT, 'models/tiny-random');
const BIN = resolve(ROOT, 'pipeline/node/bin.mjs');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Start `toolformer <args…>` in `cwd`; `done` settles when it exits (or is killed), and rejects (the child killed)
 * when it shows no progress for STALL_MS (testing/progress.ts). Unless `env` names a
 * TOOLFORMER_CACHE, the child gets an empty one of its own (removed when it exits): runs that a test compares byte
 * for byte then all compute their probes (config.json's probeCache.cached false), and these tests write nothing to ~/.cache.
 */
export function spawnCli(args: string[], cwd: string, env?: NodeJS.ProcessEnv, options: { detached?: boolean; wrapper?: string[] } = {}): { child: ChildProcess; done: Promise<CliResult> } {
  const ownCache = (env ?? process.env).TOOLFORMER_CACHE ? null : mkdtempSync(join(tmpdir(), 'toolformer-cache-'));
  const childEnv = ownCache ? { ...(env ?? process.env), TOOLFORMER_CACHE: ownCache } : (env ?? process.env);
  // detached: its own process group, so that `process.kill(-child.pid, 'SIGKILL')` stops it with its children.
  // wrapper: a command the CLI runs under (`/usr/bin/time -f %M -o file`, runCliMeasured).
  const [command, ...prefix] = [...(options.wrapper ?? []), process.execPath];
  const child = spawn(command, [...prefix, BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: childEnv, detached: options.detached });
  if (ownCache) child.on('close', () => rmSync(ownCache, { recursive: true, force: true }));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d));
  child.stderr!.on('data', (d: Buffer) => (stderr += d));
  const exited = new Promise<CliResult>((res, rej) => {
    child.on('error', rej);
    child.on('close', (code, signal) => res({ code, signal, stdout, stderr }));
  });
  // Bounded by progress (testing/progress.ts): its output, its --out folder and, below a scratch cwd, that folder.
  const out = args.indexOf('--out');
  const folders = [...(out >= 0 && args[out + 1] ? [resolve(cwd, args[out + 1])] : []), ...(cwd === ROOT ? [] : [cwd])];
  const done = whileProgressing(exited, childProgress(child, folders), { what: `toolformer ${args[0] ?? ''}`, child, lastWords: () => stderr });
  return { child, done };
}

export const runCli = (args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<CliResult> => spawnCli(args, cwd, env).done;

/** A CLI run with the child's peak resident set, MB (GNU time's maximum RSS of the node process). */
export interface MeasuredCliResult extends CliResult {
  peakRssMb: number;
}

/**
 * `toolformer <args…>` under `/usr/bin/time -f %M` (the child's peak RSS, as `npm run bench:bombs` measures it),
 * bounded by progress like runCli. Its own process group, killed whole if the wait gives up.
 */
export async function runCliMeasured(args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<MeasuredCliResult> {
  const scratch = mkdtempSync(join(tmpdir(), 'cli-rss-'));
  const report = join(scratch, 'time.txt');
  const { child, done } = spawnCli(args, cwd, env, { detached: true, wrapper: ['/usr/bin/time', '-f', '%M', '-o', report] });
  try {
    const result = await done;
    // time writes "Command exited with non-zero status N" before the number when the command fails.
    const kb = Number(readFileSync(report, 'utf8').trim().split('\n').at(-1));
    return { ...result, peakRssMb: kb / 1024 };
  } catch (error) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is gone already
    }
    throw error;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
