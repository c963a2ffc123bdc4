/**
 * The pipeline's parts for the browser: the CLI's own assembly (pipeline/core/parts.ts `createPipelineParts`) with
 * what the browser has passed in — the onnxruntime-web LM and the QA knowledge base — and no translation engine,
 * so Translate answers with its "translation engine not installed" error result, which the explorer shows as is.
 *
 * One addition for the explorer: the user's own call, proposed at its character offset beside the pipeline's
 * heuristic positions and proposals (its tool's document pre-filter is waived; it still passes the same registry
 * check, leakage guard and scoring).
 */
import type { Doc } from '../../pipeline/core/document.ts';
import type { CausalLM } from '../../pipeline/core/lm.ts';
import { createPipelineParts } from '../../pipeline/core/parts.ts';
import type { PipelineParts } from '../../pipeline/core/stages.ts';
import type { KnowledgeBase } from '../../pipeline/core/tools/qa.ts';
import type { ToolRegistry } from '../../pipeline/core/tools/registry.ts';
import type { Tool } from '../../pipeline/core/tools/tool.ts';

/** A call the user typed (set per explorer run). */
export interface OwnCall {
  tool: string;
  input: string;
  at: number;
}

export type BrowserParts = PipelineParts & { registry: ToolRegistry; tools: Map<string, Tool>; setOwn(own: OwnCall | null): void };

export function browserParts(options: { lm: CausalLM; kb: KnowledgeBase }): BrowserParts {
  const base = createPipelineParts({ lm: options.lm, kb: options.kb });
  const tools = new Map(base.registry.names.map((name) => [name, base.registry.get(name)!]));
  let own: OwnCall | null = null;
  return {
    ...base,
    tools,
    setOwn(call) {
      own = call;
    },
    // The user asked for this call: its tool's document pre-filter does not apply.
    prefilter: (tool, doc) => (own && own.tool === tool ? { pass: true } : base.prefilter(tool, doc)),
    // The own call's position goes first, so the stage's cap on heuristic positions never drops it.
    heuristicPositions: (text, tool) => {
      const found = base.heuristicPositions(text, tool);
      return own && own.tool === tool ? [own.at, ...found.filter((at) => at !== own!.at)] : found;
    },
    propose: (tool: string, prefix: string, doc: Doc, at: number) => {
      const calls = base.propose(tool, prefix, doc, at);
      if (own && own.tool === tool && own.at === at && !calls.some((c) => c.input === own!.input)) {
        calls.push({ tool, input: own.input });
      }
      return calls;
    },
  };
}
