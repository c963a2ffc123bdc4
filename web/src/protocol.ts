/**
 * Messages between the page (main.ts, model-client.ts) and the model worker (worker.ts).
 * Every request carries an `id`; the worker answers with any number of `progress` messages, then exactly one
 * `result` or `error` with the same id.
 */
import type { Dtype } from '../../pipeline/core/lm/dtypes.ts';
import type { ScoreRequest } from '../../pipeline/core/lm/lm.ts';
import type { BackendChoice, BackendPreference } from './backend.ts';
import type { ModelSourceSpec } from './model-source.ts';
import type { Analysis, AnalyzeParams, FillParams, FillResult, GoldenCase, GoldenResult, BenchResult } from './analysis-types.ts';
import type { ToolkenFeatures } from '../../pipeline/core/toolkens/examples.ts';
import type { GeneratedPiece } from '../../pipeline/core/generate/generate.ts';
import type { RankedTools } from './tool-ranker.ts';
import type { ToolkenGenerateParams, ToolkenNoteKind, ToolkenRows, ToolkenStrip } from './toolkens-jobs.ts';

export type Request =
  /**
   * `source`: the page's /models/<name>/ by URL, or a folder opened from disk (model-source.ts). `kvCache` "cpu"
   * keeps the decoder's cache in JavaScript even on WebGPU (?kv-cache=cpu, to compare with the gpu-buffer default).
   */
  | { id: number; type: 'load'; source: ModelSourceSpec; prefer: BackendPreference; dtype?: Dtype; threads?: number; kvCache?: 'cpu' }
  | { id: number; type: 'analyze'; params: AnalyzeParams }
  /** The explorer's τ_f went below its analysis' τ_min: score the L_b it lacks there (worker-explorer.ts). */
  | { id: number; type: 'fillCallOnly'; params: FillParams }
  | { id: number; type: 'golden'; cases: GoldenCase[] }
  /** Answered by a bench build only (worker-extras.ts): scoring and raw forward tokens/s. */
  | { id: number; type: 'bench'; batch: number; length: number; repeats: number }
  | { id: number; type: 'generate'; params: GenerateParams }
  /**
   * Only lm.score on the bench rows (pipeline/bench/browser-worker/bench-rows.ts, or `rows` as given: pipeline/bench/real-size.ts sends its
   * own), timed per call (the browser bench brackets it with process CPU readings). A bench build only.
   */
  | { id: number; type: 'benchScore'; batch: number; length: number; repeats: number; rows?: ScoreRequest[] }
  /** Toolkens (toolkens-jobs.ts): the page's model's digest, p(toolken) per token of a text, the features training reads. */
  | { id: number; type: 'modelDigest' }
  | { id: number; type: 'toolkenStrip'; text: string; toolkens: ToolkenRows; bias?: number }
  | { id: number; type: 'toolkenFeatures'; texts: string[]; tools: string[]; maxPositions: number; onlyToolkens: boolean }
  /** The explorer's tool ranking (tool-ranker.ts); needs no model: the page's ranking worker is asked only this. */
  | { id: number; type: 'rankTools'; text: string; withCatalog: boolean };

/** The Inference panel's request: generate with live tools (pipeline/core/generate/generate.ts) on `modelUrl`'s model. */
export interface GenerateParams {
  /** A model folder on the page's origin, or null for the page's own model (the one loaded, from disk too). */
  modelUrl: string | null;
  prompt: string;
  tools: boolean;
  topK: number;
  maxNewTokens: number;
  /** The Calendar's today, ISO. */
  date: string;
  /**
   * Calls from toolkens instead of " [" (ToolkenGPT, pipeline/core/toolkens/generate.ts, the CLI's `generate
   * --toolkens`): on the page's own model only (modelUrl null), which the worker checks against `modelDigest`.
   */
  toolkens?: ToolkenGenerateParams;
}

/**
 * A streamed piece of a generation: text the model wrote, a call's text ("[QA(…) ->") or an inserted result — the
 * generation's own text — or, with toolkens, a note that is not: a toolken fired and its call ran (`toolken`), or
 * its call failed and the next candidate is tried (`backoff`).
 */
export type PieceKind = GeneratedPiece['kind'] | ToolkenNoteKind;

export interface GenerateResult {
  prompt: string;
  text: string;
  calls: { tool: string; input: string; result?: string; error?: string }[];
  backend: string;
  modelId: string;
  ms: number;
  /** The generation's decoder forward passes, and how many kept the KV cache on the GPU (WebGPU gpu-buffer). */
  cache?: { forwards: number; onDevice: number };
}

export interface ResultOf {
  load: { choice: BackendChoice; modelId: string; dtype: Dtype; file: string; loadMs: number; tools: { name: string; description: string; examples: { text: string; at: number; input: string }[] }[] };
  analyze: Analysis;
  fillCallOnly: FillResult;
  golden: GoldenResult[];
  bench: BenchResult;
  generate: GenerateResult;
  benchScore: { seconds: number[]; tokens: number; threads: number };
  modelDigest: { digest: string; model: string; dtype: Dtype };
  toolkenStrip: ToolkenStrip;
  toolkenFeatures: { features: ToolkenFeatures; windows: number };
  rankTools: RankedTools;
}

export type Reply =
  | { id: number; type: 'progress'; stage: string; done: number; total: number }
  | { id: number; type: 'piece'; kind: PieceKind; text: string }
  | { id: number; type: 'result'; value: unknown }
  | { id: number; type: 'error'; message: string };
