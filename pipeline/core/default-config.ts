/**
 * The run's defaults for a list of tools: run-defaults.ts's table and each tool's own thresholds → an AnnotateConfig.
 * Apart from config.ts (the settings' shape and checks, which know tools only through the ToolSpec type) because
 * this is where the concrete tool list, the registry's, enters; the dependency rule core-config-knows-no-tool keeps
 * config.ts free of it.
 */
import type { AnnotateConfig } from './config.ts';
import { RUN_DEFAULTS } from './run-defaults.ts';
import { DEFAULT_SAMPLING_GATE } from './sampling/sampling-gate.ts';
import { TOOL_SPECS } from './tools/registry.ts';
import type { ToolSpec } from './tools/spec.ts';

/** The defaults (run-defaults.ts) for the tools of `specs` (@default TOOL_SPECS, the registry's list), with `overrides`. */
export function defaultConfig(overrides: Partial<AnnotateConfig> = {}, specs: readonly ToolSpec[] = TOOL_SPECS): AnnotateConfig {
  const d = RUN_DEFAULTS;
  return {
    tools: specs.map((s) => s.name),
    thresholds: Object.fromEntries(specs.map((s) => [s.name, { ...s.thresholds }])),
    seed: d.seed,
    contextTokens: d.contextTokens,
    windowTokens: d.windowTokens,
    maxDocTokens: d.maxDocTokens,
    batchSize: d.batchSize,
    maxCallTokens: d.maxCallTokens,
    maxSampleTokens: d.maxSampleTokens,
    temperature: d.temperature,
    heuristicPositions: d.heuristicPositions,
    lmProposals: d.lmProposals,
    lmContext: d.lmContext,
    programmatic: d.programmatic,
    topK: d.topK,
    samplingGate: { ...DEFAULT_SAMPLING_GATE },
    controlMargin: d.controlMargin,
    toolConcurrency: d.toolConcurrency,
    toolTimeoutMs: d.toolTimeoutMs,
    ...overrides,
  };
}
