/**
 * The run plan: the annotate flags and the defaults (run-defaults.ts) → a validated config, then — once the MCP
 * servers have given their tools and the probes have run — one frozen record that holds it all: the resolved tool
 * list (MCP tools included), their thresholds, the probe verdicts, the model and the inputs. It is fixed before the
 * first document, written to config.json as it is, and read by everything after; nothing mutates it (it is frozen
 * deeply, so a write throws). Pure: the Node edge passes in what it measured.
 */
import { type AnnotateConfig, type CallPlacement, DEFAULT_TAU_F_FLOOR, type InputLimits, type ProbeVerdicts, validateConfig } from './config.ts';
import { defaultConfig } from './default-config.ts';
import type { Device } from './lm/devices.ts';
import type { LmContext } from './sampling/lm-context.ts';
import { DEFAULT_RETRIEVER, RETRIEVERS } from './retrieval/retriever.ts';
import { catalogNamed } from './tools/catalogs/index.ts';
import { TOOL_NAMES, TOOL_SPECS } from './tools/registry.ts';
import type { ToolSpec, ToolThresholds } from './tools/spec.ts';

/** The annotate flags that decide the config (the CLI's names; absent: the default). */
export interface RunFlags {
  /** Comma-separated; @default every registered tool */
  tools?: string;
  tauS?: number;
  tauF?: number;
  k?: number;
  m?: number;
  /** The search budget per document, tokens; 0: none. @default RUN_DEFAULTS.maxDocTokens */
  maxDocTokens?: number;
  seed: number;
  batchSize: number;
  concurrency: number;
  /** Milliseconds a tool call may run. @default RUN_DEFAULTS.toolTimeoutMs */
  toolTimeout?: number;
  lmProposals: boolean;
  /** Keep sampling even where samples never parse (turns the sampling gate off). */
  forceLmSampling?: boolean;
  /** What LM positions and samples condition on; `auto` decides by the bare-text probe. @default "auto" */
  lmContext?: 'auto' | LmContext;
  /** `--no-programmatic`: false (no heuristic positions, no programmatic proposers). */
  programmatic?: boolean;
  /** Top-k of LM sampling. @default RUN_DEFAULTS.topK */
  topK?: number;
  /** Counterfactual control margin, nats (absent: the default). */
  controlMargin?: number;
  /** `--no-control`: false. */
  control?: boolean;
  /**
   * The lowest τ_f the run's losses stay exact for, and stats' grid floor (config tauFFloor; absent: the default).
   * `tau-f`: the highest of the run's τ_f, so that each tool's τ_min is its own τ_f (only the L_b a verdict needs).
   */
  tauFFloor?: number | 'tau-f';
  /** Where a call sits when scored (config callPlacement; absent: the default, prefix, not recorded). */
  callPlacement?: CallPlacement;
  /** MCP servers whose tools the run adds: commands (stdio) or http(s) URLs. */
  mcp?: string[];
  /** A tool catalog whose tools the run adds, in this process (tools/catalogs/: mathjs). */
  catalog?: string;
  /** Each document goes only through the k tools retrieved for it (retrieval/); tools with a pre-filter keep theirs. */
  toolRetrieval?: number;
  /** The retriever for --tool-retrieval. @default DEFAULT_RETRIEVER */
  retriever?: string;
  /** The record field / Parquet column holding the text. @default "text" */
  textColumn?: string;
  /** The record field / Parquet column holding the id. @default "id" */
  idColumn?: string;
  /** The reader's byte budgets (config `inputLimits`): a record, a zstd window, one Parquet read. */
  maxRecordBytes?: number;
  maxZstdWindow?: number;
  maxRowGroupBytes?: number;
  /** Where the LM runs. @default "cpu" */
  device?: Device;
}

/** `inputLimits` from the budget flags, only those given (a default run's config.json stays as it was). */
function inputLimitsOf(flags: RunFlags): Partial<AnnotateConfig> {
  const given: [keyof InputLimits, string, number | undefined][] = [
    ['maxRecordBytes', '--max-record-bytes', flags.maxRecordBytes],
    ['maxZstdWindowBytes', '--max-zstd-window', flags.maxZstdWindow],
    ['maxRowGroupBytes', '--max-row-group-bytes', flags.maxRowGroupBytes],
  ];
  const limits: InputLimits = {};
  for (const [key, flag, value] of given) {
    if (value === undefined) continue;
    if (value < 1) throw new Error(`${flag} must be at least 1 byte (got ${value})`);
    limits[key] = value;
  }
  return Object.keys(limits).length > 0 ? { inputLimits: limits } : {};
}

