/**
 * The page's handle on the model worker: one promise per request, progress through a callback, and
 * `cancel(type)`, which stops the jobs of one kind (a panel's: the explorer's `analyze`, the Inference panel's
 * `generate`) and no other.
 *
 * Requests queue here and go to the worker one at a time (the worker runs one job at a time anyway), so a queued
 * job can be dropped without touching the worker. Cancelling the running job terminates the worker and starts a
 * fresh one, rather than asking the job to stop: a job inside one onnxruntime-web run (a WebGPU batch on a software
 * adapter can take many seconds) cannot see a message until the run returns, while terminate stops it at once and
 * frees its memory. The fresh worker is sent the page's last `load` again first (the model bytes come from the HTTP
 * cache); the other panel's queued jobs, never started, then run as they would have.
 */
import type { PieceKind, Reply, Request, ResultOf } from './protocol.ts';

type Body<T extends Request['type']> = Omit<Extract<Request, { type: T }>, 'id' | 'type'>;
export type Progress = (stage: string, done: number, total: number) => void;
/** Streamed pieces of a generation (protocol.ts `piece`). */
export type OnPiece = (kind: PieceKind, text: string) => void;

/** The rejection of a request that `ModelClient.cancel(type)` stopped. */
export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

export const isCancelled = (e: unknown): boolean => e instanceof CancelledError;

export class ModelClient {
  private worker: Worker;
  private next = 1;
  /** Every request not yet answered: the one in the worker (`running`) and those queued behind it, in order. */
  private readonly pending = new Map<number, Job>();
  private queue: number[] = [];
  private running: number | null = null;
  /** Requests posted to a worker so far (the browser tests check that moving τ_f posts none). */
  posted = 0;
  /** The page's model load, sent again to a fresh worker after `cancel()`. */
  private lastLoad: { body: Body<'load'>; progress?: Progress } | null = null;
  /** Told when `cancel()` restarted the worker, with the reload of the page's model (main.ts shows it). */
  onRestart?: (reload: Promise<ResultOf['load']>) => void;

  /** `createWorker`: the model worker (a fake one in unit tests). */
  constructor(private readonly createWorker: () => Worker = () => new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'model' })) {
    this.worker = this.spawn();
  }

  private spawn(): Worker {
    const worker = this.createWorker();
    worker.addEventListener('message', (e: MessageEvent<Reply>) => this.onReply(e.data));
    worker.addEventListener('error', (e) => this.rejectAll(new Error(`worker error: ${e.message}`)));
    return worker;
  }

  request<T extends Request['type']>(type: T, body: Body<T>, progress?: Progress, onPiece?: OnPiece): Promise<ResultOf[T]> {
    return this.enqueue(type, body, progress, onPiece, false);
  }

  private enqueue<T extends Request['type']>(type: T, body: Body<T>, progress: Progress | undefined, onPiece: OnPiece | undefined, first: boolean): Promise<ResultOf[T]> {
    if (type === 'load') this.lastLoad = { body: body as unknown as Body<'load'>, progress };
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { message: { ...body, type, id } as unknown as Request, resolve: resolve as (v: unknown) => void, reject, progress, onPiece });
      if (first) this.queue.unshift(id);
      else this.queue.push(id);
      this.pump();
    });
  }

  /** Post the next queued request when the worker is free. */
  private pump(): void {
    if (this.running !== null) return;
    const id = this.queue.shift();
    if (id === undefined) return;
    this.running = id;
    this.posted++;
    this.worker.postMessage(this.pending.get(id)!.message);
  }

  /**
   * Stop every job of this type — a panel's own (each rejects with a CancelledError) — and no other. Queued ones
   * are dropped; when the running job is one, the worker restarts and loads the page's model again before the
   * other jobs go on. Returns that reload (null when the worker was not restarted or nothing was loaded yet).
   */
  cancel(type: Request['type']): Promise<ResultOf['load']> | null {
    const mine = [...this.pending].filter(([, job]) => job.message.type === type).map(([id]) => id);
    const restart = this.running !== null && mine.includes(this.running);
    this.queue = this.queue.filter((id) => !mine.includes(id));
    for (const id of mine) {
      const job = this.pending.get(id)!;
      this.pending.delete(id);
      job.reject(new CancelledError());
    }
    if (!restart) return null;
    this.worker.terminate();
    this.running = null;
    this.worker = this.spawn();
    if (!this.lastLoad) {
      this.pump();
      return null;
    }
    const reload = this.enqueue('load', this.lastLoad.body, this.lastLoad.progress, undefined, true);
    this.onRestart?.(reload);
    return reload;
  }

  /**
   * Load another model as the page's: in a fresh worker (the old model's memory goes with the old worker, and the
   * worker's tools are rebuilt over the new model). Every pending request is cancelled, as by `cancel()`; the new
   * load becomes the one `cancel()` repeats.
   */
  replaceModel(body: Body<'load'>, progress?: Progress): Promise<ResultOf['load']> {
    this.worker.terminate();
    this.rejectAll(new CancelledError());
    this.worker = this.spawn();
    return this.request('load', body, progress);
  }

  private rejectAll(error: Error): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    this.queue = [];
    this.running = null;
    for (const p of pending) p.reject(error);
  }

  private onReply(reply: Reply): void {
    const p = this.pending.get(reply.id);
    if (!p) return;
    if (reply.type === 'piece') {
      p.onPiece?.(reply.kind, reply.text);
      return;
    }
    if (reply.type === 'progress') {
      p.progress?.(reply.stage, reply.done, reply.total);
      return;
    }
    this.pending.delete(reply.id);
    if (this.running === reply.id) this.running = null;
    if (reply.type === 'result') p.resolve(reply.value);
    else p.reject(new Error(reply.message));
    this.pump();
  }
}

/** A request waiting for its answer: the message (posted when its turn comes) and its callbacks. */
interface Job {
  message: Request;
  resolve(v: unknown): void;
  reject(e: Error): void;
  progress?: Progress;
  onPiece?: OnPiece;
}
