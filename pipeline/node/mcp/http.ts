/**
 * Streamable HTTP for the MCP server (spec 2025-06-18, "Transports"): one endpoint, `/mcp`; POST carries JSON-RPC,
 * GET opens the server's SSE stream, DELETE ends a session. The SDK's `StreamableHTTPServerTransport` speaks the
 * protocol; this file decides, before any of it runs, whether a request may reach it at all:
 *
 *   1. Host header: when bound to a loopback address, only `localhost`, `127.0.0.1` or `[::1]` (DNS rebinding: a web
 *      page whose name resolves to 127.0.0.1 still sends its own name) → otherwise 403.
 *   2. Origin header (browsers send it): absent, or one of the allowed origins → otherwise 403.
 *   3. With a token: `Authorization: Bearer <token>` (compared in constant time) → otherwise 401 with
 *      `WWW-Authenticate: Bearer`; the body is not even read.
 *
 * Sessions: an `initialize` POST without a session id starts one (its own SDK server and transport, id in the
 * `Mcp-Session-Id` header); later requests carry the id; DELETE, server shutdown, or `idleMs` without a request ends
 * it. Clients often just drop the connection (the SDK client's close() sends no DELETE), so the table must not fill
 * with the dead: at the cap, a new `initialize` evicts the session idle the longest (no POST in flight; an open GET
 * stream does not count, or held-open streams would lock newcomers out); only when every session has a POST in
 * flight is it refused (503). An evicted client that comes back gets 404 and initializes again (the spec's way).
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type Server as HttpServer, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

export interface HttpOptions {
  /** 0 picks a free port (tests). */
  port: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** When set, every request needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Origins allowed besides http://localhost:<port>, http://127.0.0.1:<port> and http://[::1]:<port>. */
  allowedOrigins?: string[];
  /** Open sessions at most; at the cap an `initialize` evicts the oldest idle one, or gets 503 if none is idle. @default 32 */
  maxSessions?: number;
  /** A session with no request for this long is closed. @default 300_000 (5 min) */
  idleMs?: number;
  /** Milliseconds, for idleness (tests pass a fake clock). @default Date.now */
  now?: () => number;
  /** Bytes per POST body. @default 1 MiB */
  maxBodyBytes?: number;
  /** Errors inside a session (the SDK's `onerror`), for a log. */
  onError?: (error: Error) => void;
}

export interface HttpHandle {
  /** e.g. http://127.0.0.1:40123/mcp */
  url: string;
  port: number;
  /** Stops accepting, ends every session and closes the listener. */
  close(): Promise<void>;
  /** Open sessions now. */
  sessionCount(): number;
  /** Close the sessions idle for `idleMs` or longer (also run on a timer); resolves with how many. */
  closeIdle(): Promise<number>;
}

/** A session and what says whether it is in use. */
interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** POSTs not answered yet. */
  inFlight: number;
  /** `now()` when the last request ended (or began). */
  lastActive: number;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
const isLoopback = (host: string) => host === 'localhost' || host === '::1' || host.startsWith('127.');
/** Whether binding `host` serves this machine only. */
export const isLoopbackHost = isLoopback;

export const ENDPOINT = '/mcp';

