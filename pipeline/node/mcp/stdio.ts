/**
 * stdio for the MCP server (spec 2025-06-18, "Transports › stdio"): newline-delimited JSON-RPC on stdin/stdout, logs on
 * stderr only. Shutdown per the spec's lifecycle: the client closes our stdin (or sends SIGTERM), we close the
 * server and exit — the SDK's transport does not watch for the end of stdin itself.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

/** Serve `server` on this process's stdin/stdout; resolves when the client has gone and the server is closed. */
export async function serveStdio(server: Server): Promise<void> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
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
