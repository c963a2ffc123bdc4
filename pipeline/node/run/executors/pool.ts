/**
 * `annotate --workers N` (N > 1): N worker processes on this machine, no server — an executor of the one loop
 * (run-loop.ts). The loop reads the corpus and cuts it into chunks (chunks.ts); the pool hands each to the next idle
 * worker; the loop's committer commits the results strictly in chunk order through the same crash-safe RunFiles as a
 * single-process run — a checkpoint after each chunk — so the files are byte-identical to `--workers 1` and a killed
 * run resumes (with any --workers).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { AnnotateConfig } from '../../../core/config.ts';
import type { Executor } from '../run-loop.ts';
import type { Chunk, ChunkResult } from '../chunks.ts';
import type { ToChild } from './pool-child.ts';
import { ABANDONED_EXIT } from '../../system/child-guard.mjs';
import type { ModelOpen } from '../../model/lm-backends/registry.ts';

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

  /** A chunk is out with this worker. */
  get busy(): boolean {
    return this.pending !== null;
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
export function startWorkers(n: number, model: ModelOpen, config: AnnotateConfig): PoolWorker[] {
  const workers = Array.from({ length: n }, (_, i) => {
    const worker = new PoolWorker(i + 1);
    worker.ready = worker.request({ type: 'init', model, config });
    worker.ready.catch(() => {}); // awaited (and reported) in runPool
    return worker;
  });
  stopOnSignals(workers);
  return workers;
}

/** The signal handlers of a pool, removed when the run closes it. */
const signalHandlers = new WeakMap<PoolWorker[], (signal: NodeJS.Signals) => void>();

/**
 * SIGTERM/SIGINT while the workers live: each is told (disconnected: it abandons its chunk, ends its Apertium
 * pipelines and exits, child-guard.mjs) and reaped; then this process exits 143 (130 for SIGINT) when a chunk was
 * out, 0 when none was. The files hold every chunk committed before (crash-safe, as after a SIGKILL): --resume goes on.
 */
function stopOnSignals(workers: PoolWorker[]): void {
  const stop = (signal: NodeJS.Signals) => {
    const code = workers.some((w) => w.busy) ? ABANDONED_EXIT[signal as 'SIGTERM' | 'SIGINT'] : 0;
    console.error(`toolformer: ${signal}: stopping the worker processes; the files hold every chunk done before: pass --resume to continue`);
    void Promise.all(workers.map((w) => w.close())).finally(() => process.exit(code));
  };
  signalHandlers.set(workers, stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** The pool as the loop's executor (run-loop.ts): each idle worker takes the next chunk; results come back in any order. */
export function poolExecutor(workers: PoolWorker[], config: AnnotateConfig): Executor {
  return {
    async run(chunks, done) {
      const next = chunks[Symbol.asyncIterator]();
      let failure: Error | null = null;
      const work = async (worker: PoolWorker) => {
        try {
          await worker.ready;
          // Concurrent next() calls on one generator are queued: each chunk goes to exactly one worker.
          for (let c: IteratorResult<Chunk>; !failure && !(c = await next.next()).done; ) {
            const reply = await worker.request({ type: 'chunk', chunk: c.value, config });
            if (failure) return;
            if (reply.type !== 'result') throw new Error(`worker process ${worker.id}: unexpected reply ${reply.type}`);
            done(reply.result);
          }
        } catch (error) {
          failure ??= error as Error;
        }
      };
      await Promise.all(workers.map(work));
      if (failure) throw new Error(`${(failure as Error).message}; the files hold every chunk before it: pass --resume to continue`);
    },
    // No worker outlives the run.
    close: async () => {
      const stop = signalHandlers.get(workers);
      if (stop) for (const signal of ['SIGTERM', 'SIGINT']) process.off(signal, stop);
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}