/** Serve `newServer()` (one per session) over Streamable HTTP. Resolves once listening. */
export async function serveHttp(newServer: () => Server, options: HttpOptions): Promise<HttpHandle> {
  const bindHost = options.host ?? '127.0.0.1';
  const idleMs = options.idleMs ?? 300_000;
  const sessions = new SessionTable(newServer, {
    maxSessions: options.maxSessions ?? 32,
    idleMs,
    now: options.now ?? Date.now,
    onError: options.onError,
  });
  const gate: Gate = {
    bindHost,
    allowedOrigins: new Set<string>(), // filled once the port is known
    expectedAuth: options.token === undefined ? undefined : Buffer.from(`Bearer ${options.token}`),
  };
  const maxBodyBytes = options.maxBodyBytes ?? 1 << 20;

  const http = createServer((req, res) => {
    handle(req, res, gate, sessions, maxBodyBytes).catch((error: unknown) => {
      options.onError?.(error instanceof Error ? error : new Error(String(error)));
      if (!res.headersSent) jsonError(res, 500, -32603, 'Internal server error');
      else res.end();
    });
  });
  const port = await listen(http, options.port, bindHost);
  gate.allowedOrigins = new Set([
    `http://localhost:${port}`,
    `http://127.0.0.1:${port}`,
    `http://[::1]:${port}`,
    ...(options.allowedOrigins ?? []),
  ]);
  const shownHost = bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  // The idle sweep; unref'd: it never keeps the process alive by itself.
  const sweep = setInterval(() => void sessions.closeIdle(), Math.max(1000, Math.min(idleMs / 4, 60_000)));
  sweep.unref();

  return {
    url: `http://${shownHost}:${port}${ENDPOINT}`,
    port,
    sessionCount: () => sessions.size,
    closeIdle: () => sessions.closeIdle(),
    async close() {
      clearInterval(sweep);
      const closing = new Promise<void>((resolve) => http.close(() => resolve()));
      await sessions.closeAll();
      http.closeAllConnections();
      await closing;
    },
  };
}

/** Listen on `port` (0: a free one) at `host`; resolves with the port bound. */
async function listen(http: HttpServer, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  return (http.address() as AddressInfo).port;
}

/** One request at the endpoint: the gate, then POST (initialize or a session's message), GET / DELETE of a session. */
async function handle(req: IncomingMessage, res: ServerResponse, gate: Gate, sessions: SessionTable, maxBodyBytes: number): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://placeholder');
  if (url.pathname !== ENDPOINT) return jsonError(res, 404, -32000, `Not found: the MCP endpoint is ${ENDPOINT}`);
  const refusal = refuse(req, gate);
  if (refusal) {
    if (refusal.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
    return jsonError(res, refusal.status, -32000, refusal.message);
  }

  const sessionId = header(req, 'mcp-session-id');
  if (req.method === 'POST') {
    const body = await readJson(req, maxBodyBytes);
    if (!body.ok) {
      if (body.status === 413) res.setHeader('Connection', 'close'); // the unread rest of the body is dropped with it
      return jsonError(res, body.status, body.code, body.message);
    }
    if (sessionId === undefined && isInitializeRequest(body.value)) {
      if (sessions.full() && !(await sessions.evictOldestIdle())) {
        return jsonError(res, 503, -32000, `Too many open sessions (${sessions.maxSessions}), all in use`);
      }
      const transport = await sessions.open();
      return transport.handleRequest(req, res, body.value);
    }
    const session = sessions.get(sessionId);
    if (!session) return noSession(res, sessionId);
    sessions.track(session, res);
    return session.transport.handleRequest(req, res, body.value);
  }
  if (req.method === 'GET' || req.method === 'DELETE') {
    const session = sessions.get(sessionId);
    if (!session) return noSession(res, sessionId);
    // A GET stream stays open as long as the client wants: it marks the session active, not busy (32 held-open
    // streams must not lock every newcomer out).
    sessions.touch(session);
    return session.transport.handleRequest(req, res);
  }
  res.setHeader('Allow', 'GET, POST, DELETE');
  return jsonError(res, 405, -32000, 'Method not allowed');
}

/** What a request must pass before it reaches the protocol (the header comment's checks 1–3). */
interface Gate {
  bindHost: string;
  allowedOrigins: Set<string>;
  /** `Bearer <token>` as bytes; undefined when no token is required. */
  expectedAuth?: Buffer;
}

/** Host, Origin and token checks, in that order: the first that fails answers. */
function refuse(req: IncomingMessage, gate: Gate): { status: number; message: string } | undefined {
  if (isLoopback(gate.bindHost)) {
    const hostname = (header(req, 'host') ?? '').replace(/:\d+$/, '').toLowerCase();
    if (!LOOPBACK_NAMES.has(hostname)) return { status: 403, message: `Forbidden: Host ${JSON.stringify(hostname)} is not a loopback name` };
  }
  const origin = header(req, 'origin');
  if (origin !== undefined && !gate.allowedOrigins.has(origin)) {
    return { status: 403, message: `Forbidden: Origin ${JSON.stringify(origin)} is not allowed (pass --allow-origin)` };
  }
  if (gate.expectedAuth) {
    const given = Buffer.from(header(req, 'authorization') ?? '');
    if (given.length !== gate.expectedAuth.length || !timingSafeEqual(given, gate.expectedAuth)) {
      return { status: 401, message: 'Unauthorized: send Authorization: Bearer <token>' };
    }
  }
  return undefined;
}

