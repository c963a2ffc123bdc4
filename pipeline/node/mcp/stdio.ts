/**
 * stdio for the MCP server (spec 2025-06-18, "Transports › stdio"): newline-delimited JSON-RPC on stdin/stdout, logs on
 * stderr only. Shutdown per the spec's lifecycle: the client closes our stdin (or sends SIGTERM), we close the
 * server and exit — the SDK's transport does not watch for the end of stdin itself. The end of stdin first lets the
 * requests already read finish and answer on stdout (a client may close its side right after a `tools/call` and still
 * read the result; each tool call is bounded by its tool's time limit); a signal closes at once.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJSONRPCErrorResponse, isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * A transport that knows which of the client's requests are still unanswered: a request is in flight from the line
 * that brings it until its response (result or error) is written, or until the client cancels it
 * (`notifications/cancelled`: the SDK then writes nothing). `drained()` resolves once none is.
 */
export class InFlightTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private readonly inFlight = new Set<RequestId>();
  private waiting: (() => void)[] = [];

  constructor(private readonly inner: Transport) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      if (isJSONRPCRequest(message)) this.inFlight.add(message.id);
      if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') this.settle(message.params?.requestId as RequestId);
      this.onmessage?.(message, extra);
    };
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    try {
      await this.inner.send(message, options);
    } finally {
      if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) this.settle(message.id);
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Resolves when every request read so far has been answered (at once when none is open). */
  drained(): Promise<void> {
    return this.inFlight.size === 0 ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }

  private settle(id: RequestId | undefined): void {
    if (id === undefined || !this.inFlight.delete(id) || this.inFlight.size > 0) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}

/**
 * Serve `server` on this process's stdin/stdout; resolves when the client has gone and the server is closed. Every
 * transport or protocol error is one line on stderr (a malformed line, or a line over the SDK's buffer cap, which
 * also ends the session); a session ended by an error, not by the client, sets exit code 1.
 */
export async function serveStdio(server: Server): Promise<void> {
  const transport = new InFlightTransport(new StdioServerTransport());
  server.onerror = (error) => {
    process.stderr.write(`toolformer mcp: ${error.message}\n`);
  };
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => {
      // Closed with no shutdown asked for: the transport gave up (e.g. a line over its buffer cap).
      if (!closing) {
        process.stderr.write(`toolformer mcp: the stdio transport closed after an error, shutting down\n`);
        process.exitCode = 1;
      }
      resolve();
    };
  });
  let closing = false;
  // One line on stderr (the spec's place for logs) says what ended the session. The end of stdin waits for the
  // requests in flight (their answers are still read); a signal does not, even one that comes while they finish.
  const shutdown = (why: string, drain: boolean) => () => {
    if (closing && drain) return;
    process.stderr.write(`toolformer mcp: ${why}, ${closing ? 'not waiting for the calls in flight' : 'shutting down'}\n`);
    closing = true;
    void (drain ? transport.drained() : Promise.resolve()).then(() => server.close());
  };
  process.stdin.once('end', shutdown('the client closed stdin', true));
  process.stdin.once('close', shutdown('the client closed stdin', true));
  process.once('SIGTERM', shutdown('SIGTERM', false));
  process.once('SIGINT', shutdown('SIGINT', false));
  await server.connect(transport);
  await closed;
}
