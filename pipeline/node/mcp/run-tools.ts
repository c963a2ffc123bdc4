/**
 * `annotate --mcp <server>…`: connect to every server at once, turn their tools into ToolSpecs (remote-specs.ts),
 * and say plainly what could not be used — a server that did not start, a tool whose schema does not fit the call
 * syntax — while the run goes on with the rest.
 */
import type { ToolSpec } from '../../core/tools/spec.ts';
import { type ConnectOptions, type McpConnection, connectMcp } from './client.ts';
import { remoteToolSpec } from './remote-specs.ts';

/** What config.json records of one server: its tools as the run uses them, what was skipped and why. */
export interface McpServerRecord {
  server: string;
  error?: string;
  tools?: { name: string; remoteName: string; description: string; parameters: ToolSpec['parameters'] }[];
  skipped?: { tool: string; error: string }[];
}

export interface McpTools {
  /** In server order, each server's tools in its listing order. */
  specs: ToolSpec[];
  servers: McpServerRecord[];
  /** Ends every connection (a stdio server gets its stdin closed, then SIGTERM). */
  close(): Promise<void>;
}

/**
 * @param taken names already in the run (the built-in tools): an MCP tool with one of them is refused.
 * @param warn one line per problem (the CLI prints them on stderr).
 */
export async function connectMcpTools(
  targets: readonly string[],
  taken: Iterable<string>,
  warn: (line: string) => void,
  options: ConnectOptions = {},
): Promise<McpTools> {
  const names = new Set(taken);
  const results = await Promise.all(targets.map((target) => connectMcp(target, options)));
  const connections: McpConnection[] = [];
  const specs: ToolSpec[] = [];
  const servers: McpServerRecord[] = [];
  for (const result of results) {
    if ('error' in result) {
      warn(`--mcp ${JSON.stringify(result.server)}: ${result.error}; going on without its tools`);
      servers.push({ server: result.server, error: result.error });
      continue;
    }
    connections.push(result);
    const record: McpServerRecord = { server: result.server, tools: [], skipped: [] };
    for (const tool of result.tools) {
      const r = remoteToolSpec(result, tool, names);
      if (!r.ok) {
        warn(`--mcp ${JSON.stringify(result.server)}: tool ${JSON.stringify(r.tool)} skipped: ${r.error}`);
        record.skipped!.push({ tool: r.tool, error: r.error });
        continue;
      }
      names.add(r.spec.name);
      specs.push(r.spec);
      record.tools!.push({ name: r.spec.name, remoteName: tool.name, description: r.spec.description, parameters: r.spec.parameters });
    }
    if (record.tools!.length === 0) warn(`--mcp ${JSON.stringify(result.server)}: no usable tools`);
    servers.push(record);
  }
  return {
    specs,
    servers,
    close: async () => {
      await Promise.allSettled(connections.map((c) => c.close()));
    },
  };
}
