import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AnnotateConfig } from '../core/config.ts';
import type { CausalLM } from '../core/lm.ts';
import { createPipelineParts } from '../core/parts.ts';
import type { PipelineParts } from '../core/stages.ts';
import type { KnowledgeBase } from '../core/tools/qa.ts';
import { createApertiumEngine } from './apertium.ts';

export const KB_PATH = resolve(import.meta.dirname, '../data/kb.json');

/** The Node edge's parts: the knowledge base read from disk and Apertium as the translation engine. */
export async function createNodeParts(
  lm: CausalLM,
  config: Pick<AnnotateConfig, 'toolConcurrency' | 'toolTimeoutMs'>,
): Promise<{ parts: PipelineParts; translation: string }> {
  const kb = JSON.parse(readFileSync(KB_PATH, 'utf8')) as KnowledgeBase;
  const engine = await createApertiumEngine();
  const parts = createPipelineParts({
    lm,
    kb,
    translationEngine: engine,
    toolConcurrency: config.toolConcurrency,
    toolTimeoutMs: config.toolTimeoutMs,
  });
  const translation = engine.unavailable ? `none (${engine.unavailable})` : `apertium: ${Object.keys(engine.modes).join(', ')}`;
  return { parts, translation };
}
