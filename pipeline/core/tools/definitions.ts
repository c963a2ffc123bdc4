import type { ObjectSchema, ToolSpec } from './spec.ts';

/**
 * The tool definitions in the two common function-calling shapes, generated from the specs (`toolformer tools`):
 *   OpenAI   [{ type: "function", function: { name, description, parameters } }]
 *   MCP      tools/list entries { name, description, inputSchema }
 * Both carry the spec's own JSON Schema, so a call validated here is valid there.
 */
export interface OpenAiTool {
  type: 'function';
  function: { name: string; description: string; parameters: ObjectSchema };
}

export interface McpTool {
  name: string;
  description: string;
  inputSchema: ObjectSchema;
}

export function openAiTools(specs: readonly Pick<ToolSpec, 'name' | 'description' | 'parameters'>[]): OpenAiTool[] {
  return specs.map((s) => ({ type: 'function', function: { name: s.name, description: s.description, parameters: structuredClone(s.parameters) } }));
}

export function mcpTools(specs: readonly Pick<ToolSpec, 'name' | 'description' | 'parameters'>[]): McpTool[] {
  return specs.map((s) => ({ name: s.name, description: s.description, inputSchema: structuredClone(s.parameters) }));
}
