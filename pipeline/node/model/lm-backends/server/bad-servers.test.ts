// Bad servers, each one line and bounded memory: a refused connection, 429 then success, 500, a stalled answer,
// truncated JSON, a wrong token count, missing prompt_logprobs, a 1 GB answer. A test server stands in front of
// `toolformer serve` (in this process) and misbehaves on /v1/completions as each case says.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrtCausalLM } from '../../../../core/lm/ort-lm.ts';
import { loadModel } from '../../load-model.ts';
import { DEFAULT_MODEL } from '../../../system/package-paths.ts';
import { serve, type RunningServer } from '../../../serve/serve.ts';
import { ServerLM } from './server-lm.ts';

const json = (name: string) => JSON.parse(readFileSync(join(DEFAULT_MODEL, name), 'utf8')) as Record<string, unknown>;
const files = { tokenizer: json('tokenizer.json'), config: json('config.json') };

type Misbehave = (res: import('node:http').ServerResponse, forward: () => Promise<string>, call: number) => Promise<void> | void;

let lm: OrtCausalLM;
let good: RunningServer;
let front: Server;
let frontUrl: string;
let misbehave: Misbehave | null = null;
let calls = 0;

beforeAll(async () => {
  lm = await loadModel(DEFAULT_MODEL);
  good = await serve({ lm, served: 'default', port: 0 });
  const goodRoot = good.url.replace(/\/v1$/, '');
  front = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const chunk of req) parts.push(chunk as Buffer);
    const forward = async () => {
      const r = await fetch(`${goodRoot}${req.url}`, { method: req.method, body: req.method === 'POST' ? Buffer.concat(parts) : undefined, headers: { 'content-type': 'application/json' } });
      return r.text();
    };
    if (req.url === '/v1/completions' && misbehave) return misbehave(res, forward, ++calls);
    res.writeHead(200, { 'content-type': 'application/json' }).end(await forward());
  });
  await new Promise<void>((done) => front.listen(0, '127.0.0.1', done));
  frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  front?.closeAllConnections();
  await new Promise((done) => front?.close(done));
  await good?.close();
  await lm?.release();
});

const ids = () => [lm.bosId!, ...lm.encode('Out of 1400 participants, 400 passed.')];
const probe = () => lm.encode(' [')[0];

/** A ServerLM on the front with quick retries and a short timeout; `retries` collects the retry lines. */
async function client(retries: string[] = [], extra: { timeoutMs?: number; maxResponseBytes?: number } = {}) {
  return ServerLM.open({ baseUrl: frontUrl, files, http: { attempts: 3, backoffMs: 10, maxBackoffMs: 20, timeoutMs: extra.timeoutMs ?? 20_000, maxResponseBytes: extra.maxResponseBytes, onRetry: (l) => retries.push(l) } });
}

/** Runs `work` with `behaviour` on /v1/completions; returns its error (or null). */
async function withBehaviour(behaviour: Misbehave, work: () => Promise<unknown>): Promise<Error | null> {
  misbehave = behaviour;
  calls = 0;
  try {
    await work();
    return null;
  } catch (error) {
    return error as Error;
  } finally {
    misbehave = null;
  }
}

const oneLine = (error: Error | null, pattern: RegExp) => {
  expect(error).toBeInstanceOf(Error);
  expect(error!.message).toMatch(pattern);
  expect(error!.message).not.toContain('\n');
};

