/**
 * The step machinery of the long, resumable jobs (`npm run experiment`, `npm run rounds`): a step is done when its
 * output exists, runs `toolformer` in the foreground, and writes every file whole (write-then-rename), so a stop
 * anywhere loses at most the step in flight.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { ROOT } from './corpus-files.ts';
import { isAlive } from '../../io/dir-lock.ts';

export interface Step {
  name: string;
  done(): boolean;
  run(): Promise<void> | void;
  /** Whether what the step needs exists yet (absent: always); a runner skips a step that is not ready. */
  ready?(): boolean;
}

/** Runs `toolformer <args>` (this checkout's CLI, pipeline/node/bin.mjs) in the foreground of this step. */
export function toolformer(args: string[], tag = 'experiment'): void {
  const rel = args.map((a) => (a.startsWith(ROOT) ? relative(ROOT, a) : a));
  console.error(`[${tag}] $ toolformer ${rel.join(' ')}`);
  const r = spawnSync(process.execPath, [join(ROOT, 'pipeline/node/bin.mjs'), ...rel], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`toolformer ${rel[0]} exited ${r.status ?? r.signal}`);
}

export function readJson<T>(path: string): T | null {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : null;
}

export function writeJson(path: string, value: unknown): void {
  writeText(path, JSON.stringify(value, null, 2) + '\n');
}

/** Writes the file whole: to a temporary name of this process, then renamed over the path. */
export function writeText(path: string, text: string | Uint8Array): void {
  mkdirSync(join(path, '..'), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** How long a lock without its owner's pid (a process killed between making it and writing the pid) is waited for. */
const UNOWNED_LOCK_MS = 60_000;
const POLL_MS = 500;

/**
 * Runs fn holding an exclusive lock: a directory made atomically (mkdir fails when it exists), with the owner's pid
 * inside, removed after fn. Two lanes of the experiment that both rewrite the report take turns. A lock whose owner
 * is no longer alive (killed mid-report) is taken over; a live owner is waited for as long as it lives (it holds
 * the lock only while it writes a report, seconds).
 */
export function withLock<T>(lock: string, fn: () => T): T {
  mkdirSync(join(lock, '..'), { recursive: true });
  const pidFile = join(lock, 'pid');
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (lockIsStale(lock, pidFile)) rmSync(lock, { recursive: true, force: true });
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, POLL_MS);
  }
  try {
    writeFileSync(pidFile, String(process.pid));
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function lockIsStale(lock: string, pidFile: string): boolean {
  // A lock gone meanwhile has age 0: not stale, the next mkdir takes it.
  const unownedTooLong = () => Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > UNOWNED_LOCK_MS;
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return unownedTooLong();
    throw err;
  }
  if (!Number.isInteger(pid) || pid <= 0) return unownedTooLong();
  return !isAlive(pid);
}

export function copyInto(dir: string, files: string[]): void {
  mkdirSync(dir, { recursive: true });
  for (const f of files) {
    copyFileSync(f, join(dir, basename(f) + '.tmp'));
    renameSync(join(dir, basename(f) + '.tmp'), join(dir, basename(f)));
  }
}
