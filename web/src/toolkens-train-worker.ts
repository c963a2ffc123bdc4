/// <reference lib="webworker" />
/**
 * Trains W_τ alone (pipeline/core/toolkens/train.ts, the CLI's own code) over features the model worker computed
 * (toolkens-jobs.ts): plain JavaScript, no model and no ONNX Runtime here, so the page stops it at once by
 * terminating this worker (Cancel) and the model worker stays as it is.
 *
 *   in   { features: ToolkenFeatures, nTools, options }      (one message; the worker trains once)
 *   out  { type: 'epoch', record: EpochRecord } per epoch, then { type: 'done', trained } or { type: 'error', message }
 */
import type { ToolkenFeatures } from '../../pipeline/core/toolkens/examples.ts';
import { trainToolkens, type EpochRecord, type TrainedToolkens, type TrainToolkenOptions } from '../../pipeline/core/toolkens/train.ts';

declare const self: DedicatedWorkerGlobalScope;

export interface TrainJob {
  features: ToolkenFeatures;
  nTools: number;
  options: Omit<TrainToolkenOptions, 'onEpoch' | 'signal'>;
}

export type TrainReply =
  | { type: 'epoch'; record: EpochRecord }
  | { type: 'done'; trained: TrainedToolkens; seconds: number }
  | { type: 'error'; message: string };

self.addEventListener('message', (event: MessageEvent<TrainJob>) => {
  const { features, nTools, options } = event.data;
  const post = (reply: TrainReply) => self.postMessage(reply);
  const t0 = performance.now();
  try {
    const trained = trainToolkens(features, nTools, { ...options, onEpoch: (record) => post({ type: 'epoch', record }) });
    post({ type: 'done', trained, seconds: (performance.now() - t0) / 1000 });
  } catch (e) {
    post({ type: 'error', message: e instanceof Error ? e.message : String(e) });
  }
});
