/**
 * Requests the model worker answers beyond the app's own (worker.ts): none. This module is the seam for the bench
 * build — pipeline/bench/bench-build.ts has buildApp (web/e2e/serve.ts, `workerExtras`) resolve it to the bench's own
 * module, which answers `bench` and `benchScore` (protocol.ts). So `vite build web` ships no bench code, and the app
 * knows nothing of the bench: web/ never imports pipeline/bench/ (.dependency-cruiser.cjs web-knows-no-bench). The
 * seam (this module, LoadedModel, the request and result types in protocol.ts) stays here: the bench builds on it.
 */
import type { CausalLM } from '../../pipeline/core/lm/lm.ts';
import type { BackendChoice } from './backend.ts';
import type { ModelSource } from './model-source.ts';
import type { Ort } from './ort-web.ts';
import type { Request } from './protocol.ts';

/** What an extra request may use of the worker's loaded model. */
export interface LoadedModel {
  ort: Ort;
  choice: BackendChoice;
  lm: CausalLM;
  /** Where the model came from; the bench reads its ONNX file again (the tab keeps no copy of the weights in JavaScript). */
  source: ModelSource;
  /** The ONNX file's path in the folder ("onnx/model_q4f16.onnx") and its external-data files' paths. */
  file: string;
  externalData: readonly string[];
}

/** Per request type, its handler; the worker answers these after the model is loaded. */
export type ExtraRequests = {
  [T in Request['type']]?: (req: Extract<Request, { type: T }>, loaded: LoadedModel) => Promise<unknown>;
};

export const EXTRA_REQUESTS: ExtraRequests = {};
