import { accessSync, closeSync, constants, existsSync, fstatSync, fsyncSync, ftruncateSync, lstatSync, openSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join, parse, relative, resolve } from 'node:path';
import { readStateJson, realPlace, specialKind, virtualRootOf } from '../system/safe-paths.ts';
import { checkpointSchema, parseState } from './state-schemas.ts';

export { realPlace };

/**
 * The run's append-only output files with a durable checkpoint, so that a run killed at any moment
 * (kill -9 included) resumes without losing, duplicating or tearing a line.
 *
 * After each document: the lines are written, every file is fsync'ed, then `checkpoint.json` (items of the
 * input consumed, each file's byte length, the stats so far) is replaced atomically (write, fsync, rename).
 * On resume every file is truncated to the checkpoint's length — dropping whatever was written after it — and
 * the input is re-read, skipping the items already done.
 *
 * Runs are never mixed: a fresh run refuses a directory that already holds one (a checkpoint, stats or a non-empty
 * output file), and a resume refuses files shorter than its checkpoint says. `--resume` without a checkpoint (a run
 * killed before its first document) starts fresh.
 */
export const OUTPUT_FILES = ['train.jsonl', 'calls.jsonl', 'errors.jsonl'] as const;
export type OutputFile = (typeof OUTPUT_FILES)[number];

export interface Checkpoint<S> {
  /** Input items (documents and bad records) fully handled. */
  items: number;
  /** Documents handled (for --max-docs). */
  docs: number;
  bytes: Record<OutputFile, number>;
  stats: S;
  /** The identity of the last item handled (chunks.ts itemIdentity); absent in checkpoints before issue 46. */
  lastItem?: string;
}

export class RunFiles<S> {
  private readonly fds: Record<OutputFile, number>;
  private readonly bytes: Record<OutputFile, number>;
  private readonly pending: Record<OutputFile, string[]>;

  private constructor(
    readonly dir: string,
    fds: Record<OutputFile, number>,
    bytes: Record<OutputFile, number>,
  ) {
    this.fds = fds;
    this.bytes = bytes;
    this.pending = { 'train.jsonl': [], 'calls.jsonl': [], 'errors.jsonl': [] };
  }

  /**
   * Open for a fresh run (files emptied) or a resume (truncated to the checkpoint: `read`, when the caller has already
   * read and checked it, else readCheckpoint). Throws a one-line error naming the fix.
   */
  static open<S>(dir: string, resume: boolean, read?: Checkpoint<S> | null): { files: RunFiles<S>; checkpoint: Checkpoint<S> | null } {
    if (!resume) RunFiles.assertNoRun(dir);
    const checkpoint = resume ? (read !== undefined ? read : RunFiles.readCheckpoint<S>(dir)) : null;
    const fds = {} as Record<OutputFile, number>;
    const bytes = {} as Record<OutputFile, number>;
    for (const name of OUTPUT_FILES) {
      const kind = existsSync(join(dir, name)) ? specialKind(statSync(join(dir, name))) : null;
      if (kind) {
        for (const open of Object.values(fds)) closeSync(open);
        throw new Error(`cannot write ${join(dir, name)}: it is ${kind}, not a file: choose another --out`);
      }
      const fd = openSync(join(dir, name), existsSync(join(dir, name)) ? 'r+' : 'w+');
      const length = checkpoint?.bytes[name] ?? 0;
      // Growing a file would pad it with NUL bytes: the files are not the ones this checkpoint was written for.
      const size = fstatSync(fd).size;
      if (size < length) {
        for (const open of [fd, ...Object.values(fds)]) closeSync(open);
        throw new Error(`cannot resume ${dir}: ${name} is shorter than its checkpoint (${size} < ${length} bytes): start again with another --out`);
      }
      ftruncateSync(fd, length);
      fds[name] = fd;
      bytes[name] = length;
    }
    return { files: new RunFiles<S>(dir, fds, bytes), checkpoint };
  }

  /** The files of an earlier run in `dir`: a checkpoint, stats, or a non-empty output file. */
  static runFilesIn(dir: string): string[] {
    // Empty output files are what a run killed before its first document leaves: nothing to keep.
    const holds = (name: string) => existsSync(join(dir, name)) && (!name.endsWith('.jsonl') || statSync(join(dir, name)).size > 0);
    return ['checkpoint.json', 'stats.json', ...OUTPUT_FILES].filter(holds);
  }

