/**
 * `annotate --workers N` (N > 1): N worker processes on this machine, no server. This process reads the corpus and
 * cuts it into chunks (chunks.ts), hands each to the next idle worker, and commits the results strictly in chunk
 * order through the same crash-safe RunFiles as a single-process run — a checkpoint after each chunk — so the files
 * are byte-identical to `--workers 1` and a killed run resumes (with any --workers).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { AnnotateConfig } from '../../core/config.ts';
import { type RunStats, mergeStats } from '../../core/stats.ts';
import { openRun } from '../annotate-run.ts';
import { withSkippedInputs } from '../read-corpus.ts';
import { RunFiles } from '../run-files.ts';
import { type Chunk, type ChunkResult, readChunks } from './chunks.ts';
import type { ToChild } from './pool-child.ts';
import type { Dtype } from '../hf-cache.ts';

export interface PoolOptions {
  /** Workers from startWorkers, already loading. */
  workers: PoolWorker[];
  inputs: string[];
  outDir: string;
  meta: Record<string, unknown>;
  config: AnnotateConfig;
  chunkItems: number;
  maxDocs?: number;
  resume?: boolean;
  /** Called after each committed chunk with the run's totals so far. */
  onChunk?: (done: { docs: number; stats: RunStats }) => void;
}

type FromChild = { type: 'ready' } | { type: 'result'; result: ChunkResult } | { type: 'error'; message: string };

/** One forked worker: `request` sends a message and resolves with the next reply. */
export class PoolWorker {
  /** The reply to `init`: the worker has loaded the model and the tools. */
  ready: Promise<FromChild> | null = null;
  private readonly child: ChildProcess;
  private pending: { resolve: (m: FromChild) => void; reject: (e: Error) => void } | null = null;
  private exited: Error | null = null;

  constructor(readonly id: number) {
    this.child = fork(join(import.meta.dirname, 'pool-child.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (m: FromChild) => {
      const p = this.pending;
      this.pending = null;
      if (m.type === 'error') p?.reject(new Error(m.message));
      else p?.resolve(m);
    });
    this.child.on('exit', (code, signal) => {
      this.exited = new Error(`worker process ${id} exited (${signal ?? `code ${code}`})`);
      this.pending?.reject(this.exited);
      this.pending = null;
    });
  }

  request(message: ToChild): Promise<FromChild> {
    if (this.exited) return Promise.reject(this.exited);
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.child.send(message);
    });
  }

  /** Disconnect (the child exits on it) and wait until it has exited, so no worker outlives the run. */
  close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    if (this.child.connected) this.child.disconnect();
    return exited;
  }
}

/**
 * Fork `n` workers and have each load the model and the tools now (`config` is used for the tools' limits only; the
 * run's final config comes with every chunk), so that their start-up overlaps the parent's.
 */
export function startWorkers(n: number, model: string, dtype: Dtype | undefined, config: AnnotateConfig): PoolWorker[] {
  return Array.from({ length: n }, (_, i) => {
    const worker = new PoolWorker(i + 1);
    worker.ready = worker.request({ type: 'init', model, dtype, config });
    worker.ready.catch(() => {}); // awaited (and reported) in runPool
    return worker;
  });
}

export async function runPool(options: PoolOptions): Promise<RunStats> {
  const { config, outDir } = options;
  const { files, checkpoint, stats } = openRun(options);
  let docs = checkpoint?.docs ?? 0;
  let items = checkpoint?.items ?? 0;

  const chunks = readChunks({ inputs: options.inputs, chunkItems: options.chunkItems, maxDocs: options.maxDocs, startItem: items, startDocs: docs, columns: config.inputColumns, limits: config.inputLimits });
  const done = new Map<number, ChunkResult>();
  let next = 0;
  // Commit every result that is next in chunk order: the files only ever grow in input order.
  const flush = () => {
    for (let r; (r = done.get(next)); next++) {
      done.delete(next);
      for (const [file, text] of [['train.jsonl', r.train], ['calls.jsonl', r.calls], ['errors.jsonl', r.errors]] as const) files.pushText(file, text);
      mergeStats(stats, r.stats);
      docs += r.docs;
      items = r.firstItem + r.items;
      files.commit(items, docs, stats);
      options.onChunk?.({ docs, stats });
    }
  };

  const workers = options.workers;
  let failure: Error | null = null;
  const work = async (worker: PoolWorker) => {
    try {
      await worker.ready;
      // Concurrent next() calls on one generator are queued: each chunk goes to exactly one worker.
      for (let c: IteratorResult<Chunk>; !failure && !(c = await chunks.next()).done; ) {
        const reply = await worker.request({ type: 'chunk', chunk: c.value, config });
        if (failure) return;
        if (reply.type !== 'result') throw new Error(`worker process ${worker.id}: unexpected reply ${reply.type}`);
        done.set(reply.result.index, reply.result);
        flush();
      }
    } catch (error) {
      failure ??= error as Error;
    }
  };
  try {
    await Promise.all(workers.map(work));
    if (failure) throw new Error(`${(failure as Error).message}; the files hold every chunk before it: pass --resume to continue`);
    // Bad records after the last document, or a resume with nothing left: the final checkpoint, as runAnnotate's.
    files.commit(items, docs, stats);
  } finally {
    files.close();
    await Promise.all(workers.map((w) => w.close()));
  }
  RunFiles.writeJson(outDir, 'stats.json', withSkippedInputs(stats, options.inputs));
  return stats;
}
