import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AnnotateConfig } from '../../core/config.ts';
import type { CausalLM } from '../../core/lm/lm.ts';
import { createPipelineParts } from '../../core/stages/parts.ts';
import type { PipelineParts } from '../../core/stages/stages.ts';
import { addedSpecs } from '../../core/run-plan.ts';
import { TOOL_SPECS } from '../../core/tools/registry.ts';
import type { ToolSpec } from '../../core/tools/spec.ts';
import type { LanguageDetector } from '../../core/tools/translate/translate.ts';
import { createApertiumEngine } from './apertium.ts';
import { createCompactEldDetector } from './eld-detector.ts';
import { toolRetrievalFor, userIndexCache } from './retrieval.ts';

export const KB_PATH = resolve(import.meta.dirname, '../../data/kb.json');

/**
 * What the Node edge hands the tools: the knowledge base read from disk (`kb`) and eld's detector with its database
 * read as JSON (`languageDetector`, eld-detector.ts: ~134 MiB less resident per process than evaluating eld/medium).
 */
export function nodeResources(): { kb: unknown; languageDetector: LanguageDetector } {
  return { kb: readKb(), languageDetector: createCompactEldDetector() };
}

/** The bundled knowledge base (pipeline/data/kb.json), parsed. */
export const readKb = (): unknown => JSON.parse(readFileSync(KB_PATH, 'utf8'));

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

/**
 * The catalog `name`'s tools with their calls in worker threads (isolated-calls.ts: a heap limit and a deadline per
 * call; idle threads do not hold the process), one pool per process. Its library is imported only now.
 */
export async function loadIsolatedCatalog(name: string): Promise<readonly ToolSpec[]> {
  const [{ catalogNamed }, { isolateCatalog }] = await Promise.all([import('../../core/tools/catalogs/index.ts'), import('./isolated-calls.ts')]);
  const catalog = catalogNamed(name);
  return catalog.load(isolateCatalog(catalog, { workers: 2 }));
}

/**
 * The parts a run's config asks for, built the same way in every process of the run (this one, each --workers child,
 * a --shard, a --queue worker): the built-in tools, then config.catalog's (rebuilt from its name: a catalog is code
 * in this package, not a connection), then `mcpSpecs` (MCP servers' tools: connected in the first process only), and
 * with config.toolRetrieval the retriever over them, built once here (its dense index read from the user's cache when
 * an earlier process of this run, or an earlier run, stored it). `model`: the LM folder the dense retriever reads.
 */
export async function createRunParts(
  lm: CausalLM,
  config: AnnotateConfig,
  model: string,
  mcpSpecs?: readonly ToolSpec[],
  /** config.catalog's tools when the caller has loaded them already (else loaded here: catalogs/index.ts load). */
  catalogSpecs?: readonly ToolSpec[],
): Promise<{ parts: PipelineParts; translation: string }> {
  const catalog = catalogSpecs ?? (config.catalog === undefined ? undefined : await loadIsolatedCatalog(config.catalog));
  const added = addedSpecs(config, mcpSpecs, catalog);
  const created = await createNodeParts(lm, config, added.length > 0 ? [...TOOL_SPECS, ...added] : undefined);
  if (config.toolRetrieval) created.parts.retrieveTools = await toolRetrievalFor(created.parts.registry, config, model, userIndexCache());
  return created;
}
