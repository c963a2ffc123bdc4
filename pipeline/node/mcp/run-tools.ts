/**
 * `annotate --mcp <server>…`: connect to every server at once, turn their tools into ToolSpecs (remote-specs.ts),
 * and say plainly what could not be used — a server that did not start, a tool whose schema does not fit the call
 * syntax, a server that stops answering mid-run — while the run goes on with the rest.
 */
import type { ToolSpec } from '../../core/tools/spec.ts';
import { type ConnectOptions, type McpBreach, type McpConnection, connectMcp } from './client.ts';
import { remoteToolSpec } from './remote-specs.ts';

/** What config.json records of one server: its tools as the run uses them, what was skipped and why. */
export interface McpServerRecord {
  server: string;
  error?: string;
  tools?: { name: string; remoteName: string; description: string; parameters: ToolSpec['parameters'] }[];
  skipped?: { tool: string; error: string }[];
  /** The listing budget that cut its tools (McpBudgets), as said on stderr. */
  cut?: string;
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
    const label = `--mcp ${JSON.stringify(result.server)}`;
    const record: McpServerRecord = { server: result.server, tools: [], skipped: [] };
    // Budget breaches: a cut listing is one line now (and recorded in config.json); results cut and calls stopped
    // are one line with their counts when the run ends (close), each call a tool_error in calls.jsonl.
    result.onBreach = (kind, line) => {
      if (kind !== 'tools' && kind !== 'pages') return;
      warn(`${label}: ${line}`);
      record.cut = line;
    };
    for (const skipped of result.skipped ?? []) {
      warn(`${label}: tool ${JSON.stringify(skipped.tool)} skipped: ${skipped.error}`);
      record.skipped!.push(skipped);
    }
    const guarded = stopWhenUnreachable(result, warn);
    for (const tool of result.tools) {
      const r = remoteToolSpec(guarded, tool, names);
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
      for (const c of connections) {
        const counts = Object.entries(c.breaches ?? {}).filter(([kind]) => kind === 'message-bytes' || kind === 'call-time');
        if (counts.length > 0) warn(`--mcp ${JSON.stringify(c.server)}: budget breaches in this run: ${counts.map(([kind, n]) => `${n} ${BREACH_NAMES[kind as McpBreach]}`).join(', ')} (tool_error in calls.jsonl)`);
      }
      await Promise.allSettled(connections.map((c) => c.close()));
    },
  };
}

const BREACH_NAMES: Record<McpBreach, string> = { tools: 'listings cut', pages: 'listings cut', 'message-bytes': 'messages over maxMessageBytes cut', 'call-time': 'calls over their time stopped' };

/** Calls in a row that timed out (or found the server gone) before a server's tools are not called again. */
export const UNREACHABLE_AFTER = 3;

/**
 * A connection that gives up on its server once it has stopped answering: after UNREACHABLE_AFTER calls in a row
 * time out (the executor aborts them), or at once when the server process has exited, every later call of its tools
 * is an immediate error value naming the server — one stderr line, instead of a timeout per call for the rest of
 * the run. An answer, even an error answer (`isError`, bad arguments), resets the count.
 */
export function stopWhenUnreachable(connection: McpConnection, warn: (line: string) => void, limit = UNREACHABLE_AFTER): McpConnection {
  let failures = 0;
  let stopped: string | undefined;
  return {
    server: connection.server,
    tools: connection.tools,
    close: () => connection.close(),
    async call(name, args, options) {
      if (stopped) return { ok: false, error: stopped };
      const result = await connection.call(name, args, options);
      if (result.ok) {
        failures = 0;
        return result;
      }
      if (/MCP server has exited/.test(result.error)) failures = limit;
      else if (options.signal?.aborted || /no answer within/.test(result.error)) failures++;
      else failures = 0;
      if (failures >= limit && !stopped) {
        stopped = `MCP server ${JSON.stringify(connection.server)} stopped answering (${result.error}); its tools are not called again in this run`;
        warn(`--mcp ${JSON.stringify(connection.server)}: stopped answering after ${failures} failed calls in a row (last: ${result.error}); its tools are not called again in this run, which goes on`);
      }
      return result;
    },
  };
}
