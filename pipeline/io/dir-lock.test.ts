/**
 * dir-lock.ts: one writer per folder. A live holder (this process, or a pid on another host) refuses the second
 * taker with the holder named; a dead holder on this host is taken over; release removes only its own lock and the
 * folders taking the lock made.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirInUseError, lockDirectory } from './dir-lock.ts';

const scratch = () => mkdtempSync(join(tmpdir(), 'dir-lock-'));
/** A pid that was alive a moment ago and is not now (a finished child). */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid;

describe('lockDirectory', () => {
  it('refuses a second taker while held, naming the holder and the lock file; free again after release', () => {
    const dir = scratch();
    const lock = lockDirectory(dir, 'annotate run');
    const owner = JSON.parse(readFileSync(lock.path, 'utf8'));
    expect(owner).toMatchObject({ pid: process.pid, host: hostname() });
    let error: unknown;
    try {
      lockDirectory(dir, 'annotate run');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DirInUseError);
    expect((error as Error).message).toContain(`${dir} is in use by another annotate run (pid ${process.pid} on ${hostname()}`);
    expect((error as Error).message).toContain(`if that process is gone, remove ${join(dir, 'run.lock')}`);
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    lock.release(); // idempotent
    lockDirectory(dir, 'annotate run').release();
  });

  it('takes over a lock whose process is gone on this host, but not one from another host', () => {
    const dir = scratch();
    const path = join(dir, 'run.lock');
    writeFileSync(path, JSON.stringify({ pid: deadPid(), host: hostname(), since: '2026-01-01T00:00:00.000Z', command: 'killed' }));
    const lock = lockDirectory(dir, 'training run');
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    lock.release();
    writeFileSync(path, JSON.stringify({ pid: deadPid(), host: `${hostname()}-elsewhere`, since: '2026-01-01T00:00:00.000Z', command: 'x' }));
    expect(() => lockDirectory(dir, 'training run')).toThrow(/on .*-elsewhere .*remove /);
    expect(JSON.parse(readFileSync(path, 'utf8')).host).toBe(`${hostname()}-elsewhere`);
  });

  it('release leaves a lock another process took meanwhile, and removes only the empty folders it made', () => {
    const root = scratch();
    const dir = join(root, 'a', 'b');
    const lock = lockDirectory(dir, 'annotate run');
    writeFileSync(lock.path, JSON.stringify({ pid: process.pid + 1, host: hostname(), since: 'now', command: 'other' }));
    lock.release();
    expect(existsSync(lock.path)).toBe(true);
    const made = join(root, 'c', 'd');
    lockDirectory(made, 'annotate run').release();
    expect(existsSync(join(root, 'c'))).toBe(false);
    expect(existsSync(root)).toBe(true);
    const kept = join(root, 'e');
    const held = lockDirectory(kept, 'annotate run');
    writeFileSync(join(kept, 'train.jsonl'), '');
    held.release();
    expect(existsSync(join(kept, 'train.jsonl'))).toBe(true);
  });
});

/** Issue 46: a lock file that is not a lock is named for what it is, in one line, and nothing waits or loads it whole. */
describe('a lock file that is not a lock', () => {
  it.each([
    ['a FIFO', (p: string) => spawnSync('mkfifo', [p]), /has a lock that names no live annotate run \(its lock file is a FIFO, not a regular file: not read\)/],
    ['a folder', (p: string) => mkdirSync(p), /\(its lock file is a directory, not a regular file: not read\)/],
    ['2 MiB of JSON text', (p: string) => writeFileSync(p, `{"pid":1,"host":"${'x'.repeat(2 << 20)}"}\n`), /\(its lock file is \d+ bytes, over the 65536-byte cap: not read\)/],
    ['not JSON', (p: string) => writeFileSync(p, 'garbage\n'), /\(its lock file is not JSON: not a lock this project wrote\)/],
    ['pid 0', (p: string) => writeFileSync(p, JSON.stringify({ pid: 0, host: hostname(), since: 'now', command: 'x' })), /\(its lock file names no process \(pid 0\)\)/],
  ])('%s: refused, naming what the file is and the path to remove', (_name, make, message) => {
    const dir = scratch();
    const path = join(dir, 'run.lock');
    make(path);
    expect(() => lockDirectory(dir, 'annotate run')).toThrow(message);
    expect(() => lockDirectory(dir, 'annotate run')).toThrow(`if no other annotate run uses the folder, remove ${path}`);
  });

  it('an empty lock file is being written by its owner', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'run.lock'), '');
    expect(() => lockDirectory(dir, 'annotate run')).toThrow(/is in use by another annotate run \(its lock file is being written\)/);
  });
});
