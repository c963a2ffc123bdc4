/**
 * The registry's tools as an MCP `ToolHost`: schemas from the tools, calls through the pipeline's own executor
 * (its concurrency, timeout, input and result caps, errors as values), so a tool reached over MCP runs under the
 * same limits as one reached from the pipeline.
 */
import { ToolExecutor, type ExecuteOptions } from '../../core/execute.ts';
import type { ToolRegistry } from '../../core/tools/registry.ts';
import { maxArgumentLength } from '../../core/tools/spec.ts';
import type { Tool } from '../../core/tools/tool.ts';
import type { HostOutcome, HostedTool, ObjectSchema, ToolHost } from './server.ts';

/** The property name of a one-argument tool's argument in its MCP schema. */
const ARGUMENT = 'input';

export function toolSchema(tool: Tool): ObjectSchema {
  if (tool.argument.syntax === 'none') return { type: 'object', properties: {}, additionalProperties: false };
  return {
    type: 'object',
    properties: { [ARGUMENT]: { type: 'string', description: tool.parameters.properties[tool.argument.property ?? '']?.description ?? '', maxLength: maxArgumentLength(tool) } },
    required: [ARGUMENT],
    additionalProperties: false,
  };
}

/** Arguments → the tool's one string input, or why they do not match the schema. */
function argumentOf(tool: Tool, args: Record<string, unknown>): { ok: true; input: string } | { ok: false; error: string } {
  const extra = Object.keys(args).filter((k) => tool.argument.syntax === 'none' || k !== ARGUMENT);
  if (extra.length > 0) return { ok: false, error: `${tool.name}: unexpected argument ${JSON.stringify(extra[0])}` };
  if (tool.argument.syntax === 'none') return { ok: true, input: '' };
  const value = args[ARGUMENT];
  if (value === undefined) return { ok: false, error: `${tool.name}: missing required argument "${ARGUMENT}"` };
  if (typeof value !== 'string') return { ok: false, error: `${tool.name}: argument "${ARGUMENT}" must be a string` };
  if (value.length > maxArgumentLength(tool)) return { ok: false, error: `${tool.name}: argument "${ARGUMENT}" is longer than ${maxArgumentLength(tool)} characters` };
  return { ok: true, input: value };
}

export interface RegistryHostOptions extends ExecuteOptions {
  /** "Today" for the Calendar, YYYY-MM-DD. @default the current UTC date */
  today?: () => string;
}

export function registryHost(registry: ToolRegistry, options: RegistryHostOptions = {}): ToolHost {
  const executor = new ToolExecutor(registry, { ...options, cacheSize: 0 });
  const today = options.today ?? (() => new Date().toISOString().slice(0, 10));
  const tools: HostedTool[] = registry.names.map((name) => {
    const tool = registry.get(name)!;
    return { name, description: tool.description, inputSchema: toolSchema(tool) };
  });
  return {
    tools,
    async call(name, args): Promise<HostOutcome> {
      const resolved = registry.resolve(name);
      if (!resolved.ok) return { kind: 'unknown_tool', error: resolved.error };
      const argument = argumentOf(resolved.tool, args);
      if (!argument.ok) return { kind: 'invalid_arguments', error: argument.error };
      const result = await executor.execute({ tool: name, input: argument.input }, { id: 'mcp', date: today() });
      return result.ok ? { kind: 'result', ok: true, value: result.value } : { kind: 'result', ok: false, error: result.error };
    },
  };
}
