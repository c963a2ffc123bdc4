/**
 * The page's handle on the model worker: one promise per request, progress through a callback.
 */
import type { Reply, Request, ResultOf } from './protocol.ts';

type Body<T extends Request['type']> = Omit<Extract<Request, { type: T }>, 'id' | 'type'>;
export type Progress = (stage: string, done: number, total: number) => void;
/** Streamed pieces of a generation (protocol.ts `piece`). */
export type OnPiece = (kind: 'text' | 'call' | 'result', text: string) => void;

export class ModelClient {
  private readonly worker: Worker;
  private next = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; progress?: Progress; onPiece?: OnPiece }>();

  constructor() {
    this.worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'model' });
    this.worker.addEventListener('message', (e: MessageEvent<Reply>) => this.onReply(e.data));
    this.worker.addEventListener('error', (e) => {
      for (const p of this.pending.values()) p.reject(new Error(`worker error: ${e.message}`));
      this.pending.clear();
    });
  }

  request<T extends Request['type']>(type: T, body: Body<T>, progress?: Progress, onPiece?: OnPiece): Promise<ResultOf[T]> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, progress, onPiece });
      this.worker.postMessage({ ...body, type, id } as unknown as Request);
    });
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
