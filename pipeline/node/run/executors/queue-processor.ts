/**
 * One sandboxed processor of `toolformer worker`: a process BullMQ forked, which loads the model and the pipeline on
 * its first chunk and keeps them for the next ones. Its model, dtype and run come from the worker (environment), which
 * checked them against the run's before taking any job.
 */
import type { SandboxedJob } from 'bullmq';
import type { PipelineParts } from '../../../core/stages/stages.ts';
import { stopRunningPipelines } from '../../tools/apertium-pipeline.ts';
import { holdWork, onStop } from '../../system/child-guard.mjs';
import type { Dtype } from '../../model/hf-cache.ts';
import { openLM } from '../../model/lm-backends/registry.ts';
import { createRunParts } from '../../tools/parts.ts';
import type { ChunkResult } from '../chunks.ts';
import { annotateChunk } from './in-process.ts';
import type { ChunkJob } from './queue.ts';

export const WORKER_ENV = {
  model: 'TOOLFORMER_WORKER_MODEL',
  dtype: 'TOOLFORMER_WORKER_DTYPE',
  tokenizer: 'TOOLFORMER_WORKER_TOKENIZER',
  servedModel: 'TOOLFORMER_WORKER_SERVED_MODEL',
  llamaGelu: 'TOOLFORMER_WORKER_LLAMA_GELU',
  run: 'TOOLFORMER_WORKER_RUN',
} as const;

let parts: Promise<PipelineParts> | null = null;

/**
 * The processor. The watch on the worker is child-guard.mjs, installed before BullMQ's code (worker-command.ts): when
 * the worker goes (SIGKILL included) or a SIGTERM comes, this process ends its Apertium pipelines and exits, non-zero
 * while a chunk is in hand; the chunk is redone elsewhere.
 */
export async function processChunk(job: SandboxedJob<ChunkJob, ChunkResult>): Promise<ChunkResult> {
  const { run, config, chunk } = job.data;
  // A job of another run (the queue moved on): this process was not checked against it.
  if (run !== process.env[WORKER_ENV.run]) throw new Error(`chunk of run ${run.slice(0, 12)}, not this worker's run`);
  const release = holdWork();
  try {
    parts ??= (async () => {
      onStop(stopRunningPipelines);
      // The run's device comes with its config (the frozen plan's), as the model and dtype come from the worker.
      const model = process.env[WORKER_ENV.model]!;
      const lm = await openLM(model, {
        dtype: process.env[WORKER_ENV.dtype] as Dtype,
        tokenizer: process.env[WORKER_ENV.tokenizer],
        servedModel: process.env[WORKER_ENV.servedModel],
        llamaGelu: process.env[WORKER_ENV.llamaGelu] === 'exact' ? 'exact' : undefined,
        device: config.device,
      });
      return (await createRunParts(lm, config, model)).parts;
    })();
    return await annotateChunk(await parts, config, chunk);
  } finally {
    release();
  }
}