describe('bad servers: one line each, bounded memory, nothing half-read', () => {
  it('a refused connection: retried, then one line saying so', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    const retries: string[] = [];
    const error = await ServerLM.open({ baseUrl: `http://127.0.0.1:${port}/v1`, files, http: { attempts: 2, backoffMs: 10, onRetry: (l) => retries.push(l) } }).catch((e: Error) => e);
    oneLine(error as Error, /connection refused \(is the server running\?\) \(after 2 attempts\)/);
    expect(retries).toHaveLength(1);
  });

  it('429, then success: retried after its Retry-After, and the scores are the good server`s', async () => {
    const retries: string[] = [];
    const lmOverHttp = await client(retries);
    let scores: Float32Array | undefined;
    const error = await withBehaviour(
      async (res, forward, call) => {
        if (call === 1) res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' }).end('{"error":{"message":"busy"}}');
        else res.writeHead(200, { 'content-type': 'application/json' }).end(await forward());
      },
      async () => ([{ tokenLogProbs: scores }] = await lmOverHttp.score([{ ids: ids(), probe: probe() }])),
    );
    expect(error).toBeNull();
    expect(retries.some((l) => /HTTP 429: busy/.test(l))).toBe(true);
    const [mine] = await lm.score([{ ids: ids(), probe: probe() }]);
    expect(Array.from(scores!).map((x) => x.toFixed(5))).toEqual(Array.from(mine.tokenLogProbs).map((x) => x.toFixed(5)));
  });

  it('500 on every try: one line with the server`s message, after the attempts', async () => {
    const lmOverHttp = await client();
    const error = await withBehaviour((res) => void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"CUDA out of memory"}}'), () => lmOverHttp.score([{ ids: ids() }]));
    oneLine(error, /POST .*\/v1\/completions: HTTP 500: CUDA out of memory \(after 3 attempts\)/);
  });

  it('a stalled answer (headers, then nothing): the per-request timeout ends it', async () => {
    const lmOverHttp = await client([], { timeoutMs: 300 });
    const error = await withBehaviour((res) => void res.writeHead(200, { 'content-type': 'application/json' }).write('{"choices": ['), () => lmOverHttp.score([{ ids: ids() }]));
    oneLine(error, /no complete answer within 0\.3 s \(--server-timeout\) \(after 3 attempts\)/);
  });

  it('truncated JSON (the server died mid-answer): retried, then one line', async () => {
    const lmOverHttp = await client();
    const error = await withBehaviour(async (res, forward) => void res.writeHead(200, { 'content-type': 'application/json' }).end((await forward()).slice(0, 100)), () => lmOverHttp.score([{ ids: ids() }]));
    oneLine(error, /the answer is not complete JSON \(100 bytes, ending .*\) \(after 3 attempts\)/);
  });

  it('a wrong token count and missing prompt_logprobs: one line each, not retried', async () => {
    const lmOverHttp = await client();
    const edit = (change: (choice: Record<string, unknown>) => void): Misbehave => async (res, forward) => {
      const body = JSON.parse(await forward());
      change(body.choices[0]);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    oneLine(await withBehaviour(edit((c) => (c.prompt_logprobs as unknown[]).pop()), () => lmOverHttp.score([{ ids: ids() }])), /prompt_logprobs has \d+ entries, not \d+$/);
    expect(calls).toBe(1);
    oneLine(await withBehaviour(edit((c) => delete c.prompt_logprobs), () => lmOverHttp.score([{ ids: ids() }])), /has no prompt_logprobs \(a server without vLLM's prompt_logprobs extension cannot score\)/);
    oneLine(await withBehaviour(edit((c) => (c.probe_logprobs = [1, 2])), () => lmOverHttp.score([{ ids: ids(), probe: probe() }])), /probe_logprobs is missing or not \d+ numbers/);
  });

  it('a 1 GB answer: refused at its declared length, or cut at the cap while streamed; memory stays flat', async () => {
    const lmOverHttp = await client([], { maxResponseBytes: 8 * 2 ** 20 });
    const before = process.memoryUsage().rss;
    const declared = await withBehaviour((res) => void res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 ** 30) }).write('{'), () => lmOverHttp.score([{ ids: ids() }]));
    oneLine(declared, /the answer is 1073741824 bytes, over the 8388608-byte limit/);
    const chunk = Buffer.alloc(2 ** 20, 0x20);
    const streamed = await withBehaviour(
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        let sent = 0;
        const pump = () => {
          while (sent < 2 ** 30 && res.write(chunk)) sent += chunk.length;
          if (sent < 2 ** 30 && !res.destroyed) res.once('drain', pump);
        };
        res.on('close', () => (sent = 2 ** 30));
        pump();
      },
      () => lmOverHttp.score([{ ids: ids() }]),
    );
    oneLine(streamed, /the answer passed the 8388608-byte limit \(--server-max-response-mb\) and was not read further/);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 2 ** 20);
  });
});
