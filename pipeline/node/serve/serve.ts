/**
 * `toolformer serve`: an OpenAI-compatible server over any backend this project loads (an ONNX folder, a GGUF file),
 * speaking vLLM's protocol (lm-backends/server/protocol.ts) — one GPU machine serving many `--queue` workers, and the
 * server the HTTP backend is tested against.
 *
 *   GET  /v1/models        the served model, its context length, the extensions it answers
 *   POST /v1/completions   scoring (prompt_logprobs, probe_token_id) and sampling (n, seed, stop, return_token_ids)
 *   POST /tokenize         text → ids (vLLM's, at the root)
 *   POST /detokenize       ids → text
 *   GET  /health           200 when the model is loaded
 *
 * Requests run one at a time (the model is one resource; a client bounds its own in-flight requests). Bodies over
 * MAX_BODY_BYTES are refused unread; every error is OpenAI's JSON error body. Bound to 127.0.0.1 unless --host says
 * otherwise; with --api-key-env NAME, every request must carry `Authorization: Bearer <$NAME>`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CausalLM, HiddenStateLM } from '../../core/lm/lm.ts';
import type { ModelCard } from '../model/lm-backends/server/protocol.ts';
import { BadRequest, completions } from './completions.ts';

/** The largest request body read, bytes (256 prompts of a 32k context as JSON ids fit). */
export const MAX_BODY_BYTES = 64 * 2 ** 20;

export interface ServeOptions {
  lm: CausalLM;
  /** The model with full distributions, made on first use (completions.ts: only prompt_logprobs k > 0 needs it). */
  distributions?: () => Promise<HiddenStateLM | undefined>;
  /** The name clients send as `model`. */
  served: string;
  host?: string;
  port?: number;
  /** A request must carry this bearer token. */
  apiKey?: string;
  /** One line per request served (method, path, status, ms). */
  log?: (line: string) => void;
}

export interface RunningServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

export async function serve(o: ServeOptions): Promise<RunningServer> {
  let queue: Promise<unknown> = Promise.resolve();
  /** The model is one resource: requests that use it run in arrival order. */
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };
  const server = createServer((req, res) => {
    const started = performance.now();
    handle(o, req, exclusive)
      .then(({ status, body }) => send(res, status, body))
      .catch((error: unknown) => {
        const [status, message] = error instanceof HttpError ? [error.status, error.message] : error instanceof BadRequest ? [400, error.message] : [500, (error as Error).message?.split('\n')[0] ?? String(error)];
        send(res, status, { error: { message, type: status === 400 ? 'BadRequestError' : status === 401 ? 'AuthenticationError' : 'InternalServerError', code: status } });
      })
      .finally(() => o.log?.(`${req.method} ${req.url} ${res.statusCode} ${(performance.now() - started).toFixed(0)} ms`));
  });
  server.requestTimeout = 0; // a long scoring request is not cut by the server; clients set their own timeout
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(o.port ?? 8000, o.host ?? '127.0.0.1', () => done());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${host}:${address.port}/v1`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections(); // idle keep-alive connections would hold close() open
      }),
  };
}

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

async function handle(o: ServeOptions, req: IncomingMessage, exclusive: <T>(work: () => Promise<T>) => Promise<T>): Promise<{ status: number; body: unknown }> {
  if (o.apiKey !== undefined && req.headers.authorization !== `Bearer ${o.apiKey}`) throw new HttpError(401, 'a valid API key is required (Authorization: Bearer …)');
  const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
  const route = `${req.method} ${path}`;
  const { lm, served } = o;
  switch (route) {
    case 'GET /health':
      return { status: 200, body: { status: 'ok' } };
    case 'GET /v1/models': {
      const card: ModelCard = { id: served, object: 'model', owned_by: 'toolformer-ts', max_model_len: lm.maxLength, toolformer: { probe_logprobs: true } };
      return { status: 200, body: { object: 'list', data: [card] } };
    }
    case 'POST /v1/completions': {
      const body = await readJson(req);
      return { status: 200, body: await exclusive(() => completions(lm, served, body, o.distributions)) };
    }
    case 'POST /tokenize': {
      const body = (await readJson(req)) as { prompt?: unknown };
      if (typeof body?.prompt !== 'string') throw new BadRequest('prompt must be a string');
      const tokens = lm.encode(body.prompt);
      return { status: 200, body: { tokens, count: tokens.length, max_model_len: lm.maxLength } };
    }
    case 'POST /detokenize': {
      const body = (await readJson(req)) as { tokens?: unknown };
      if (!Array.isArray(body?.tokens) || !body.tokens.every((t) => Number.isInteger(t) && t >= 0)) throw new BadRequest('tokens must be a list of token ids');
      return { status: 200, body: { prompt: lm.decode(body.tokens as number[]) } };
    }
    default:
      throw new HttpError(404, `no route ${route}`);
  }
}

/** The request body parsed, refused past MAX_BODY_BYTES without reading on. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) throw new HttpError(413, `the body is ${declared} bytes, over ${MAX_BODY_BYTES}`);
  const parts: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > MAX_BODY_BYTES) throw new HttpError(413, `the body passed ${MAX_BODY_BYTES} bytes`);
    parts.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    throw new BadRequest('the body is not JSON');
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
