/**
 * What `--resume` checks before a byte of the run folder changes: the checkpoint against the files it describes
 * (each output file at least as long as recorded, and the recorded length ending a line), the shape of the stats it
 * carries, and the settings of the run it continues (config.json). A refusal is one line; nothing was truncated,
 * nothing rewritten. The same for `--shard` / `--queue`: chunk files of another run are refused before config.json
 * is written.
 *
 * Order matters only for which line a doubly damaged run gets: checkpoint → config.json → stats → files.
 */
import { closeSync, existsSync, lstatSync, openSync, readSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AnnotateConfig } from '../../core/config.ts';
import { type RunStats, withCurrentFields } from '../../core/stats.ts';
import { type Checkpoint, OUTPUT_FILES, RunFiles } from './run-files.ts';
import { readStateJson } from '../system/safe-paths.ts';
import { parseRunStats, parseState, runRecordSchema } from './state-schemas.ts';

/** config.json as annotate writes it: the fields a resume compares. */
export interface RunRecord {
  model?: unknown;
  inputs: string[];
  inputsDigest: string;
  /** null: every document. */
  maxDocs: number | null;
  config: AnnotateConfig;
}

const fix = 'start again with --overwrite or another --out';

/**
 * The checkpoint of the run in `dir`, checked against its files and with stats of the right shape (for `tools`,
 * when given: the run's tools; without, every tool in the stats is checked); null when there is none (a fresh start).
 */
export function resumableCheckpoint(dir: string, tools?: readonly string[]): Checkpoint<RunStats> | null {
  const checkpoint = RunFiles.readCheckpoint<RunStats>(dir);
  if (!checkpoint) return null;
  // Without config.json nothing says which inputs and settings the checkpoint's counts belong to.
  if (!existsSync(join(dir, 'config.json'))) {
    throw new Error(`cannot resume ${dir}: its config.json is missing, so the run's inputs and settings cannot be checked: ${fix}`);
  }
  // An earlier version's checkpoint resumes when the fields added since can be derived (stats.ts withCurrentFields).
  const upgraded = withCurrentFields(checkpoint.stats);
  const unknown = tools && toolsOf(upgraded).find((t) => !tools.includes(t));
  const parsed = unknown ? { problem: `stats.tools.${unknown.slice(0, 40)} is not a tool of this run` } : parseRunStats(upgraded, tools ?? toolsOf(upgraded));
  if ('problem' in parsed) throw new Error(`cannot resume ${dir}: checkpoint.json is damaged or from an older toolformer-ts (stats: ${parsed.problem}): ${fix}`);
  const stats = parsed.value;
  for (const name of OUTPUT_FILES) {
    const problem = fileProblem(join(dir, name), checkpoint.bytes[name]);
    if (problem) throw new Error(`cannot resume ${dir}: ${name} ${problem}, so it is not the file this checkpoint was written for: ${fix}`);
  }
  const counts = countsProblem(dir, checkpoint, stats);
  if (counts) throw new Error(`cannot resume ${dir}: checkpoint.json is damaged (${counts}): ${fix}`);
  return { ...checkpoint, stats };
}

/**
 * Why the checkpoint's counts disagree with each other, with its stats or with the files it describes, or null:
 * every input item read is a document or a bad record (docs = stats.docsRead, items − docs = stats.badRecords = the
 * lines of errors.jsonl), and train.jsonl holds one line per document with a kept call. A count raised by hand would
 * otherwise skip inputs that were never annotated, with exit 0.
 */
