import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, renameSync, writeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The run's append-only output files with a durable checkpoint, so that a run killed at any moment
 * (kill -9 included) resumes without losing, duplicating or tearing a line.
 *
 * After each document: the lines are written, every file is fsync'ed, then `checkpoint.json` (items of the
 * input consumed, each file's byte length, the stats so far) is replaced atomically (write, fsync, rename).
 * On resume every file is truncated to the checkpoint's length — dropping whatever was written after it — and
 * the input is re-read, skipping the items already done.
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

  /** Open for a fresh run (files emptied) or a resume (truncated to the checkpoint). */
  static open<S>(dir: string, resume: boolean): { files: RunFiles<S>; checkpoint: Checkpoint<S> | null } {
    const checkpoint = resume ? RunFiles.readCheckpoint<S>(dir) : null;
    const fds = {} as Record<OutputFile, number>;
    const bytes = {} as Record<OutputFile, number>;
    for (const name of OUTPUT_FILES) {
      const fd = openSync(join(dir, name), existsSync(join(dir, name)) ? 'r+' : 'w+');
      const length = checkpoint?.bytes[name] ?? 0;
      ftruncateSync(fd, length);
      fds[name] = fd;
      bytes[name] = length;
    }
    return { files: new RunFiles<S>(dir, fds, bytes), checkpoint };
  }

  static readCheckpoint<S>(dir: string): Checkpoint<S> | null {
    const path = join(dir, 'checkpoint.json');
    if (!existsSync(path)) return null;
    return JSON.parse(readFileSync(path, 'utf8')) as Checkpoint<S>;
  }

  /** Queue a JSON line; nothing reaches the file until `commit`. */
  push(file: OutputFile, record: unknown): void {
    this.pending[file].push(JSON.stringify(record) + '\n');
  }

  /** Write queued lines, fsync, then atomically record the checkpoint. */
  commit(items: number, docs: number, stats: S): void {
    for (const name of OUTPUT_FILES) {
      if (this.pending[name].length === 0) continue;
      const buf = Buffer.from(this.pending[name].join(''), 'utf8');
      let off = 0;
      while (off < buf.length) off += writeSync(this.fds[name], buf, off, buf.length - off, this.bytes[name] + off);
      this.bytes[name] += buf.length;
      this.pending[name] = [];
      fsyncSync(this.fds[name]);
    }
    const checkpoint: Checkpoint<S> = { items, docs, bytes: { ...this.bytes }, stats };
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
