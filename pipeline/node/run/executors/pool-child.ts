/**
 * One worker process of `annotate --workers N`: loads the model and the pipeline once, then annotates the chunks its
 * parent sends over IPC, one at a time, and sends each result back. Exits when the parent goes (even a SIGKILLed
 * one: child-guard.mjs, installed first by pool-child.mjs, sees the IPC channel close or the parent pid change), or on
 * SIGTERM/SIGINT: non-zero while a chunk is in hand, so no worker outlives its run.
 */
import type { AnnotateConfig } from '../../../core/config.ts';
import type { PipelineParts } from '../../../core/stages/stages.ts';
import { stopRunningPipelines } from '../../tools/apertium-pipeline.ts';
import { holdWork, onStop } from '../../system/child-guard.mjs';
import { openLM, type ModelOpen } from '../../model/lm-backends/registry.ts';
import { createRunParts } from '../../tools/parts.ts';
import type { Chunk } from '../chunks.ts';
import { annotateChunk } from './in-process.ts';

/** `init`: load the model and the tools (config: their limits, catalog and retrieval); `chunk`: annotate it with the run's final config. */
export type ToChild = { type: 'init'; model: ModelOpen; config: AnnotateConfig } | { type: 'chunk'; chunk: Chunk; config: AnnotateConfig };

let ready: Promise<PipelineParts> | null = null;
const send = (message: unknown) => process.send!(message);
const fail = (error: unknown) => send({ type: 'error', message: error instanceof Error ? error.message : String(error) });

// On a stop (the parent's disconnect ends a run) the kept-running Apertium pipelines are ended and reaped first (their
// CPU then counts in this process's children).
onStop(stopRunningPipelines);
process.on('message', (message: ToChild) => {
  if (message.type === 'init') {
    ready = (async () => {
      // The parent (annotate-command.ts) loads the same file on this CPU and warns once for the run.
      const { model, ...opening } = message.model;
      const lm = await openLM(model, { ...opening, device: message.config.device, checkInt8Range: false });
      const { parts } = await createRunParts(lm, message.config, model);
      return parts;
    })();
    ready.then(() => send({ type: 'ready' }), fail);
  } else {
    const { chunk, config } = message;
    const release = holdWork();
    ready!
      .then((parts) => annotateChunk(parts, config, chunk))
      .then((result) => send({ type: 'result', result }), fail)
      .finally(release);
  }
});
