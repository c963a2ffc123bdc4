/**
 * Child-process tests bounded by progress, not by the clock (issue 33 §1), as the browser tests are
 * (web/e2e/progress-wait.ts): a wait on a child (the CLI, a worker, a server) fails when the child has shown no
 * progress — no new byte on its stdout or stderr, no file added, grown or shrunk in the folders it writes, no CPU time
 * spent (Linux: /proc; a software WebGPU adapter computes for minutes with `--quiet` and writes nothing) — for
 * STALL_MS, or once it has run TEST_CAP_MS in all. A loaded machine makes a child slower, not silent, so it no longer
 * fails a test; a hung child still does, STALL_MS after its last sign of life, and is killed. Both limits are stated
 * in README.md (Tests); a test that waits this way takes TEST_CAP_MS as its vitest timeout.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A wait fails when the child has shown no progress for this long (ms). */
export const STALL_MS = 180_000;
/** The most one child-process test (or its set-up) may take in all (ms): its vitest timeout. */
export const TEST_CAP_MS = 1_800_000;
/** How often progress is looked at (ms). */
const LOOK_MS = 1_000;

/** The most files folderSizes lists: a watched folder may be `/` (a test of `--out /`), looked at every second. */
const MAX_LISTED = 10_000;

/**
 * Names and sizes of the files under `dir` (recursive, the first MAX_LISTED found), as one string: changes when a
 * file is added, grows or shrinks.
 */
export function folderSizes(dir: string): string {
  const parts: string[] = [];
  const walk = (sub: string) => {
    let entries;
    try {
      entries = readdirSync(join(dir, sub), { withFileTypes: true });
    } catch {
      return; // not there yet, or removed while looked at
    }
    for (const e of entries) {
      if (parts.length >= MAX_LISTED) return;
      const rel = join(sub, e.name);
      if (e.isDirectory()) walk(rel);
      else {
        try {
          parts.push(`${rel}:${statSync(join(dir, rel)).size}`);
        } catch {
          // renamed away between the listing and the stat (an atomic write): the next look sees the new name
        }
      }
    }
  };
  walk('');
  return parts.sort().join('\n');
}

/**
 * The CPU time process `pid` has used, in clock ticks (utime + stime, fields 14 and 15 of /proc/<pid>/stat), as a
 * string; '' where there is no /proc or the process is gone. A child that computes is alive however slow the machine;
 * a child that waits on something that never comes uses none.
 */
export function cpuTicks(pid: number | undefined): string {
  if (pid === undefined) return '';
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // after "pid (comm) ": field 3 onwards
    return String(Number(fields[11]) + Number(fields[12]));
  } catch {
    return '';
  }
}

/** What a child has shown so far: bytes on its stdout and stderr, its CPU time, and `folders`' files with their sizes. */
export function childProgress(child: ChildProcess, folders: readonly string[] = []): () => string {
  let bytes = 0;
  child.stdout?.on('data', (d: Buffer) => (bytes += d.length));
  child.stderr?.on('data', (d: Buffer) => (bytes += d.length));
  return () => `${bytes}\n${cpuTicks(child.pid)}\n${folders.map(folderSizes).join('\n')}`;
}

/**
 * `done`, unless `progress()` stays the same for `stallMs` or `capMs` passes first: then `child` (if given) is
 * killed and the promise rejects, naming `what`, how long it was still, and `lastWords()` (e.g. the child's stderr tail).
 */
export function whileProgressing<T>(
  done: Promise<T>,
  progress: () => string,
  {
    what,
    child,
    lastWords = () => '',
    stallMs = STALL_MS,
    capMs = TEST_CAP_MS,
  }: { what: string; child?: ChildProcess; lastWords?: () => string; stallMs?: number; capMs?: number },
): Promise<T> {
  const start = Date.now();
  let last = progress();
  let movedAt = start;
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, fail) => {
    timer = setInterval(() => {
      const now = progress();
      if (now !== last) {
        last = now;
        movedAt = Date.now();
      }
      const still = Date.now() - movedAt;
      const reason =
        still > stallMs ? `made no progress for ${Math.round(still / 1000)} s` : Date.now() - start > capMs ? `not done after ${capMs / 1000} s (still moving)` : null;
      if (!reason) return;
      clearInterval(timer);
      child?.kill('SIGKILL');
      const words = lastWords().trim();
      fail(new Error(`${what} ${reason}${words ? `; it said last: ${words.slice(-600)}` : ''}`));
    }, LOOK_MS);
    timer.unref();
  });
  return Promise.race([done, stuck]).finally(() => clearInterval(timer));
}

/**
 * Resolves once `check()` holds (looked at every 20 ms; it may be async, e.g. a Redis read); rejects when
 * `progress()` has not changed for `stallMs`.
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  progress: () => string,
  { what, stallMs = STALL_MS }: { what: string; stallMs?: number },
): Promise<void> {
  let last = progress();
  let movedAt = Date.now();
  while (!(await check())) {
    const now = progress();
    if (now !== last) [last, movedAt] = [now, Date.now()];
    if (Date.now() - movedAt > stallMs) throw new Error(`no progress for ${stallMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
