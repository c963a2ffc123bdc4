import { ToolExecutor } from './execute.ts';
import type { CausalLM } from '../lm/lm.ts';
import type { PipelineParts } from './stages.ts';
import { TOOL_SPECS, ToolRegistry } from '../tools/registry.ts';
import type { ToolResources, ToolSpec } from '../tools/spec.ts';

/**
 * The default assembly of the pipeline's parts — shared by the Node CLI and the web app. Each platform
 * passes in what only it has: the LM backend and the tools' resources (the knowledge base's contents, a
 * translation engine).
 */
export interface PartsOptions {
  lm: CausalLM;
  /** Handed to every tool's `create` (spec.ts): `kb`, `translationEngine`, `languageDetector`. */
  resources: ToolResources;
  /** @default TOOL_SPECS, the registry's list */
  specs?: readonly ToolSpec[];
  toolConcurrency?: number;
  toolTimeoutMs?: number;
}

export function createPipelineParts(options: PartsOptions): PipelineParts {
  const registry = new ToolRegistry(options.specs ?? TOOL_SPECS, options.resources);
  const executor = new ToolExecutor(registry, { concurrency: options.toolConcurrency, timeoutMs: options.toolTimeoutMs });
  return { registry, lm: options.lm, execute: (calls) => executor.executeAll(calls) };
}