function countsProblem(dir: string, checkpoint: Checkpoint<RunStats>, stats: RunStats): string | null {
  const { items, docs } = checkpoint;
  if (docs > items) return `${docs} documents of ${items} input items`;
  if (stats.docsRead !== docs) return `${docs} documents, but stats.docsRead ${stats.docsRead}`;
  if (stats.badRecords !== items - docs) return `${items - docs} bad records (items − docs), but stats.badRecords ${stats.badRecords}`;
  const errors = linesIn(join(dir, 'errors.jsonl'), checkpoint.bytes['errors.jsonl']);
  if (errors !== items - docs) return `${items - docs} bad records (items − docs), but errors.jsonl holds ${errors}`;
  const train = linesIn(join(dir, 'train.jsonl'), checkpoint.bytes['train.jsonl']);
  if (train !== stats.docsWithKeptCall) return `stats.docsWithKeptCall ${stats.docsWithKeptCall}, but train.jsonl holds ${train} documents`;
  if (stats.docsWithKeptCall > docs) return `stats.docsWithKeptCall ${stats.docsWithKeptCall} of ${docs} documents`;
  // Each tool's counts nest: its documents among those read, kept calls among the scored, inlined among the kept.
  for (const [tool, t] of Object.entries(stats.tools)) {
    if (t.docs > docs) return `stats.tools.${tool}.docs ${t.docs} of ${docs} documents`;
    if (t.kept > t.scored || t.inlined > t.kept) return `stats.tools.${tool}: ${t.inlined} inlined, ${t.kept} kept, ${t.scored} scored do not nest`;
  }
  return null;
}

/** Line breaks in the first `length` bytes of `path` (checked to exist and be that long), read 1 MiB at a time. */
function linesIn(path: string, length: number): number {
  if (length === 0) return 0;
  const block = Buffer.alloc(1 << 20);
  const fd = openSync(path, 'r');
  let lines = 0;
  try {
    for (let at = 0; at < length; ) {
      const n = readSync(fd, block, 0, Math.min(block.length, length - at), at);
      if (n === 0) break;
      for (let i = block.indexOf(0x0a); i >= 0 && i < n; i = block.indexOf(0x0a, i + 1)) lines++;
      at += n;
    }
  } finally {
    closeSync(fd);
  }
  return lines;
}

const toolsOf = (stats: unknown) => {
  const tools = (stats as { tools?: unknown } | null)?.tools;
  return typeof tools === 'object' && tools !== null ? Object.keys(tools) : [];
};

/** Why the first `length` bytes of `path` are not whole lines of a file the run wrote, or null. */
function fileProblem(path: string, length: number): string | null {
  if (!existsSync(path)) return length === 0 ? null : `is missing (the checkpoint records ${length} bytes)`;
  const st = lstatSync(path);
  if (!st.isFile()) return 'is not a regular file';
  if (st.size < length) return `is shorter than its checkpoint (${st.size} < ${length} bytes)`;
  if (length === 0) return null;
  const last = Buffer.alloc(1);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, last, 0, 1, length - 1);
  } finally {
    closeSync(fd);
  }
  return last[0] === 0x0a ? null : `has no line break at its checkpoint's length (${length} bytes falls inside a line)`;
}

/**
 * Why `stats` is not RunStats for `tools`, or null (state-schemas.ts runStatsSchema: every field present with its
 * type, counts finite integers ≥ 0, no field or tool the run does not write, no prototype-named key).
 */
export function statsProblem(stats: unknown, tools: readonly string[]): string | null {
  const parsed = parseRunStats(stats, tools);
  return 'problem' in parsed ? parsed.problem : null;
}

/** config.json of the run in `dir`; a one-line refusal when it is not a regular file under the cap, or not JSON. */
function readRecord(dir: string): RunRecord {
  const parsed = parseState(runRecordSchema, readStateJson(dir, 'config.json', `cannot resume ${dir}`, 'start again with another --out'), '');
  if ('problem' in parsed) throw new Error(`cannot resume ${dir}: config.json is damaged (${parsed.problem}): start again with another --out`);
  return parsed.value as unknown as RunRecord;
}

/** The settings that must match: batch size and tool concurrency do not change the output; --max-docs may grow. */
function comparable(r: RunRecord) {
  const { batchSize: _b, toolConcurrency: _c, ...config } = r.config ?? ({} as AnnotateConfig);
  // A run begun before the search budget existed searched whole documents: `--max-doc-tokens 0` resumes it.
  const maxDocTokens = (config as Partial<AnnotateConfig>).maxDocTokens ?? null;
  return { model: r.model, inputs: r.inputs, inputsDigest: r.inputsDigest, ...config, maxDocTokens };
}