  /** A fresh run must not overwrite (or be mixed into) an earlier one. */
  static assertNoRun(dir: string): void {
    const found = RunFiles.runFilesIn(dir);
    if (found.length > 0) {
      throw new Error(`${dir} already holds a run (${found.join(', ')}): pass --resume to continue it, --overwrite to replace it, or choose another --out`);
    }
  }

  /** `--overwrite`: remove an earlier run's files from `dir` (only those; nothing else in the folder is touched). */
  static removeRun(dir: string): void {
    for (const name of ['checkpoint.json', 'checkpoint.json.tmp', 'stats.json', 'config.json', ...OUTPUT_FILES]) {
      rmSync(join(dir, name), { force: true });
    }
  }

  static readCheckpoint<S>(dir: string): Checkpoint<S> | null {
    const path = join(dir, 'checkpoint.json');
    if (!existsSync(path) && !isLink(path)) return null;
    // A regular file under the state cap: a FIFO or a link to /dev/zero put in its place is one line, not a hang.
    const value = readStateJson(dir, 'checkpoint.json', `cannot resume ${dir}`, 'start again with another --out');
    const parsed = parseState(checkpointSchema, value, '');
    if ('problem' in parsed) throw new Error(`cannot resume ${dir}: checkpoint.json is damaged (${parsed.problem}): start again with another --out`);
    return parsed.value as Checkpoint<S>;
  }

  /**
   * Before anything is loaded: `dir` must be a directory this process can write run files into, or a path that can
   * be created where its nearest existing ancestor is writable. Nothing is created here (a run refused later, e.g.
   * for an unreachable --queue, leaves no trace). Refused with one line: a file, `/`, and the kernel's virtual file
   * systems (/proc, /sys, /dev), where writes block, fail late or change the system.
   */
  static assertUsableOutDir(dir: string): void {
    const abs = resolve(dir);
    if (abs === parse(abs).root) throw new Error(`--out ${dir} is the root directory: pass a directory for this run's files (e.g. --out out/run)`);
    const { existing } = realPlace(abs);
    const virtual = virtualRootOf(abs);
    if (virtual) throw new Error(`--out ${dir} is under ${virtual}, not a place for files: pass a directory on disk (e.g. --out out/run)`);
    if (existsSync(abs) && !statSync(abs).isDirectory()) throw new Error(`--out ${dir} is a file, not a directory: pass a directory for this run's files`);
    try {
      accessSync(existing, constants.W_OK); // EACCES, EROFS (a read-only file system)
      if (existing !== abs && !statSync(existing).isDirectory()) throw Object.assign(new Error('ENOTDIR'), { code: 'ENOTDIR' });
    } catch (error) {
      throw new Error(`--out ${dir} cannot hold this run's files (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): pass a writable directory`);
    }
  }

  /** Queue a JSON line; nothing reaches the file until `commit`. */
  push(file: OutputFile, record: unknown): void {
    this.pending[file].push(JSON.stringify(record) + '\n');
  }

  /** Queue whole JSON lines already serialised ("…\n" each, or ""), e.g. a chunk's result. */
  pushText(file: OutputFile, text: string): void {
    if (text !== '') this.pending[file].push(text);
  }

  /** Write queued lines, fsync, then atomically record the checkpoint. */
  commit(items: number, docs: number, stats: S, lastItem?: string): void {
    for (const name of OUTPUT_FILES) {
      if (this.pending[name].length === 0) continue;
      const buf = Buffer.from(this.pending[name].join(''), 'utf8');
      let off = 0;
      while (off < buf.length) off += writeSync(this.fds[name], buf, off, buf.length - off, this.bytes[name] + off);
      this.bytes[name] += buf.length;
      this.pending[name] = [];
      fsyncSync(this.fds[name]);
    }
    const checkpoint: Checkpoint<S> = { items, docs, bytes: { ...this.bytes }, stats, ...(lastItem === undefined ? {} : { lastItem }) };
    const tmp = join(this.dir, 'checkpoint.json.tmp');
    const fd = openSync(tmp, 'w');
    writeSync(fd, JSON.stringify(checkpoint));
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, join(this.dir, 'checkpoint.json'));
  }

  close(): void {
    for (const name of OUTPUT_FILES) closeSync(this.fds[name]);
  }

  /** Write a whole small file atomically (config.json, stats.json). */
  static writeJson(dir: string, name: string, value: unknown): void {
    const tmp = join(dir, name + '.tmp');
    writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n');
    renameSync(tmp, join(dir, name));
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