/** Threshold flags (--tau-s, --tau-f, --k, --m, --control-margin) override every tool's, the MCP servers' included. */
function withThresholdFlags(t: ToolThresholds, flags: RunFlags): ToolThresholds {
  const out = { ...t };
  if (flags.tauS !== undefined) out.tauS = flags.tauS;
  if (flags.tauF !== undefined) out.tauF = flags.tauF;
  if (flags.k !== undefined) out.k = flags.k;
  if (flags.m !== undefined) out.m = flags.m;
  if (flags.controlMargin !== undefined) out.controlMargin = flags.controlMargin; // one margin for every tool
  return out;
}

/**
 * Flags → a validated config; a bad value is a one-line error naming the fix. `mcpSpecs`: the tools the MCP servers
 * gave (they join after the built-in ones, with their specs' thresholds and the threshold flags); absent before the
 * servers are connected, when an empty --tools is allowed if --mcp may still add some.
 */
export function planConfig(flags: RunFlags, mcpSpecs?: readonly ToolSpec[], catalogSpecs?: readonly ToolSpec[]): AnnotateConfig {
  const builtIn = (flags.tools ?? TOOL_NAMES.join(',')).split(',').map((t) => t.trim()).filter(Boolean);
  // A catalog's tools join after the built-in ones, then the MCP servers' (addedSpecs).
  const added = addedSpecs(flags, mcpSpecs, catalogSpecs);
  const specs = [...TOOL_SPECS, ...added];
  const config = defaultConfig({
    tools: [...builtIn, ...added.map((s) => s.name)],
    seed: flags.seed,
    batchSize: flags.batchSize,
    toolConcurrency: flags.concurrency,
    ...(flags.toolTimeout !== undefined && { toolTimeoutMs: flags.toolTimeout }),
    ...(flags.maxDocTokens !== undefined && { maxDocTokens: flags.maxDocTokens === 0 ? null : flags.maxDocTokens }),
    lmProposals: flags.lmProposals,
    ...(flags.forceLmSampling ? { samplingGate: null } : {}),
    // auto starts as prompt; the bare-text probe's verdict may turn it to bare in the plan (withVerdicts).
    lmContext: flags.lmContext === 'bare' ? 'bare' : 'prompt',
    programmatic: flags.programmatic !== false,
    ...(flags.topK !== undefined && { topK: flags.topK }),
    ...(flags.controlMargin !== undefined ? { controlMargin: flags.controlMargin } : {}),
    ...(flags.control === false ? { controlMargin: null } : {}),
    ...(typeof flags.tauFFloor === 'number' ? { tauFFloor: flags.tauFFloor } : {}),
    ...(flags.callPlacement !== undefined ? { callPlacement: flags.callPlacement } : {}),
    ...(flags.mcp?.length ? { mcp: [...flags.mcp] } : {}),
    ...(flags.catalog !== undefined ? { catalog: flags.catalog } : {}),
    ...(flags.toolRetrieval !== undefined ? { toolRetrieval: { k: flags.toolRetrieval, retriever: flags.retriever ?? DEFAULT_RETRIEVER } } : {}),
    // Only when given, so that a default run's config.json is unchanged.
    ...(flags.textColumn !== undefined || flags.idColumn !== undefined
      ? { inputColumns: { ...(flags.textColumn !== undefined && { text: flags.textColumn }), ...(flags.idColumn !== undefined && { id: flags.idColumn }) } }
      : {}),
    ...inputLimitsOf(flags),
    ...(flags.device !== undefined && flags.device !== 'cpu' ? { device: flags.device } : {}),
  }, specs);
  const planned = { ...config, thresholds: Object.fromEntries(Object.entries(config.thresholds).map(([tool, t]) => [tool, withThresholdFlags(t, flags)])) };
  // Recorded as the number it stands for, so config.json says what the run did.
  if (flags.tauFFloor === 'tau-f') planned.tauFFloor = Math.max(DEFAULT_TAU_F_FLOOR, ...planned.tools.map((tool) => planned.thresholds[tool]?.tauF ?? DEFAULT_TAU_F_FLOOR));
  // Checked here, not only in validateConfig, so that the message names the flag.
  if (mcpSpecs && planned.tools.length === 0) throw new Error('no tools: no --mcp server gave a usable tool and --tools is empty');
  if (flags.toolRetrieval !== undefined && !(Number.isInteger(flags.toolRetrieval) && flags.toolRetrieval >= 1)) {
    throw new Error(`--tool-retrieval must be a positive integer (got ${flags.toolRetrieval}): pass --tool-retrieval 5`);
  }
  if (flags.retriever !== undefined && flags.toolRetrieval === undefined) throw new Error('--retriever applies to --tool-retrieval <k> only');
  if (flags.retriever !== undefined && !RETRIEVERS.includes(flags.retriever)) throw new Error(`--retriever: unknown retriever ${JSON.stringify(flags.retriever)} (known: ${RETRIEVERS.join(', ')})`);
  const catalogToCome = flags.catalog !== undefined && catalogSpecs === undefined; // checked again once loaded
  if (planned.tools.length === 0 && !flags.mcp?.length && !catalogToCome) throw new Error(`no tools: pass --tools with some of ${TOOL_NAMES.join(', ')}, or --mcp <server>`);
  if (flags.batchSize < 1) throw new Error(`--batch-size must be ≥ 1 (got ${flags.batchSize}): pass --batch-size 16`);
  if (planned.toolTimeoutMs < 1) throw new Error(`--tool-timeout must be ≥ 1 ms (got ${planned.toolTimeoutMs}): pass --tool-timeout 30000`);
  if (flags.concurrency < 1) throw new Error(`--concurrency must be ≥ 1 (got ${flags.concurrency}): pass --concurrency 4`);
  const problem = validateConfig(planned, specs.map((s) => s.name));
  if (problem) throw new Error(problem);
  return planned;
}