const show = (v: unknown) => JSON.stringify(v)?.slice(0, 60);
const docsLimit = (maxDocs: number | null | undefined) => (maxDocs == null ? 'none (every document)' : String(maxDocs));

/**
 * A resume must use the settings of the run it continues, or its files would mix two runs: everything but batch
 * size and tool concurrency is compared with config.json, and --max-docs may grow but not shrink. Returns what
 * config.json must hold after a raised --max-docs (the run's own record with only that changed), null when it stays
 * as it is: the settings the run was made with are never rewritten.
 */
export function assertSameRun(dir: string, record: RunRecord): RunRecord | null {
  const before = readRecord(dir);
  const [was, now] = [comparable(before), comparable(record)];
  if (JSON.stringify(was.inputs) === JSON.stringify(now.inputs) && was.inputsDigest !== now.inputsDigest) {
    throw new Error(`cannot resume ${dir}: the input files changed since the run started (their SHA-256 differs): restore them, or start again with another --out`);
  }
  for (const key of Object.keys(now) as (keyof typeof now)[]) {
    if (JSON.stringify(was[key]) !== JSON.stringify(now[key])) {
      // The flag that gives the first run's value where it is not the flag's own name.
      const hint = key === 'maxDocTokens' && was[key] === null ? ' (--max-doc-tokens 0 for no search budget)' : '';
      throw new Error(`cannot resume ${dir} with other settings (${key}: ${show(was[key])} then, ${show(now[key])} now): pass the same flags as its first run${hint}, or choose another --out`);
    }
  }
  const [then, asked] = [before.maxDocs ?? Infinity, record.maxDocs ?? Infinity];
  if (asked < then) {
    throw new Error(`cannot resume ${dir} with --max-docs ${docsLimit(record.maxDocs)}: the run was made with --max-docs ${docsLimit(before.maxDocs)}, which a resume may raise but not lower: pass the same --max-docs or a larger one, or choose another --out`);
  }
  return asked === then ? null : { ...before, maxDocs: record.maxDocs };
}

/** The `run` a chunk file or manifest names, from its first bytes (`{"run":"<hex>",…`): chunk files can be large. */
function runNamedIn(path: string): string | null {
  const head = Buffer.alloc(256);
  const fd = openSync(path, 'r');
  let read: number;
  try {
    read = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  return /^\{\s*"run"\s*:\s*"([0-9a-f]+)"/.exec(head.subarray(0, read).toString('latin1'))?.[1] ?? null;
}

/**
 * `--shard` / `--queue` into `dir`, before config.json is written: chunk files and a manifest there must belong to
 * `run` (the digest of the settings, model and inputs), and a single-process run's files are not mixed in.
 */
export function assertChunksOfRun(dir: string, run: string): void {
  const chunksDir = join(dir, 'chunks');
  const chunkFiles = existsSync(chunksDir) ? readdirSync(chunksDir).filter((n) => /^\d+\.json$/.test(n)).sort() : [];
  const named = [...(existsSync(join(dir, 'manifest.json')) ? ['manifest.json'] : []), ...chunkFiles.slice(0, 1).map((n) => join('chunks', n))];
  for (const name of named) {
    const theirs = runNamedIn(join(dir, name));
    if (theirs !== run) {
      throw new Error(`${join(dir, name)} belongs to another run (settings, model or inputs differ${theirs ? `: run ${theirs.slice(0, 12)}, this one ${run.slice(0, 12)}` : ''}): pass the same flags as the other shards, or use another --out`);
    }
  }
  if (named.length === 0 && existsSync(join(dir, 'checkpoint.json'))) {
    throw new Error(`${dir} holds a run made without --shard or --queue (checkpoint.json): resume it with --resume, or use another --out`);
  }
}
