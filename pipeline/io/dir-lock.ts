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
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

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

/** The folder is held by a live process (or one on another host). */
export class DirInUseError extends Error {
  constructor(readonly dir: string, readonly lockPath: string, readonly owner: LockOwner | null, what: string) {
    const who = owner ? `pid ${owner.pid} on ${owner.host} since ${owner.since}: ${owner.command}` : 'its lock file is being written';
    super(`${dir} is in use by another ${what} (${who}). Wait for it to end or stop it; if that process is gone, remove ${lockPath}`);
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

function readOwner(path: string): LockOwner | null {
  try {
    const o = JSON.parse(readFileSync(path, 'utf8')) as LockOwner;
    return Number.isInteger(o.pid) && o.pid > 0 && typeof o.host === 'string' ? o : null;
  } catch {
    return null; // gone meanwhile, or half-written by its owner right now
  }
}

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
    const holder = readOwner(path);
    // A stale lock is taken over once; a second EEXIST means another process took it first.
    const stale = holder !== null && holder.host === owner.host && !isAlive(holder.pid);
    if (!stale || attempt > 0) {
      if (made) removeIfEmpty(resolve(made), resolve(dir));
      throw new DirInUseError(dir, path, holder, what);
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