/** The open sessions by id: each its own SDK server and transport; in use while a POST is in flight. */
class SessionTable {
  private readonly sessions = new Map<string, Session>();
  readonly maxSessions: number;

  constructor(
    private readonly newServer: () => Server,
    private readonly limits: { maxSessions: number; idleMs: number; now: () => number; onError?: (error: Error) => void },
  ) {
    this.maxSessions = limits.maxSessions;
  }

  get size(): number {
    return this.sessions.size;
  }

  full(): boolean {
    return this.sessions.size >= this.maxSessions;
  }

  get(id: string | undefined): Session | undefined {
    return id === undefined ? undefined : this.sessions.get(id);
  }

  /** The session was used now (a GET stream: active, not busy). */
  touch(session: Session): void {
    session.lastActive = this.limits.now();
  }

  /** A POST of `session` is under way until its response closes. */
  track(session: Session, res: ServerResponse): void {
    session.inFlight++;
    this.touch(session);
    res.once('close', () => {
      session.inFlight--;
      this.touch(session);
    });
  }

  /** A new session's transport; the session enters the table when the SDK assigns its id. */
  async open(): Promise<StreamableHTTPServerTransport> {
    const server = this.newServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void this.sessions.set(id, { transport, server, inFlight: 0, lastActive: this.limits.now() }),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    transport.onerror = (error) => this.limits.onError?.(error);
    await server.connect(transport);
    return transport;
  }

  /** Close the session idle the longest; false when every session has a request in flight. */
  async evictOldestIdle(): Promise<boolean> {
    let oldest: [string, Session] | undefined;
    for (const entry of this.sessions) if (entry[1].inFlight === 0 && (!oldest || entry[1].lastActive < oldest[1].lastActive)) oldest = entry;
    if (!oldest) return false;
    await this.close(...oldest);
    return true;
  }

  /** Close the sessions idle for `idleMs` or longer; resolves with how many. */
  async closeIdle(): Promise<number> {
    const idle = [...this.sessions].filter(([, s]) => s.inFlight === 0 && this.limits.now() - s.lastActive >= this.limits.idleMs);
    await Promise.all(idle.map(([id, s]) => this.close(id, s)));
    return idle.length;
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.sessions.values()].map(({ server }) => server.close()));
    this.sessions.clear();
  }

  private async close(id: string, session: Session): Promise<void> {
    this.sessions.delete(id);
    await session.server.close().catch((error: unknown) => this.limits.onError?.(error instanceof Error ? error : new Error(String(error))));
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function noSession(res: ServerResponse, sessionId: string | undefined): void {
  if (sessionId === undefined) return jsonError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id (start with initialize)');
  return jsonError(res, 404, -32001, 'Session not found: initialize again');
}

function jsonError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

type Body = { ok: true; value: unknown } | { ok: false; status: number; code: number; message: string };

/**
 * The POST body as JSON, at most `limit` bytes: a longer one (declared or streamed) is answered 413 and the
 * connection closed after the answer, never buffered whole.
 */
function readJson(req: IncomingMessage, limit: number): Promise<Body> {
  const tooLarge: Body = { ok: false, status: 413, code: -32600, message: `Request body over ${limit} bytes` };
  if (Number(header(req, 'content-length') ?? 0) > limit) {
    req.pause();
    return Promise.resolve(tooLarge);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData).off('end', onEnd);
      req.pause();
      resolve(tooLarge);
    };
    const onEnd = () => {
      try {
        resolve({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      } catch {
        resolve({ ok: false, status: 400, code: -32700, message: 'Parse error: the body is not JSON' });
      }
    };
    req.on('data', onData).on('end', onEnd).on('error', () => resolve({ ok: false, status: 400, code: -32700, message: 'Request body unreadable' }));
  });
}
