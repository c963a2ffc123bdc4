import type { Doc } from './document.ts';
import { ToolExecutor } from './execute.ts';
import { heuristicPositions } from './heuristic-positions.ts';
import { leaks } from './leakage.ts';
import type { CausalLM } from './lm.ts';
import { prefilter } from './prefilter.ts';
import { DEFAULT_PROMPTS, type ToolPrompt } from './prompts.ts';
import { type Proposer, defaultProposers } from './proposers/index.ts';
import type { PipelineParts } from './stages.ts';
import type { KnowledgeBase } from './tools/qa.ts';
import { ToolRegistry, createDefaultTools } from './tools/registry.ts';
import type { LanguageDetector, TranslationEngine } from './tools/translate.ts';

/**
 * The default assembly of the pipeline's parts — shared by the Node CLI and the web app. Each platform
 * passes in what only it has: the LM backend, the knowledge base's contents, a translation engine.
 */
export interface PartsOptions {
  lm: CausalLM;
  kb: KnowledgeBase;
  translationEngine?: TranslationEngine;
  languageDetector?: LanguageDetector;
  toolConcurrency?: number;
  toolTimeoutMs?: number;
  prompts?: Readonly<Record<string, ToolPrompt>>;
  proposers?: readonly Proposer[];
}

export function createPipelineParts(options: PartsOptions): PipelineParts & { registry: ToolRegistry } {
  const registry = new ToolRegistry(
    createDefaultTools({ kb: options.kb, translationEngine: options.translationEngine, languageDetector: options.languageDetector }),
  );
  const executor = new ToolExecutor(registry, { concurrency: options.toolConcurrency, timeoutMs: options.toolTimeoutMs });
  const proposers = options.proposers ?? defaultProposers;
  return {
    registry,
    lm: options.lm,
    tool: (name) => registry.get(name),
    execute: (calls) => executor.executeAll(calls),
    prompts: options.prompts ?? DEFAULT_PROMPTS,
    prefilter: (tool, doc) => prefilter(tool, doc),
    heuristicPositions: (text, tool) => heuristicPositions(text, tool),
    propose: (tool: string, prefix: string, doc: Doc, at: number) =>
      proposers.filter((p) => p.tool === tool).flatMap((p) => p.propose(prefix, doc, at)),
    leaks: (call, prefix) => leaks(call, prefix),
  };
}
