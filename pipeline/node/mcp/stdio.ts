/**
 * stdio for the MCP server (spec 2025-06-18, "Transports › stdio"): newline-delimited JSON-RPC on stdin/stdout, logs on
 * stderr only. Shutdown per the spec's lifecycle: the client closes our stdin (or sends SIGTERM), we close the
 * server and exit — the SDK's transport does not watch for the end of stdin itself.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

/**
 * Serve `server` on this process's stdin/stdout; resolves when the client has gone and the server is closed. Every
 * transport or protocol error is one line on stderr (a malformed line, or a line over the SDK's buffer cap, which
 * also ends the session); a session ended by an error, not by the client, sets exit code 1.
 */
export async function serveStdio(server: Server): Promise<void> {
  const transport = new StdioServerTransport();
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
  // One line on stderr (the spec's place for logs) says what ended the session.
  const shutdown = (why: string) => () => {
    if (closing) return;
    closing = true;
    process.stderr.write(`toolformer mcp: ${why}, shutting down\n`);
    void server.close();
  };
  process.stdin.once('end', shutdown('the client closed stdin'));
  process.stdin.once('close', shutdown('the client closed stdin'));
  process.once('SIGTERM', shutdown('SIGTERM'));
  process.once('SIGINT', shutdown('SIGINT'));
  await server.connect(transport);
  await closed;
}
