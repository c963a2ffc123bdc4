/**
 * Messages between the page (main.ts, model-client.ts) and the model worker (worker.ts).
 * Every request carries an `id`; the worker answers with any number of `progress` messages, then exactly one
 * `result` or `error` with the same id.
 */
import type { Dtype } from '../../pipeline/core/lm/dtypes.ts';
import type { BackendChoice, BackendPreference } from './backend.ts';
import type { Analysis, AnalyzeParams, GoldenCase, GoldenResult, BenchResult } from './analysis-types.ts';

export type Request =
  | { id: number; type: 'load'; modelUrl: string; prefer: BackendPreference; dtype?: Dtype; threads?: number }
  | { id: number; type: 'analyze'; params: AnalyzeParams }
  | { id: number; type: 'golden'; cases: GoldenCase[] }
  | { id: number; type: 'bench'; batch: number; length: number; repeats: number }
  | { id: number; type: 'generate'; params: GenerateParams }
  /** Only lm.score on the bench rows, timed per call (the browser bench brackets it with process CPU readings). */
  | { id: number; type: 'benchScore'; batch: number; length: number; repeats: number };

/** The Inference panel's request: generate with live tools (pipeline/core/generate/generate.ts) on `modelUrl`'s model. */
export interface GenerateParams {
  modelUrl: string;
  prompt: string;
  tools: boolean;
  topK: number;
  maxNewTokens: number;
  /** The Calendar's today, ISO. */
  date: string;
}

export interface GenerateResult {
  prompt: string;
  text: string;
  calls: { tool: string; input: string; result?: string; error?: string }[];
  backend: string;
  modelId: string;
  ms: number;
}

export interface ResultOf {
  load: { choice: BackendChoice; modelId: string; loadMs: number; tools: { name: string; description: string; examples: { text: string; at: number; input: string }[] }[] };
  analyze: Analysis;
  golden: GoldenResult[];
  bench: BenchResult;
  generate: GenerateResult;
  benchScore: { seconds: number[]; tokens: number; threads: number };
}

export type Reply =
  | { id: number; type: 'progress'; stage: string; done: number; total: number }
  | { id: number; type: 'piece'; kind: 'text' | 'call' | 'result'; text: string }
  | { id: number; type: 'result'; value: unknown }
  | { id: number; type: 'error'; message: string };
