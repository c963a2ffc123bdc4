/**
 * The registry's tools as an MCP `ToolHost`: each tool's name, description and JSON Schema from its spec; a call's
 * arguments checked against that schema by the registry (the same compiled validator the pipeline uses), then run
 * through the pipeline's own executor (its concurrency, timeout, input and result caps, errors as values) — a tool
 * reached over MCP runs under the same limits as one reached from the pipeline.
 */
import { type ExecuteOptions, ToolExecutor } from '../../core/stages/execute.ts';
import type { ToolRegistry } from '../../core/tools/registry.ts';
import type { HostOutcome, HostedTool, ToolHost } from './server.ts';

export interface RegistryHostOptions extends ExecuteOptions {
  /** "Today" for the Calendar, YYYY-MM-DD. @default the current UTC date */
  today?: () => string;
}

export function registryHost(registry: ToolRegistry, options: RegistryHostOptions = {}): ToolHost {
  const executor = new ToolExecutor(registry, { ...options, cacheSize: 0 });
  const today = options.today ?? (() => new Date().toISOString().slice(0, 10));
  const tools: HostedTool[] = registry.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters }));
  return {
    tools,
    async call(name, args, signal): Promise<HostOutcome> {
      const resolved = registry.resolve(name);
      if (!resolved.ok) return { kind: 'unknown_tool', error: resolved.error };
      const invalid = registry.argumentsError(name, args);
      if (invalid) return { kind: 'invalid_arguments', error: `${name}: ${invalid}` };
      const property = resolved.tool.argument.property;
      const input = property === undefined ? '' : String(args[property]);
      // The client's signal: a cancelled request, or a client gone, stops its call (a catalog's worker thread too).
      const result = await executor.execute({ tool: name, input }, { id: 'mcp', date: today() }, signal);
      return result.ok ? { kind: 'result', ok: true, value: result.value } : { kind: 'result', ok: false, error: result.error };
    },
  };
}
