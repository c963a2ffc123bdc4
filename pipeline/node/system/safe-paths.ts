/**
 * The one set of checks for every path a command reads or writes (annotate, export, generate, eval, finetune, and
 * a run's own state files), so that no path can block, never end or reach the kernel's virtual file systems:
 *
 *   inputs   must be regular files: a FIFO (opening it waits for a writer), a socket, a device (/dev/zero never
 *            ends) is refused in one line naming what it is. Opened with O_NONBLOCK and checked on the open
 *            descriptor (fstat), so a path swapped for a FIFO after the check cannot block either. Files are read
 *            by pipeline/io/bounded-read.ts (whole under a per-kind cap, or as capped lines; re-exported here).
 *   outputs  never under /proc, /sys or /dev (the nearest existing ancestor's real path is what counts, so a link
 *            into /proc is caught) and never an existing FIFO, socket or device: refused in one line.
 *   state    config.json, checkpoint.json, stats.json of a run: regular files under `MAX_STATE_BYTES`, parsed as JSON.
 *
 * The corpus walker (corpus-files.ts) applies the same rule to corpus inputs, skipping (named and counted) instead
 * of refusing, since a run over many files goes on past one bad path.
 */
import { type Stats, existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { READ_CAPS, readBoundedFile, specialKind } from '../../io/bounded-read.ts';

export { readBoundedFile, specialKind };

/** Kernel file systems where writes block, fail late or change the system. */
const VIRTUAL_ROOTS = ['/proc', '/sys', '/dev'];
/** A run's config.json, checkpoint.json, stats.json are written by us and small; more than this is not ours. */
export const MAX_STATE_BYTES = READ_CAPS.state;

/**
 * Where `path` is or would be: its nearest existing ancestor with links resolved (`existing`, as given), and the
 * rest of the path below it (`real`). Two paths with the same `real` name the same place, links or not.
 */
export function realPlace(path: string): { real: string; existing: string } {
  const abs = resolve(path);
  let existing = abs;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  return { real: join(realpathSync(existing), relative(existing, abs)), existing };
}

/** The virtual file system root `path` is under, or null. */
export function virtualRootOf(path: string): string | null {
  let real: string;
  try {
    real = realPlace(path).real;
  } catch {
    real = resolve(path); // a link loop above it: what it names is unknowable; a write there fails on its own
  }
  return VIRTUAL_ROOTS.find((root) => real === root || real.startsWith(`${root}/`)) ?? null;
}

/**
 * An output path (a file or a folder a command writes): not under /proc, /sys, /dev, and not an existing FIFO,
 * socket or device. `flag` names it in the message ("--out").
 */
export function assertOutputPath(path: string, flag: string): void {
  const root = virtualRootOf(path);
  if (root) throw new Error(`${flag} ${path} is under ${root}, not a place for files: pass a path on disk`);
  let st: Stats;
  try {
    st = statSync(path);
  } catch {
    return; // to be created
  }
  const kind = specialKind(st);
  if (kind) throw new Error(`${flag} ${path} is ${kind}, not a file: writing to it could block or never end; pass a path on disk`);
}

/**
 * The paths of one command, checked before anything is loaded: every input a regular file (or a directory where
 * `directories` says so), every output a place on disk. Absent options are skipped.
 */
export function checkCommandPaths(paths: { inputs?: [string, string | string[] | undefined][]; outputs?: [string, string | undefined][]; directories?: boolean }): void {
  for (const [flag, value] of paths.inputs ?? []) {
    for (const path of value === undefined ? [] : Array.isArray(value) ? value : [value]) assertInputFile(path, flag, paths.directories);
  }
  for (const [flag, path] of paths.outputs ?? []) if (path !== undefined) assertOutputPath(path, flag);
}

/**
 * An input file a command reads whole or streams (not a corpus: see corpus-files.ts): it must exist and be a regular
 * file (or a directory, with `directory`). `flag` names it in the message ("--input").
 */
export function assertInputFile(path: string, flag: string, directory = false): void {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `${flag} ${path}: no such file` : `${flag} ${path} cannot be read (${code ?? (e as Error).message})`);
  }
  if (st.isDirectory()) {
    if (directory) return;
    throw new Error(`${flag} ${path} is a directory, not a file`);
  }
  const kind = specialKind(st) ?? (st.isFile() ? null : 'not a regular file');
  if (kind) throw new Error(`${flag} ${path} is ${kind}, not a regular file: reading it could block or never end`);
}

/**
 * A run's state file (config.json, checkpoint.json, stats.json) parsed, or one line: `<context>: <name> is …: <fix>`
 * (context "cannot resume out/run", fix "start again with another --out").
 */
export function readStateJson(dir: string, name: string, context: string, fix: string): unknown {
  let bytes: Buffer;
  try {
    bytes = readBoundedFile(join(dir, name), name, MAX_STATE_BYTES);
  } catch (error) {
    throw new Error(`${context}: ${(error as Error).message}: ${fix}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'), refuseProtoKeys);
  } catch (error) {
    const damaged = error instanceof ProtoKeyError ? `is damaged (${error.message})` : `is not valid JSON (${(error as Error).message})`;
    throw new Error(`${context}: ${name} ${damaged}: ${fix}`);
  }
  return value;
}

class ProtoKeyError extends Error {}

/**
 * JSON.parse's reviver for state files: a key `__proto__` is refused. JSON.parse makes it an own property, but the
 * first copy or assignment by key (`stats.tools[name] = …`) sets an object's prototype instead, so the checks pass
 * and the run crashes late, after rewriting its files.
 */
function refuseProtoKeys(key: string, value: unknown): unknown {
  if (key === '__proto__') throw new ProtoKeyError('a key named "__proto__"');
  return value;
}
