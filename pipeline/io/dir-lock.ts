/**
 * One writer per folder: a lock file (`<dir>/<name>`, created with O_EXCL) that says which process holds the folder,
 * so that two runs given the same --out (or two trainers the same --work) cannot interleave their lines and
 * checkpoints. The second is refused in one line naming the first; nothing of the first's is touched.
 *
 *   <dir>/run.lock   {"pid": 4242, "host": "box", "since": "2026-12-05T02:30:00.000Z", "command": "toolformer annotate …"}
 *
 * A lock whose process is gone (killed, `kill -9`, the machine rebooted) is taken over by the next run on the same
 * host: its pid is not alive there (process.kill(pid, 0) → ESRCH). On another host the pid cannot be checked (a folder
 * on a shared file system), so the message says to remove the file if that process is gone. Released when the work
 * ends, and on process exit. The lock is a plain file in the folder, so it needs no library and no server; the one
 * window it leaves is two processes taking over the same stale lock in the same instant.
 */
import { closeSync, mkdirSync, openSync, readdirSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { readBoundedFile } from './bounded-read.ts';

/** A lock file is one short JSON line; more than this is not one of ours. */
const MAX_LOCK_BYTES = 64 << 10;

export interface LockOwner {
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  since: string;
  /** The holder's command line (argv after node), at most 200 characters. */
  command: string;
}

export interface DirLock {
  readonly path: string;
  /** Removes the lock (and the folder, when taking the lock made it and it is still empty). Idempotent. */
  release(): void;
}

const BEING_WRITTEN = 'its lock file is being written';

/**
 * The folder is held by a live process (or one on another host), or its lock file cannot be read as a lock: `owner`
 * is null then and `problem` says what the file is instead (a FIFO, too big, not JSON, pid 0; empty: being written).
 */
export class DirInUseError extends Error {
  constructor(readonly dir: string, readonly lockPath: string, readonly owner: LockOwner | null, what: string, problem = BEING_WRITTEN) {
    const who = owner ? `pid ${owner.pid} on ${owner.host} since ${owner.since}: ${owner.command}` : problem;
    super(owner || problem === BEING_WRITTEN
      ? `${dir} is in use by another ${what} (${who}). Wait for it to end or stop it; if that process is gone, remove ${lockPath}`
      : `${dir} has a lock that names no live ${what} (${problem}): if no other ${what} uses the folder, remove ${lockPath}`);
  }
}

/** Whether a process with this pid lives on this host (signal 0 checks without sending; EPERM: alive, another user's). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The lock's holder, or why the file names none (through io/bounded-read.ts: a FIFO or a 1 GiB file is not read). */
function readLock(path: string): { owner: LockOwner } | { owner: null; problem: string } {
  let text: string;
  try {
    text = readBoundedFile(path, 'its lock file', MAX_LOCK_BYTES).toString('utf8');
  } catch (e) {
    if ((e as Error).message === 'its lock file is missing') return { owner: null, problem: 'its lock file was removed meanwhile' };
    return { owner: null, problem: (e as Error).message };
  }
  // Empty: its owner is writing it right now (openSync 'wx', then one short write).
  if (text === '') return { owner: null, problem: BEING_WRITTEN };
  let o: Partial<LockOwner>;
  try {
    o = JSON.parse(text) as Partial<LockOwner>;
  } catch {
    return { owner: null, problem: 'its lock file is not JSON: not a lock this project wrote' };
  }
  if (typeof o !== 'object' || o === null) return { owner: null, problem: 'its lock file is not a JSON object: not a lock this project wrote' };
  if (!Number.isInteger(o.pid) || (o.pid as number) <= 0) return { owner: null, problem: `its lock file names no process (pid ${JSON.stringify(o.pid)?.slice(0, 20)})` };
  if (typeof o.host !== 'string') return { owner: null, problem: 'its lock file names no host' };
  return { owner: o as LockOwner };
}

const readOwner = (path: string): LockOwner | null => readLock(path).owner;

/**
 * Takes `<dir>/<name>` for this process, making `dir` if needed; throws DirInUseError when a live process holds it.
 * `what` names the holder in the message ("annotate run", "training run").
 */
export function lockDirectory(dir: string, what: string, name = 'run.lock'): DirLock {
  const made = mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  const owner: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString(), command: process.argv.slice(1).join(' ').slice(0, 200) };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o644);
      try {
        writeSync(fd, JSON.stringify(owner) + '\n');
      } finally {
        closeSync(fd);
      }
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const lock = readLock(path);
    const holder = lock.owner;
    // A stale lock is taken over once; a second EEXIST means another process took it first.
    const stale = holder !== null && holder.host === owner.host && !isAlive(holder.pid);
    if (!stale || attempt > 0) {
      if (made) removeIfEmpty(resolve(made), resolve(dir));
      throw new DirInUseError(dir, path, holder, what, 'problem' in lock ? lock.problem : undefined);
    }
    rmSync(path, { force: true });
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    // Only our own lock: never one another process took over meanwhile.
    if (readOwner(path)?.pid === process.pid) rmSync(path, { force: true });
    if (made) removeIfEmpty(resolve(made), resolve(dir));
  };
  process.on('exit', release);
  return { path, release };
}

/** `fn` while holding `<dir>/<name>` (lockDirectory), released however fn ends. */
export async function whileLocked<T>(dir: string, what: string, name: string, fn: () => Promise<T>): Promise<T> {
  const lock = lockDirectory(dir, what, name);
  try {
    return await fn();
  } finally {
    lock.release();
  }
}

/** Removes `dir` and its parents up to `top` (the first folder mkdir made) while they are empty. */
function removeIfEmpty(top: string, dir: string): void {
  for (let d = dir; ; d = resolve(d, '..')) {
    try {
      if (readdirSync(d).length > 0) return;
      rmdirSync(d);
    } catch {
      return;
    }
    if (d === top) return;
  }
}
