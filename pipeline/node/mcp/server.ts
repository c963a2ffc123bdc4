/**
 * The MCP server: `tools/list` and `tools/call` over whatever `ToolHost` it is given (the registry's tools in
 * `toolformer mcp`). Built on the official SDK's low-level `Server`, which does the lifecycle (initialize, protocol
 * version and capability negotiation, ping, cancellation); the transports are in stdio.ts and http.ts.
 *
 * Errors follow the spec (2025-06-18, "Tools › Error Handling"): a tool's own failure is a normal result with
 * `isError: true` and a readable message (the model can read it and try again); an unknown tool or arguments that
 * do not match the tool's schema is a JSON-RPC error (-32602 Invalid params), and nothing runs.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type CallToolResult,
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';

/** A JSON Schema for a tool's arguments: MCP requires `type: "object"` at the top. */
export interface ObjectSchema {
  type: 'object';
  properties?: Record<string, object>;
  required?: string[];
}

export interface HostedTool {
  name: string;
  description: string;
  inputSchema: ObjectSchema;
}

/** What a `tools/call` came to. Only `result` runs a tool; the other two are protocol errors. */
export type HostOutcome =
  | { kind: 'result'; ok: true; value: string }
  | { kind: 'result'; ok: false; error: string }
  | { kind: 'unknown_tool'; error: string }
  | { kind: 'invalid_arguments'; error: string };

/** The tools a server offers, and one way to run them (validation, limits and dispatch are the host's). */
export interface ToolHost {
  readonly tools: readonly HostedTool[];
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<HostOutcome>;
}

export interface ServerInfo {
  name: string;
  version: string;
}

/** One SDK server over `host`. One per connection: the SDK binds a server to one transport. */
export function createMcpServer(host: ToolHost, info: ServerInfo): Server {
  const server = new Server(info, {
    capabilities: { tools: { listChanged: false } },
    instructions: `Tools of ${info.name}: ${host.tools.map((t) => t.name).join(', ')}. Tool failures come back as results with isError: true.`,
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: host.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const outcome = await host.call(name, args ?? {}, extra.signal);
    switch (outcome.kind) {
      case 'unknown_tool':
      case 'invalid_arguments':
        throw new McpError(ErrorCode.InvalidParams, outcome.error);
      case 'result':
        return outcome.ok
          ? { content: [{ type: 'text', text: outcome.value }] }
          : { content: [{ type: 'text', text: outcome.error }], isError: true };
    }
  });

  return server;
}
