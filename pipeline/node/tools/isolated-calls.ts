/**
 * Calls of a synchronous function run in worker threads, each under a V8 heap limit and a deadline (issue 46): a
 * call that runs past its deadline, or whose caller goes away (its AbortSignal: the MCP client cancelled or left, the
 * executor's timeout), terminates its worker — a synchronous evaluation cannot be interrupted any other way — and a
 * call that exhausts the heap ends its worker, not the process. Every failure is a ToolResult `{ok: false, error}`,
 * never a throw. The process stays responsive meanwhile: its own thread only posts messages.
 *
 *   pool      at most `workers` threads, started on demand, each one call at a time; further calls wait in order
 *   warm-up   a new thread loads the module and runs `warm` once before it takes a call, so a deadline measures
 *             the call, not the module's start (mathjs `create(all)`: seconds of CPU)
 *   idle      an idle thread does not keep the process alive (unref); `close()` terminates every thread
 */
import { Worker } from 'node:worker_threads';
import type { CatalogIsolation, ToolCatalog } from '../../core/tools/catalogs/index.ts';
import type { ToolResult } from '../../core/tools/tool.ts';

export interface IsolationLimits {
  /** Wall-clock ms one call may run once its thread is ready. @default 5000 */
  deadlineMs?: number;
  /** V8 old-generation heap of each thread, MB. @default 256 */
  heapMb?: number;
  /** Threads at most. @default 4 (the tool executor's concurrency) */
  workers?: number;
}

/** The function a worker runs: `exportName` of the module at `module` (a file URL or path), called with the args. */
export interface IsolatedFunction {
  module: string;
  exportName: string;
  /** Arguments of one call made before the thread takes work (its first-use cost). */
  warm?: unknown[];
}

const WORKER_ENTRY = new URL('./isolated-call-worker.mjs', import.meta.url);

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  busy: boolean;
}

/** A call waiting for a thread: `start` hands it one; `signal` may take it out of the queue first. */
interface Waiting {
  start: (slot: Slot) => void;
}

export class IsolatedCalls {
  private readonly slots = new Set<Slot>();
  private readonly queue: Waiting[] = [];
  private readonly deadlineMs: number;
  private readonly heapMb: number;
  private readonly maxWorkers: number;
  private nextId = 0;
  private closed = false;

  constructor(private readonly fn: IsolatedFunction, limits: IsolationLimits = {}) {
    this.deadlineMs = limits.deadlineMs ?? 5000;
    this.heapMb = limits.heapMb ?? 256;
    this.maxWorkers = limits.workers ?? 4;
  }

  /** Threads alive now (started, busy or idle). */
  get threads(): number {
    return this.slots.size;
  }

  /** Starts one thread ahead of the first call (its warm-up takes seconds); resolves when it is ready. */
  async prestart(): Promise<void> {
    if (this.slots.size > 0 || this.closed) return;
    const slot = this.spawn();
    await slot.ready.then(() => this.release(slot), () => {});
  }

  /** Runs one call: its result, or `{ok: false}` naming the deadline, the heap limit, a cancellation or a crash. */
  async call(args: unknown[], signal?: AbortSignal): Promise<ToolResult> {
    if (this.closed) return fail(CLOSED);
    if (signal?.aborted) return fail('cancelled before it ran');
    let slot: Slot;
    try {
      slot = await this.acquire(signal);
      await slot.ready;
    } catch (error) {
      return fail(this.closed ? CLOSED : (error as Error).message);
    }
    if (signal?.aborted) {
      this.release(slot);
      return fail('cancelled before it ran');
    }
    return this.runOn(slot, args, signal);
  }

