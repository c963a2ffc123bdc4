import type { Device } from './lm/devices.ts';
import { CALL_PLACEMENTS, type CallPlacement } from './run-defaults.ts';
export type { CallPlacement };
import type { LmContext } from './sampling/lm-context.ts';
import type { SamplingCounts, SamplingGate } from './sampling/sampling-gate.ts';
import type { ToolThresholds } from './tools/spec.ts';

export { PAPER_DEFAULTS, type ToolThresholds } from './tools/spec.ts';

/**
 * Run configuration. Every field is written to the run's config.json, so a run can be reproduced.
 * Defaults are the paper's (Appendix A): τ_s 0.05, τ_f 1.0, k 5, m 5 unless a tool's spec says otherwise
 * (Calculator and MT, our Translate: τ_s 0, k 20, m 10, τ_f 0.5).
 */
export interface AnnotateConfig extends ProbeVerdicts {
  tools: string[];
  /** Per tool; a CLI flag such as --tau-f overrides the value for every tool. */
  thresholds: Record<string, ToolThresholds>;
  seed: number;
  /** Text tokens kept before a position when scoring. */
  contextTokens: number;
  /** Text tokens per window when computing p_i (also capped by the model's length). */
  windowTokens: number;
  /**
   * The search budget per document, tokens (`--max-doc-tokens`): pre-filters, p_i, heuristic positions and proposals
   * look at the document's first this many tokens only (cut back to a word boundary), so one huge document cannot hold
   * a worker for minutes; the whole text is still written out, and a cut document is counted in stats.json
   * (`searchBudget`). null: the whole text is searched (`--max-doc-tokens 0`).
   */
  maxDocTokens: number | null;
  /** Sequences per forward pass. */
  batchSize: number;
  /** Longest call text e(c, r) that is scored, tokens (longer ones are rejected as call_too_long). */
  maxCallTokens: number;
  /**
   * Longest call the LM may sample, tokens (a call that has not closed by then is "unclosed_call"). The QA
   * template questions take 16–25 tokens of the bundled tokenizer, "]" included.
   */
  maxSampleTokens: number;
  /**
   * Stop an LM sample as soon as its text can no longer parse as a call (call-syntax canStillParse), as the sampling
   * probe does: it is rejected either way, sooner; its raw text is the prefix up to the cut and its reason
   * unclosed_call. Other rows' samples are unchanged (per-row random streams). The web explorer sets it; absent: off,
   * so the CLI's calls.jsonl keeps each sample's full text.
   */
  stopUnparsableSamples?: boolean;
  /** Sampling temperature for LM-proposed calls. */
  temperature: number;
  /** Positions from heuristics (before numbers, dates, entities) beside the LM's, at most this many per tool. */
  heuristicPositions: number;
  /** Whether the LM samples calls (m per position); programmatic proposers run regardless. */
  lmProposals: boolean;
  /**
   * What the LM's positions and samples are conditioned on (sampling/lm-context.ts): `prompt`, the tool's prompt
   * P(x) and the window (paper §2, for a model that has never seen a call); `bare`, the text before the position
   * only — p(" [" | x_{1:i−1}) and samples from x_{1:i−1} " [" — for a model finetuned on calls, which writes them
   * inline (issue 21). The CLI's `--lm-context auto` decides by a probe on the bare text (`bareProbe`).
   */
  lmContext: LmContext;
  /** Heuristic positions and the tools' programmatic proposers (`--no-programmatic`: false; every call the LM's). */
  programmatic: boolean;
  /** Top-k of LM sampling (positions' calls and the probes). */
  topK: number;
  /**
   * Do not LM-sample a tool whose probe samples do not parse (sampling-gate.ts); null samples every tool
   * (`--force-lm-sampling`).
   */
  samplingGate: SamplingGate | null;
  /**
   * The counterfactual control (distractor.ts): a call that reaches τ_f is kept only if its true result beats a
   * distractor of the same tool by this many nats of L_c; null: no control (`--control-margin <nats>`).
   */
  controlMargin: number | null;
  /**
   * The lowest τ_f any reader of the run may judge its stored losses at, nats (`--tau-f-floor`: e.g. −5 to re-judge
   * below stats.json's grid later, or the tools' τ_f to score only the L_b a verdict needs): L_b is scored only for
   * calls whose L_a − L_c reaches τ_min = min(this, the tool's τ_f) (two-pass scoring, scoring.ts); below it a call's
   * usefulness is only bounded (`usefulnessAtMost`), and stats.json's grid counts it as `undecided` at the τ_f its
   * bound reaches. Kept calls never depend on it. Absent: DEFAULT_TAU_F_FLOOR, stats.json's first reachTauF value, so
   * the grid stays exact and a default run's config.json is as it was.
   */
  tauFFloor?: number;
  /**
   * Where a call sits when its losses are scored (`--call-placement`): `prefix`, before the whole window (the paper's
   * footnote 3: its model has never seen a call; scoring.ts), or `inline`, between x_{1:i−1} and x_i as x* writes it,
   * for a model finetuned on calls (inline-scoring.ts: x_{1:i−1} forwarded once per position). Absent: prefix, so a
   * default run's config.json is as it was.
   */
  callPlacement?: CallPlacement;
  /** Concurrent tool calls and the per-call timeout, ms. */
  toolConcurrency: number;
  toolTimeoutMs: number;
  /** MCP servers whose tools the run adds (`--mcp`: commands or URLs), as given; their tools are in `tools`. */
  mcp?: string[];
  /** A tool catalog whose tools the run adds (`--catalog`, core/tools/catalogs/); its tools are in `tools`. */
  catalog?: string;
  /**
   * `--tool-retrieval k`: each document goes only through the k tools a retriever ranks first for it
   * (core/retrieval/); tools with a pre-filter keep theirs instead. Absent: every tool sees every document.
   */
  toolRetrieval?: { k: number; retriever: string };
  /**
   * Which record fields / Parquet columns hold the text and the id (`--text-column`, `--id-column`); absent: `text`
   * and `id`. Part of the config because it changes what is read (a resume must use the same).
   */
  inputColumns?: { text?: string; id?: string };
  /** The reader's byte budgets (`--max-record-bytes` …); absent: the defaults. Part of the config: it changes what is read. */
  inputLimits?: InputLimits;
  /**
   * Where the LM runs (`--device`: webgpu, cuda); absent: the CPU, so a default run's config.json is as it was. Part of
   * the config, so that every worker of the run (pool, shard, queue) loads the model on the device the run chose, and a
   * resume uses the same (devices agree within float rounding, not bit for bit).
   */
  device?: Exclude<Device, 'cpu'>;
}