/**
 * The tools a run adds to the built-in ones: its catalog's (--catalog: `catalogSpecs`, which the caller loaded with
 * catalogs/index.ts `load`; the name is checked here either way), then the MCP servers'.
 */
export function addedSpecs(flags: Pick<RunFlags, 'catalog'>, mcpSpecs?: readonly ToolSpec[], catalogSpecs?: readonly ToolSpec[]): ToolSpec[] {
  if (flags.catalog !== undefined) catalogNamed(flags.catalog);
  return [...(catalogSpecs ?? []), ...(mcpSpecs ?? [])];
}

/** What the probes before the run decided: the LM context (`--lm-context auto`) and their counts. */
export interface ProbeOutcome extends ProbeVerdicts {
  lmContext: LmContext;
}

/** config.json's `probeCache` (stages/probe-cache.ts): the key the verdicts were looked up under, and whether they came from the cache. */
export interface ProbeCacheNote {
  /** SHA-256 (hex) of what the verdicts depend on (probe-cache.ts probeKeyInputs). */
  key: string;
  cached: boolean;
}

/** The config with the probes' verdicts (a new object; config.json lists them after the settings). */
export function withVerdicts(config: AnnotateConfig, verdicts: ProbeOutcome): AnnotateConfig {
  return {
    ...config,
    lmContext: verdicts.lmContext,
    ...(verdicts.bareProbe && { bareProbe: verdicts.bareProbe }),
    ...(verdicts.samplingProbe && { samplingProbe: verdicts.samplingProbe }),
  };
}

/** What config.json records beside the config: the model and the platform's engines (the Node edge measures them). */
export interface RunMeta {
  model?: string;
  modelDtype?: string;
  /** A .gguf model scored on the exact-GELU llama.cpp build (`--llama-gelu exact`); absent: the prebuilt table build. */
  llamaGelu?: string;
  modelMaxLength?: number;
  translationEngine?: string;
  mcpServers?: unknown;
  versions?: Record<string, string>;
  [key: string]: unknown;
}

/**
 * The run, fixed before its first document: config.json's record, in its key order. Frozen deeply at run time (the
 * type stays plain so that the stages take its config as they take any other). `probeCache`: whether the probes'
 * verdicts in `config` came from the verdict cache, and its key (absent when no probe applies); outside `config`, so
 * a cached and a computed verdict make the same run (resume, shards and the queue compare `config`).
 */
export type RunPlan = Readonly<RunMeta & { inputs: string[]; inputsDigest: string; maxDocs: number | null; config: AnnotateConfig; probeCache?: ProbeCacheNote }>;

/** Freeze `value` and everything it holds (a write to the plan afterwards throws in strict code). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** The plan, frozen (a deep copy): `meta` first, then the inputs, --max-docs, the config and probeCache (config.json's order). */
export function freezePlan(meta: RunMeta, run: { inputs: readonly string[]; inputsDigest: string; maxDocs?: number; config: AnnotateConfig; probeCache?: ProbeCacheNote }): RunPlan {
  // A copy: the caller's objects stay its own (and writable); the plan shares nothing with them. probeCache last: a
  // run's config.json reads as before it existed up to there.
  const cache = run.probeCache ? { probeCache: run.probeCache } : {};
  return deepFreeze(structuredClone({ ...meta, inputs: [...run.inputs], inputsDigest: run.inputsDigest, maxDocs: run.maxDocs ?? null, config: run.config, ...cache }));
}
