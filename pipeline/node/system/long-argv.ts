/**
 * Long command lines, moved out of argv before any ONNX Runtime session exists.
 *
 * onnxruntime-node 1.30 segfaults (exit 139, no message) when a session is created in a process whose
 * `/proc/self/cmdline` is about 30 KB or more — measured here: 20,193 bytes loads, 30,215 bytes crashes; a 30 KB
 * environment variable does not; `process.title` does not shorten the kernel's view of argv. A shell glob over
 * ~1,300 shards, or a long `score` text or `generate` prompt, reaches that. The fix is at the process boundary, so
 * it covers every command that loads a model: when the arguments pass `HANDOFF_BYTES`, the CLI re-executes itself as
 * `<node> [execArgv] <script> --argv-fd 3` with the arguments (a JSON array) readable on the child's file descriptor 3
 * and nowhere else: they are written to a file in a private temporary folder (mode 0700/0600), opened for reading, and
 * the file and folder are deleted before the child starts — the open descriptor it inherits is the only way to them.
 * The child reads them, restores `process.argv`, and runs as if given the original command line. Nothing is deleted
 * by the child, so no flag can make it delete a user's file (an earlier `--argv-file <path>` did: that flag is gone,
 * and typing it is an unknown-option error that touches nothing). stdio is inherited, SIGINT/SIGTERM/SIGHUP are
 * forwarded, the child's exit code (or signal) becomes the parent's, and a child whose parent dies (SIGKILL) gets
 * the SIGTERM it would have been forwarded (child-guard.mjs endWithParent). Children the CLI forks itself (--workers)
 * get short argv already.
 */
import { spawn } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endWithParent } from './child-guard.mjs';

/** Arguments (bytes of UTF-8 plus a NUL each) above which the CLI re-executes itself: well below the ~30 KB crash. */
export const HANDOFF_BYTES = 16 * 1024;
/** The flag the child is started with, followed by the descriptor that holds its arguments. */
export const ARGV_FD_FLAG = '--argv-fd';
/** The environment variable that gives the child its parent's pid (child-guard.mjs endWithParent). */
export const PARENT_ENV = 'TOOLFORMER_ARGV_PARENT';
/** The child's descriptor for the arguments: the first after stdin, stdout, stderr. */
const ARGV_FD = 3;

/** Bytes that `argv` adds to `/proc/self/cmdline`. */
export function cmdlineBytes(argv: readonly string[]): number {
  return argv.reduce((sum, a) => sum + Buffer.byteLength(a) + 1, 0);
}

/**
 * What the CLI should do with its process: `run` with these user arguments (after `node script`), or `handed-off`
 * (a child ran them; the promise settles with its exit status after this process has mirrored it).
 */
export type ArgvPlan = { kind: 'run'; args: string[] } | { kind: 'handed-off'; exit: Promise<never> };

/**
 * Decide from `process.argv`: a child started with `--argv-fd` reads its arguments back; a long command line is
 * handed to a child; anything else runs here.
 */
export function planArgv(argv: readonly string[] = process.argv, limit = HANDOFF_BYTES): ArgvPlan {
  const [, script, ...args] = argv;
  if (args[0] === ARGV_FD_FLAG && args.length === 2) {
    // The parent relays signals; if it is SIGKILLed (even before this line), this child ends as if it had relayed SIGTERM.
    endWithParent(Number(process.env[PARENT_ENV]));
    return { kind: 'run', args: readArgvFd(args[1]) };
  }
  if (cmdlineBytes(argv) + cmdlineBytes(process.execArgv) <= limit) return { kind: 'run', args };
  return { kind: 'handed-off', exit: handOff(script, args) };
}

/**
 * The arguments on descriptor `fd` (a decimal string): a regular file holding a JSON array of strings, read from
 * where it stands and then closed. Nothing is deleted: the parent removed the file before this process started.
 */
function readArgvFd(fdText: string): string[] {
  const fail = (why: string) => new Error(`${ARGV_FD_FLAG} ${fdText}: ${why} (this flag is for the CLI's own hand-off of a long command line, not for typing)`);
  const fd = /^\d+$/.test(fdText) ? Number(fdText) : NaN;
  if (!(fd > 2)) throw fail('not a file descriptor above 2');
  let args: unknown;
  try {
    if (!fstatSync(fd).isFile()) throw fail('not an open regular file');
    args = JSON.parse(readFileSync(fd, 'utf8'));
  } catch (e) {
    throw e instanceof Error && e.message.startsWith(ARGV_FD_FLAG) ? e : fail(`cannot read the handed-off arguments (${(e as Error).message})`);
  } finally {
    try {
      closeSync(fd);
    } catch {
      // EBADF: there was nothing open to close.
    }
  }
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw fail('not a JSON array of strings');
  return args;
}

/** The arguments as an open, already unlinked file: readable through the returned descriptor only. */
function unlinkedArgvFile(args: string[]): number {
  const dir = mkdtempSync(join(tmpdir(), 'toolformer-argv-'));
  try {
    const file = join(dir, 'argv.json');
    writeFileSync(file, JSON.stringify(args), { mode: 0o600 });
    return openSync(file, 'r');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function handOff(script: string, args: string[]): Promise<never> {
  const fd = unlinkedArgvFile(args);
  const child = spawn(process.execPath, [...process.execArgv, script, ARGV_FD_FLAG, String(ARGV_FD)], {
    stdio: ['inherit', 'inherit', 'inherit', fd],
    env: { ...process.env, [PARENT_ENV]: String(process.pid) },
  });
  closeSync(fd); // the child holds its own copy
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, forward(signal));
  return new Promise<never>(() => {
    child.on('error', (e) => {
      console.error(`toolformer: cannot re-run with the long command line handed over: ${e.message}`);
      process.exit(1);
    });
    child.on('exit', (code, signal) => {
      if (signal) {
        process.removeAllListeners(signal);
        process.kill(process.pid, signal);
      }
      process.exit(code ?? 1);
    });
  });
}
