/**
 * The pipeline's parts for the browser: the CLI's own assembly (pipeline/core/stages/parts.ts `createPipelineParts`) over
 * the tool specs the app was built with (tool-specs.ts), with what the browser has passed in — the onnxruntime-web
 * LM and the QA knowledge base — and no translation engine, so Translate answers with its "translation engine not installed" error result, which
 * the explorer shows as is.
 *
 * One addition for the explorer: the user's own call, proposed at its character offset beside the pipeline's
 * heuristic positions and proposals (its tool's document pre-filter is waived; it still passes the same registry
 * check, schema, leakage guard and scoring). Each spec is wrapped, so the stages stay the pipeline's own.
 */
import type { CausalLM } from '../../pipeline/core/lm/lm.ts';
import { createPipelineParts } from '../../pipeline/core/stages/parts.ts';
import type { PipelineParts } from '../../pipeline/core/stages/stages.ts';
import type { ToolResources, ToolRunner, ToolSpec } from '../../pipeline/core/tools/spec.ts';

/** A call the user typed (set per explorer run). */
export interface OwnCall {
  tool: string;
  input: string;
  at: number;
}

export type BrowserParts = PipelineParts & { setOwn(own: OwnCall | null): void };

/** `specs`: the tools the app was built with (tool-specs.ts). */
export function browserParts(options: { lm: CausalLM; resources: ToolResources; specs: readonly ToolSpec[] }): BrowserParts {
  let own: OwnCall | null = null;
  const mine = (spec: ToolSpec) => (own && own.tool === spec.name ? own : null);
  const wrap = (spec: ToolSpec): ToolSpec => ({
    ...spec,
    // The user asked for this call: its tool's document pre-filter does not apply.
    prefilter: (doc) => (mine(spec) ? { pass: true, kind: 'own_call' } : (spec.prefilter?.(doc) ?? { pass: true })),
    // First, so the cap on proposals per position never drops it.
    propose: (prefix, doc, at) => {
      const inputs = spec.propose?.(prefix, doc, at) ?? [];
      const call = mine(spec);
      return call && call.at === at ? [call.input, ...inputs.filter((input) => input !== call.input)] : inputs;
    },
  });
  const base = createPipelineParts({ lm: options.lm, resources: options.resources, specs: options.specs.map(wrap) });
  return {
    ...base,
    // Kept beside the heuristic positions, whatever their cap.
    pinnedPositions: (tool) => (own && own.tool === tool ? [own.at] : []),
    setOwn(call) {
      own = call;
    },
  };
}

/**
 * `spec` with its runner made on first use (the executor's `load()` before a first call), once `more()` has
 * resolved the resources only this tool reads — so they are fetched when a call first needs them, not with the
 * model. A failed load is retried at the next call (the executor reports it as that call's error).
 */
export function onFirstUse(spec: ToolSpec, more: () => Promise<ToolResources>): ToolSpec {
  return {
    ...spec,
    create: (resources) => {
      let runner: Promise<ToolRunner> | null = null;
      const ready = (): Promise<ToolRunner> => (runner ??= more().then(async (extra) => {
        const made = spec.create({ ...resources, ...extra });
        await made.load?.();
        return made;
      }).catch((error: unknown) => {
        runner = null;
        throw error;
      }));
      return { load: async () => void (await ready()), run: async (input, context) => (await ready()).run(input, context) };
    },
  };
}