  /** Terminates every thread; waiting and running calls end with `{ok: false}`. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiting of this.queue.splice(0)) waiting.start(undefined as never);
    await Promise.all([...this.slots].map((slot) => this.drop(slot)));
  }

  private acquire(signal?: AbortSignal): Promise<Slot> {
    const idle = [...this.slots].find((s) => !s.busy);
    const slot = idle ?? (this.slots.size < this.maxWorkers ? this.spawn() : undefined);
    if (slot) {
      slot.busy = true;
      return Promise.resolve(slot);
    }
    return new Promise<Slot>((resolve, reject) => {
      const waiting: Waiting = {
        start: (given) => {
          signal?.removeEventListener('abort', leave);
          if (given === undefined) reject(new Error('the isolated evaluator is closed'));
          else resolve(given);
        },
      };
      const leave = () => {
        const at = this.queue.indexOf(waiting);
        if (at >= 0) this.queue.splice(at, 1);
        reject(new Error('cancelled while waiting for a thread'));
      };
      signal?.addEventListener('abort', leave, { once: true });
      this.queue.push(waiting);
    });
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_ENTRY, {
      workerData: { module: this.fn.module, exportName: this.fn.exportName, warm: this.fn.warm },
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb, maxYoungGenerationSizeMb: Math.max(8, this.heapMb >> 4) },
      stdout: true, // the module's console output is not the server's (an MCP server's stdout is its protocol)
    });
    worker.stdout.resume(); // read and dropped
    const slot: Slot = { worker, busy: true, ready: undefined as never };
    slot.ready = new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', (error) => reject(new Error(`the isolated evaluator did not start: ${error.message}`)));
      worker.once('exit', (code) => reject(new Error(`the isolated evaluator did not start (exit ${code})`)));
    });
    slot.ready.catch(() => void this.drop(slot));
    this.slots.add(slot);
    return slot;
  }

  private runOn(slot: Slot, args: unknown[], signal?: AbortSignal): Promise<ToolResult> {
    const id = this.nextId++;
    const { worker } = slot;
    worker.ref();
    return new Promise<ToolResult>((resolve) => {
      const finish = (result: ToolResult, keep: boolean) => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        signal?.removeEventListener('abort', onAbort);
        if (keep) this.release(slot);
        else void this.drop(slot);
        resolve(result);
      };
      const onMessage = (message: { id: number; result: ToolResult }) => {
        if (message.id === id) finish(message.result, true);
      };
      const onError = (error: Error & { code?: string }) =>
        finish(fail(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `ran out of its ${this.heapMb} MB memory budget: stopped` : `the evaluation crashed: ${error.message}`), false);
      const onExit = () => finish(fail(this.closed ? CLOSED : 'the evaluation thread ended'), false);
      const onAbort = () => finish(fail('cancelled: its caller went away or timed out; stopped'), false);
      const timer = setTimeout(() => finish(fail(`ran past its ${this.deadlineMs} ms deadline: stopped`), false), this.deadlineMs);
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.postMessage({ id, args });
    });
  }

  /** A thread back to the pool: the next waiting call takes it, or it idles without holding the process. */
  private release(slot: Slot): void {
    const next = this.queue.shift();
    if (next) next.start(slot);
    else {
      slot.busy = false;
      slot.worker.unref();
    }
  }

  /** A thread gone (terminated, crashed): a waiting call gets a new one. */
  private async drop(slot: Slot): Promise<void> {
    if (!this.slots.delete(slot)) return;
    const terminated = slot.worker.terminate();
    if (!this.closed && this.queue.length > 0) {
      const fresh = this.spawn();
      this.queue.shift()!.start(fresh);
    }
    await terminated.catch(() => {});
  }
}

const CLOSED = 'the isolated evaluator was closed: stopped';

function fail(error: string): ToolResult {
  return { ok: false, error };
}

/**
 * A catalog's calls in worker threads (core/tools/catalogs CatalogIsolation): its `evaluator` loaded in each thread,
 * one call `(tool, argumentText)`, cancelled with the executor's or the MCP client's signal. `close()` ends them all.
 */
export function isolateCatalog(catalog: Pick<ToolCatalog, 'evaluator'>, limits: IsolationLimits = {}): CatalogIsolation & { pool: IsolatedCalls; close(): Promise<void> } {
  const pool = new IsolatedCalls(catalog.evaluator, limits);
  return {
    pool,
    runner: (tool) => ({ run: (input, context) => pool.call([tool, input], context.signal), load: () => pool.prestart() }),
    close: () => pool.close(),
  };
}
