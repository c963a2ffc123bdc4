import { describe, expect, it } from 'vitest';
import { isCancelled, ModelClient } from './model-client.ts';
import type { Reply, Request } from './protocol.ts';

/** A stand-in for the model worker: records what it is sent, answers when the test says so. */
class FakeWorker {
  posted: Request[] = [];
  terminated = false;
  private listener: ((e: MessageEvent<Reply>) => void) | null = null;
  addEventListener(type: string, fn: (e: MessageEvent<Reply>) => void): void {
    if (type === 'message') this.listener = fn;
  }
  postMessage(req: Request): void {
    this.posted.push(req);
  }
  terminate(): void {
    this.terminated = true;
  }
  /** Answer the last request posted with a result. */
  answer(value: unknown = {}): void {
    const req = this.posted.at(-1)!;
    this.listener?.({ data: { id: req.id, type: 'result', value } } as MessageEvent<Reply>);
  }
  get types(): string[] {
    return this.posted.map((r) => r.type);
  }
}

function client(): { client: ModelClient; workers: FakeWorker[] } {
  const workers: FakeWorker[] = [];
  const c = new ModelClient(() => {
    const w = new FakeWorker();
    workers.push(w);
    return w as unknown as Worker;
  });
  return { client: c, workers };
}

const load = { source: { kind: 'url' as const, url: 'http://x/models/default/' }, prefer: 'wasm' as const };
const analyzeBody = { params: { text: 'x', tools: [], k: 1, m: 0, seed: 1 } };
const generateBody = { params: { modelUrl: null, prompt: 'p', tools: true, topK: 10, maxNewTokens: 4, date: '2023-01-30' } };
/** Where a promise stands, without awaiting its end. */
const settled = async (p: Promise<unknown>) => {
  let state = 'pending';
  p.then(() => { state = 'resolved'; }, (e) => { state = isCancelled(e) ? 'cancelled' : 'rejected'; });
  await new Promise((r) => setTimeout(r, 0));
  return state;
};

/** A client whose model is loaded, with an explorer job running and a generation queued behind it. */
function busy() {
  const { client: c, workers } = client();
  void c.request('load', load);
  workers[0].answer();
  return { c, workers, analyze: c.request('analyze', analyzeBody), generate: c.request('generate', generateBody) };
}

describe('ModelClient', () => {
  it('sends one request at a time, in order', async () => {
    const { client: c, workers: [w] } = client();
    void c.request('load', load);
    const a = c.request('analyze', analyzeBody);
    expect(w.types).toEqual(['load']);
    w.answer();
    expect(w.types).toEqual(['load', 'analyze']);
    w.answer({ candidates: [] });
    expect(await a).toEqual({ candidates: [] });
    expect(c.posted).toBe(2);
  });

  it("cancelling the explorer's running job restarts the worker, and the queued generation then runs there", async () => {
    const { c, workers, analyze: a, generate: g } = busy();
    expect(workers[0].types).toEqual(['load', 'analyze']);
    const reload = c.cancel('analyze');
    expect(reload).not.toBeNull();
    expect(await settled(a)).toBe('cancelled');
    expect(workers[0].terminated).toBe(true);
    // The fresh worker loads the page's model first, then runs the generation that was waiting.
    expect(workers[1].types).toEqual(['load']);
    workers[1].answer();
    expect(workers[1].types).toEqual(['load', 'generate']);
    workers[1].answer({ text: 'done' });
    expect(await g).toEqual({ text: 'done' });
    expect(await settled(reload!)).toBe('resolved');
  });

  it("cancelling a queued generation drops it and leaves the explorer's running job alone", async () => {
    const { c, workers, analyze: a, generate: g } = busy();
    expect(c.cancel('generate')).toBeNull();
    expect(await settled(g)).toBe('cancelled');
    expect(workers).toHaveLength(1);
    expect(workers[0].terminated).toBe(false);
    workers[0].answer({ candidates: [1] });
    expect(await a).toEqual({ candidates: [1] });
    expect(workers[0].types).toEqual(['load', 'analyze']);
  });
});