/** What one input record or decoding step may cost, bytes; each breach is one bad record or one refusal line. */
export interface InputLimits {
  /** The largest record: a JSONL line (after decompression), a .txt file, a Parquet text cell. @default 4 MiB */
  maxRecordBytes?: number;
  /** The largest window a .zst frame may declare (the decoder allocates it). @default 8 MiB */
  maxZstdWindowBytes?: number;
  /** Decoded bytes of one Parquet read: a bigger row group is read in slices of rows; a page over it is refused. @default 128 MiB */
  maxRowGroupBytes?: number;
}

/**
 * What the probes before a run found (sampling-probe.ts), measured once by the CLI before the first document and part
 * of the frozen run plan (run-plan.ts) — so every process of the run decides alike. Never set by a flag.
 */
export interface ProbeVerdicts {
  /** The bare-text probe's counts per tool, when the CLI ran it to decide `lmContext`. */
  bareProbe?: Record<string, SamplingCounts>;
  /** The sampling probe's counts per tool; absent: no probe, every tool is sampled. */
  samplingProbe?: Record<string, SamplingCounts>;
}

/** config.tauFFloor when absent, nats: the first value of stats.json's reachTauF grid (stats.ts TAU_F_GRID). */
export const DEFAULT_TAU_F_FLOOR = 0;

/** Check ranges; returns the first problem as a one-line message naming the fix, or null. */
export function validateConfig(config: AnnotateConfig, knownTools: readonly string[]): string | null {
  for (const tool of config.tools) {
    if (!knownTools.includes(tool)) return `unknown tool "${tool}": use one of ${knownTools.join(', ')}`;
    const t = config.thresholds[tool];
    if (!t) return `no thresholds for tool "${tool}"`;
    if (!(t.tauS >= 0 && t.tauS <= 1)) return `τ_s must be in [0, 1] (got ${t.tauS}): pass --tau-s 0.05`;
    if (!Number.isFinite(t.tauF)) return `τ_f must be a number (got ${t.tauF}): pass --tau-f 1`;
    if (!(Number.isInteger(t.k) && t.k >= 0 && t.k <= 1000)) return `k must be an integer in [0, 1000] (got ${t.k})`;
    if (!(Number.isInteger(t.m) && t.m >= 0 && t.m <= 100)) return `m must be an integer in [0, 100] (got ${t.m})`;
  }
  if (!(config.contextTokens >= 1)) return `contextTokens must be ≥ 1`;
  if (config.maxDocTokens !== null && !(Number.isInteger(config.maxDocTokens) && config.maxDocTokens >= 1)) {
    return `the search budget must be a whole number of tokens ≥ 1 (got ${config.maxDocTokens}): pass --max-doc-tokens 8192, or 0 for none`;
  }
  if (!(config.batchSize >= 1)) return `batch size must be ≥ 1 (got ${config.batchSize})`;
  if (config.lmContext !== 'prompt' && config.lmContext !== 'bare') return `LM context must be prompt or bare (got ${String(config.lmContext)}): pass --lm-context auto`;
  if (!(Number.isInteger(config.topK) && config.topK >= 1)) return `top-k must be an integer ≥ 1 (got ${config.topK})`;
  if (config.tauFFloor !== undefined && !Number.isFinite(config.tauFFloor)) return `τ_f floor must be a number of nats (got ${config.tauFFloor}): pass --tau-f-floor -5`;
  if (config.callPlacement !== undefined && !CALL_PLACEMENTS.includes(config.callPlacement)) return `call placement must be ${CALL_PLACEMENTS.join(' or ')} (got ${String(config.callPlacement)}): pass --call-placement inline`;
  if (config.controlMargin !== null && !Number.isFinite(config.controlMargin)) return `control margin must be a number of nats (got ${config.controlMargin}): pass --control-margin 0.5`;
  const gate = config.samplingGate;
  if (gate && !(Number.isInteger(gate.minSamples) && gate.minSamples >= 1 && gate.minParseRate >= 0 && gate.minParseRate <= 1)) return 'sampling gate: minSamples must be an integer ≥ 1 and minParseRate in [0, 1]';
  return null;
}
