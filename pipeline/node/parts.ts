import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AnnotateConfig } from '../core/config.ts';
import type { CausalLM } from '../core/lm/lm.ts';
import { createPipelineParts } from '../core/stages/parts.ts';
import type { PipelineParts } from '../core/stages/stages.ts';
import type { ToolSpec } from '../core/tools/spec.ts';
import { createApertiumEngine } from './apertium.ts';

export const KB_PATH = resolve(import.meta.dirname, '../data/kb.json');

/** What the Node edge hands the tools: the knowledge base read from disk (`kb`). */
export function nodeResources(): { kb: unknown } {
  return { kb: JSON.parse(readFileSync(KB_PATH, 'utf8')) };
}

/** The Node edge's parts: the knowledge base read from disk and Apertium as the translation engine. */
export async function createNodeParts(
  lm: CausalLM,
  config: Pick<AnnotateConfig, 'toolConcurrency' | 'toolTimeoutMs'>,
  specs?: readonly ToolSpec[],
): Promise<{ parts: PipelineParts; translation: string }> {
  const engine = await createApertiumEngine();
  const parts = createPipelineParts({
    lm,
    resources: { ...nodeResources(), translationEngine: engine },
    specs,
    toolConcurrency: config.toolConcurrency,
    toolTimeoutMs: config.toolTimeoutMs,
  });
  const translation = engine.unavailable ? `none (${engine.unavailable})` : `apertium: ${Object.keys(engine.modes).join(', ')}`;
  return { parts, translation };
}
