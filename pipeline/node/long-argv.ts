/**
 * Long command lines, moved out of argv before any ONNX Runtime session exists.
 *
 * onnxruntime-node 1.30 segfaults (exit 139, no message) when a session is created in a process whose
 * `/proc/self/cmdline` is about 30 KB or more — measured here: 20,193 bytes loads, 30,215 bytes crashes; a 30 KB
 * environment variable does not; `process.title` does not shorten the kernel's view of argv. A shell glob over
 * ~1,300 shards, or a long `score` text or `generate` prompt, reaches that. The fix is at the process boundary, so
 * it covers every command that loads a model: when the arguments pass `HANDOFF_BYTES`, the CLI writes them to a
 * private temporary file (JSON array, mode 0600) and re-executes itself as `<node> [execArgv] <script>
 * --argv-file <tmp>`; the child reads and deletes the file, restores `process.argv`, and runs as if given the
 * original command line. stdio is inherited, SIGINT/SIGTERM/SIGHUP are forwarded, and the child's exit code (or
 * signal) becomes the parent's. Children the CLI forks itself (--workers) get short argv already.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Arguments (bytes of UTF-8 plus a NUL each) above which the CLI re-executes itself: well below the ~30 KB crash. */
export const HANDOFF_BYTES = 16 * 1024;
/** The flag the child is started with; never typed by a user (the file it names is deleted on read). */
export const ARGV_FILE_FLAG = '--argv-file';

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
 * Decide from `process.argv`: a child started with `--argv-file` reads its arguments back; a long command line is
 * handed to a child; anything else runs here.
 */
export function planArgv(argv: readonly string[] = process.argv, limit = HANDOFF_BYTES): ArgvPlan {
  const [, script, ...args] = argv;
  if (args[0] === ARGV_FILE_FLAG && args.length === 2) return { kind: 'run', args: readArgvFile(args[1]) };
  if (cmdlineBytes(argv) + cmdlineBytes(process.execArgv) <= limit) return { kind: 'run', args };
  return { kind: 'handed-off', exit: handOff(script, args) };
}

function readArgvFile(path: string): string[] {
  let args: unknown;
  try {
    args = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`${ARGV_FILE_FLAG} ${path}: cannot read the handed-off arguments (${(e as Error).message})`);
  } finally {
    rmSync(path, { force: true });
  }
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new Error(`${ARGV_FILE_FLAG} ${path}: not a JSON array of strings`);
  return args;
}

function handOff(script: string, args: string[]): Promise<never> {
  const dir = mkdtempSync(join(tmpdir(), 'toolformer-argv-'));
  const file = join(dir, 'argv.json');
  writeFileSync(file, JSON.stringify(args), { mode: 0o600 });
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const child = spawn(process.execPath, [...process.execArgv, script, ARGV_FILE_FLAG, file], { stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, forward(signal));
  return new Promise<never>(() => {
    child.on('error', (e) => {
      cleanup();
      console.error(`toolformer: cannot re-run with the long command line moved to a file: ${e.message}`);
      process.exit(1);
    });
    child.on('exit', (code, signal) => {
      cleanup(); // the child deleted the file; the folder goes too, also when the child died before reading it
      if (signal) {
        process.removeAllListeners(signal);
        process.kill(process.pid, signal);
      }
      process.exit(code ?? 1);
    });
  });
}
