/**
 * The page's handle on the model worker: one promise per request, progress through a callback, and `cancel()`,
 * which stops whatever the worker is doing.
 *
 * Cancel terminates the worker and starts a fresh one, rather than asking the job to stop: a job inside one
 * onnxruntime-web run (a WebGPU batch on a software adapter can take many seconds) cannot see a message until the
 * run returns, while terminate stops it at once and frees its memory. Every request still pending (the cancelled job
 * and any queued behind it) is rejected with a `CancelledError`; the fresh worker is sent the page's last `load`
 * again (the model bytes come from the HTTP cache), and requests made meanwhile queue behind that load.
 */
import type { Reply, Request, ResultOf } from './protocol.ts';

type Body<T extends Request['type']> = Omit<Extract<Request, { type: T }>, 'id' | 'type'>;
export type Progress = (stage: string, done: number, total: number) => void;
/** Streamed pieces of a generation (protocol.ts `piece`). */
export type OnPiece = (kind: 'text' | 'call' | 'result', text: string) => void;

/** The rejection of a request that `ModelClient.cancel()` stopped. */
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
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; progress?: Progress; onPiece?: OnPiece }>();
  /** The page's model load, sent again to a fresh worker after `cancel()`. */
  private lastLoad: { body: Body<'load'>; progress?: Progress } | null = null;
  /** Told when `cancel()` restarted the worker, with the reload of the page's model (main.ts shows it). */
  onRestart?: (reload: Promise<ResultOf['load']>) => void;

  constructor() {
    this.worker = this.spawn();
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'model' });
    worker.addEventListener('message', (e: MessageEvent<Reply>) => this.onReply(e.data));
    worker.addEventListener('error', (e) => this.rejectAll(new Error(`worker error: ${e.message}`)));
    return worker;
  }

  request<T extends Request['type']>(type: T, body: Body<T>, progress?: Progress, onPiece?: OnPiece): Promise<ResultOf[T]> {
    if (type === 'load') this.lastLoad = { body: body as unknown as Body<'load'>, progress };
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, progress, onPiece });
      this.worker.postMessage({ ...body, type, id } as unknown as Request);
    });
  }

  /**
   * Stop the running job and everything queued behind it (each rejects with a CancelledError), start a fresh
   * worker and load the page's model in it again. Returns that reload (null when nothing was loaded yet).
   */
  cancel(): Promise<ResultOf['load']> | null {
    this.worker.terminate();
    this.rejectAll(new CancelledError());
    this.worker = this.spawn();
    if (!this.lastLoad) return null;
    const reload = this.request('load', this.lastLoad.body, this.lastLoad.progress);
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
    if (reply.type === 'result') p.resolve(reply.value);
    else p.reject(new Error(reply.message));
  }
}
