/**
 * Messages between the page (main.ts, model-client.ts) and the model worker (worker.ts).
 * Every request carries an `id`; the worker answers with any number of `progress` messages, then exactly one
 * `result` or `error` with the same id.
 */
import type { BackendChoice, BackendPreference } from './backend.ts';
import type { Analysis, AnalyzeParams, GoldenCase, GoldenResult, BenchResult } from './analysis-types.ts';

export type Request =
  | { id: number; type: 'load'; modelUrl: string; prefer: BackendPreference }
  | { id: number; type: 'analyze'; params: AnalyzeParams }
  | { id: number; type: 'golden'; cases: GoldenCase[] }
  | { id: number; type: 'bench'; batch: number; length: number; repeats: number };

export interface ResultOf {
  load: { choice: BackendChoice; modelId: string; loadMs: number; tools: { name: string; description: string }[] };
  analyze: Analysis;
  golden: GoldenResult[];
  bench: BenchResult;
}

export type Reply =
  | { id: number; type: 'progress'; stage: string; done: number; total: number }
  | { id: number; type: 'result'; value: unknown }
  | { id: number; type: 'error'; message: string };
