/**
 * `toolformer worker --queue redis://…`: takes chunks of the run in the queue until the run is done or the queue is
 * drained, on any machine that has the run's model (same bytes) and the same toolformer-ts install. One BullMQ
 * sandboxed processor per core (queue-processor.ts): the model runs in forked processes, so this process keeps the
 * job locks renewed however busy they are — and when it dies (kill -9), the locks expire and another worker redoes
 * its chunks. It refuses, with one line, a run whose model, dtype, versions or translation engine differ from its own.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { packageVersions } from '../package-versions.ts';
import { type Dtype, resolveModel } from '../hf-cache.ts';
import { loadModel } from '../load-model.ts';
import { createNodeParts } from '../parts.ts';
import { WORKER_ENV } from './queue-processor.ts';
import { type RunRecord, QUEUE_NAME, RUN_KEY } from './queue.ts';
import { assertQueueReachable, redisOptions } from './redis.ts';
import { modelDigest } from './run-digest.ts';

export interface WorkerFlags {
  queue: string;
  model: string;
  dtype?: Dtype;
  processes?: number;
  lockMs: number;
  quiet?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function workerCommand(flags: WorkerFlags): Promise<void> {
  await assertQueueReachable(flags.queue);
  const connection = redisOptions(flags.queue);
  const redis = new Redis(connection);
  redis.on('error', () => {}); // reconnects on its own (a Redis restart is waited out)
  const log = (line: string) => flags.quiet || console.error(`worker: ${line}`);
  const readRun = async () => JSON.parse((await redis.get(RUN_KEY)) ?? 'null') as RunRecord | null;

  let record = await readRun();
  if (!record || record.done) log(`waiting for a run on ${flags.queue}`);
  while (!record || record.done) {
    await sleep(500);
    record = await readRun();
  }

  const resolved = await assertSameMachine(flags, record).catch((error) => {
    redis.disconnect();
    throw error;
  });

  process.env[WORKER_ENV.model] = resolved.dir;
  process.env[WORKER_ENV.dtype] = flags.dtype ?? 'fp32';
  process.env[WORKER_ENV.run] = record.run;
  const processes = flags.processes ?? availableParallelism();
  let chunks = 0;
  let docs = 0;
  const worker = new Worker(QUEUE_NAME, join(import.meta.dirname, 'queue-processor.mjs'), {
    connection,
    concurrency: processes,
    useWorkerThreads: false,
    lockDuration: flags.lockMs,
    stalledInterval: flags.lockMs,
    // A chunk whose worker died is redone; one that kills every worker it meets fails after three.
    maxStalledCount: 3,
  });
  worker.on('error', () => {});
  const queue = new Queue(QUEUE_NAME, { connection });
  queue.on('error', () => {});
  worker.on('active', (job) => log(`chunk ${job.data.chunk.index} started`));
  worker.on('completed', (job) => {
    chunks++;
    docs += job.returnvalue.docs;
    log(`chunk ${job.data.chunk.index} done (${job.returnvalue.docs} docs)`);
  });
  worker.on('failed', (job, error) => log(`chunk ${job?.data.chunk.index} failed: ${error.message.split('\n')[0]}`));
  log(`taking chunks of run ${record.run.slice(0, 12)} with ${processes} process${processes > 1 ? 'es' : ''}`);

  // Until the run is merged, moves on, or every chunk is enqueued and the queue has been empty for two looks.
  let empty = 0;
  for (;;) {
    await sleep(1000);
    const now = await readRun();
    if (now && (now.done || now.run !== record.run)) break;
    const left = now?.allEnqueued ? await countLeft() : -1;
    empty = left === 0 ? empty + 1 : 0;
    if (empty >= 2) break;
  }
  await worker.close();
  await queue.close();
  redis.disconnect();
  console.log(`worker: ${chunks} chunks, ${docs} documents`);

  async function countLeft(): Promise<number> {
    const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'paused');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }
}

/** What this machine would compute with, against what the run was started with: a difference is a one-line refusal. */
async function assertSameMachine(flags: WorkerFlags, record: RunRecord) {
  const resolved = await resolveModel(flags.model);
  const lm = await loadModel(flags.model, { dtype: flags.dtype, device: record.identity.config.device }); // the run's device: refused here when missing
  const { translation } = await createNodeParts(lm, { toolConcurrency: 1, toolTimeoutMs: record.identity.config.toolTimeoutMs });
  const mine = {
    modelDigest: modelDigest(resolved.dir),
    dtype: flags.dtype ?? 'fp32',
    modelMaxLength: lm.maxLength,
    translationEngine: translation,
    versions: packageVersions(),
  };
  for (const key of Object.keys(mine) as (keyof typeof mine)[]) {
    const [was, now] = [JSON.stringify(record.identity[key]), JSON.stringify(mine[key])];
    if (was !== now) {
      const show = (v: string) => (key === 'modelDigest' ? v.slice(1, 13) : v.length > 40 ? `${v.slice(0, 39)}…` : v);
      throw new Error(`worker refused: its ${key} differs from the run's (run ${show(was)}, this worker ${show(now)}): start it with the run's --model and --dtype on the same toolformer-ts install and Apertium pairs`);
    }
  }
  return resolved;
}
