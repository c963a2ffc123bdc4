/**
 * Where the chunks of a sharded or queued run live: `<out>/chunks/<index>.json`, one file per chunk, each written
 * whole (write a temporary file, then rename), so a file is either absent or complete and writing it twice is
 * harmless. `<out>/manifest.json` says how many chunks the run has and which run they belong to. `merge` concatenates
 * the chunks in order into the same train/calls/errors.jsonl and stats.json a single process writes.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { AnnotateConfig } from '../../core/config.ts';
import { type RunStats, emptyStats, mergeStats, withCurrentFields } from '../../core/stats.ts';
import { withSkippedInputs } from '../corpus/read-corpus.ts';
import { statsProblem } from './resume-checks.ts';
import { OUTPUT_FILES, RunFiles } from './run-files.ts';
import type { ChunkStore } from './run-loop.ts';
import { MAX_STATE_BYTES, readBoundedFile } from '../system/safe-paths.ts';
import type { ChunkResult } from './chunks.ts';

export interface Manifest {
  /** digestOf(RunIdentity) plus the inputs' digest: chunk files of another run are never mixed in. */
  run: string;
  chunks: number;
  chunkItems: number;
}

export interface ChunkFile extends ChunkResult {
  run: string;
}

/**
 * The most a chunk file may hold: its train/calls/errors text and stats for `chunkItems` inputs (8 by default, each
 * at most 4 MiB as read: a few MB in practice). Far above any real chunk, below V8's largest string (~512 MiB); a
 * file past it (or a FIFO, a device) is a damaged chunk, not read.
 */
export const MAX_CHUNK_BYTES = 256 << 20;

const chunkPath = (out: string, index: number) => join(out, 'chunks', `${String(index).padStart(6, '0')}.json`);

function writeWhole(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export function writeChunk(out: string, run: string, result: ChunkResult): void {
  mkdirSync(join(out, 'chunks'), { recursive: true });
  writeWhole(chunkPath(out, result.index), JSON.stringify({ run, ...result }));
}

/** What is wrong with a parsed chunk file, or null: the run, the three files' text and the stats. */
function chunkProblem(chunk: unknown): string | null {
  if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk)) return 'not an object';
  const c = chunk as Record<string, unknown>;
  for (const key of ['run', 'train', 'calls', 'errors'] as const) if (typeof c[key] !== 'string') return `"${key}" is not a string`;
  if (typeof c.stats !== 'object' || c.stats === null) return 'no "stats"';
  return null;
}

/** The chunk's file when it exists and belongs to `run`; null otherwise. */
export function readChunk(out: string, run: string, index: number): ChunkFile | null {
  const path = chunkPath(out, index);
  if (!existsSync(path)) return null;
  let chunk: ChunkFile;
  try {
    chunk = JSON.parse(readBoundedFile(path, 'the file', MAX_CHUNK_BYTES).toString('utf8'));
  } catch (error) {
    throw new Error(`${path} is damaged (${(error as Error).message}): delete it and run the shard or worker that holds chunk ${index} again`);
  }
  const problem = chunkProblem(chunk);
  if (problem) throw new Error(`${path} is damaged (${problem}): delete it and run the shard or worker that holds chunk ${index} again`);
  if (chunk.run !== run) throw new Error(`${path} belongs to another run (settings, model or inputs differ): use another --out`);
  return chunk;
}

export const hasChunk = (out: string, run: string, index: number) => readChunk(out, run, index) !== null;

export function writeManifest(out: string, manifest: Manifest): void {
  writeWhole(join(out, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
}

/** Assemble the run's files from its chunks; a missing chunk is a one-line error naming it. */
export function mergeRun(out: string): RunStats {
  const read = (name: string, hint: string) => {
    try {
      return JSON.parse(readBoundedFile(join(out, name), name, MAX_STATE_BYTES).toString('utf8')); // a FIFO or /dev/zero: refused
    } catch {
      throw new Error(`cannot merge ${out}: no readable ${name} (${hint})`);
    }
  };
  const manifest = read('manifest.json', 'written when a shard or queued run has read all its input') as Manifest;
  const { config, inputs } = read('config.json', 'written when the run starts') as { config: AnnotateConfig; inputs: string[] };
  const missing: number[] = [];
  for (let i = 0; i < manifest.chunks; i++) if (!existsSync(chunkPath(out, i))) missing.push(i);
  if (missing.length > 0) {
    const list = missing.length > 8 ? `${missing.slice(0, 8).join(', ')}, … (${missing.length})` : missing.join(', ');
    throw new Error(`cannot merge ${out}: chunks ${list} of ${manifest.chunks} are missing: run the shards or workers that hold them`);
  }
  const stats = emptyStats(config.tools);
  const tmp = (f: string) => join(out, `${f}.tmp`);
  const fds = Object.fromEntries(OUTPUT_FILES.map((f) => [f, openSync(tmp(f), 'w')]));
  try {
    for (let i = 0; i < manifest.chunks; i++) {
      const chunk = readChunk(out, manifest.run, i)!;
      const chunkStats = withCurrentFields(chunk.stats) as RunStats;
      const problem = statsProblem(chunkStats, config.tools);
      if (problem) throw new Error(`${chunkPath(out, i)} is damaged (${problem}): delete it and run the shard or worker that holds chunk ${i} again`);
      for (const [file, text] of [['train.jsonl', chunk.train], ['calls.jsonl', chunk.calls], ['errors.jsonl', chunk.errors]] as const) {
        if (text) writeSync(fds[file], text);
      }
      mergeStats(stats, chunkStats);
    }
    for (const fd of Object.values(fds)) fsyncSync(fd);
  } catch (error) {
    // A chunk that cannot be read: the run's files stay as they were, and no half-merged *.tmp is left behind.
    for (const f of OUTPUT_FILES) rmSync(tmp(f), { force: true });
    throw new Error(`cannot merge ${out}: ${(error as Error).message}`);
  } finally {
    for (const fd of Object.values(fds)) closeSync(fd);
  }
  for (const f of OUTPUT_FILES) renameSync(tmp(f), join(out, f));
  RunFiles.writeJson(out, 'stats.json', withSkippedInputs(stats, inputs ?? []));
  return stats;
}

/**
 * The chunk files as the loop's store (run-loop.ts), for a shard or a queued run: each result is written as its own
 * file; `reuse` (a shard always, a queued run on --resume) skips the chunks already written; at the end the manifest,
 * and with `merge` the run's files (a queued run; shards are merged by `toolformer merge`).
 */
export function chunkDirStore(out: string, run: string, options: { tools: readonly string[]; chunkItems: number; reuse: boolean; merge: boolean }): ChunkStore {
  return {
    start: { items: 0, docs: 0, stats: emptyStats(options.tools) },
    stored: (index) => (options.reuse ? readChunk(out, run, index) : null),
    put: (result) => writeChunk(out, run, result),
    finish(totals, chunks) {
      writeManifest(out, { run, chunks, chunkItems: options.chunkItems });
      return options.merge ? mergeRun(out) : totals.stats;
    },
    close: () => {},
  };
}

export function mergeCommand(dir: string): void {
  const stats = mergeRun(dir);
  console.log(`merged ${dir}: ${stats.docsRead} documents, ${stats.badRecords} bad records, ${stats.docsWithKeptCall} with a kept call → {train,calls,errors}.jsonl, stats.json`);
}
