/**
 * `toolformer worker --queue redis://…`: takes chunks of the run in the queue until the run is done or the queue is
 * drained, on any machine that has the run's model (same bytes) and the same toolformer-ts install. One BullMQ
 * sandboxed processor per core (queue-processor.ts): the model runs in forked processes, so this process keeps the
 * job locks renewed however busy they are — and when it dies (kill -9), the locks expire and another worker redoes
 * its chunks. It refuses, with one line, a run whose model, dtype, versions or translation engine differ from its own.
 * Each chunk process watches this one from its first line (child-guard.mjs, as `--import`): when the worker dies, they
 * end too. SIGTERM or SIGINT: the chunks in hand go back to the queue, the chunk processes are stopped and reaped, and
 * the worker exits 143 (130 for SIGINT) when it gave chunks back, 0 when it held none.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { ABANDONED_EXIT } from '../../system/child-guard.mjs';
import { packageVersions } from '../../system/package-versions.ts';
import type { Dtype } from '../../model/hf-cache.ts';
import { modelRef, openLM } from '../../model/lm-backends/registry.ts';
import { type BackendFlags, backendFlags } from '../../cli/cli-options.ts';
import { createNodeParts } from '../../tools/parts.ts';
import { WORKER_ENV } from './queue-processor.ts';
import { type RunRecord, QUEUE_NAME, RUN_KEY } from './queue.ts';
import { assertQueueReachable, redisOptions } from './redis.ts';

export interface WorkerFlags extends BackendFlags {
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

  handToProcessors(flags, resolved.path ?? flags.model, record.run);
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
    // The watch on this process, before BullMQ's own child code (the --inspect port of a debugged worker is not shared).
    workerForkOptions: { execArgv: [...process.execArgv.filter((a) => !a.startsWith('--inspect')), '--import', CHILD_GUARD] },
  });
  worker.on('error', () => {});
  const queue = new Queue(QUEUE_NAME, { connection });
  queue.on('error', () => {});
  /** The chunks in hand, by job id (each job carries its lock token). */
  const held = new Map<string, Job>();
  worker.on('active', (job) => {
    held.set(job.id!, job);
    log(`chunk ${job.data.chunk.index} started`);
  });
  worker.on('completed', (job) => {
    held.delete(job.id!);
    chunks++;
    docs += job.returnvalue.docs;
    log(`chunk ${job.data.chunk.index} done (${job.returnvalue.docs} docs)`);
  });
  worker.on('failed', (job, error) => {
    if (job) held.delete(job.id!);
    log(`chunk ${job?.data.chunk.index} failed: ${error.message.split('\n')[0]}`);
  });
  stopOnSignals(worker, held, log);
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

/** child-guard-start.mjs, as the chunk processes' `--import`. */
const CHILD_GUARD = pathToFileURL(join(import.meta.dirname, '../../system/child-guard-start.mjs')).href;

/**
 * SIGTERM/SIGINT: hand the chunks in hand back to the queue now (their lock is ours: another worker may take them at
 * once, not after --lock-ms; a chunk that completes meanwhile keeps its one result, the lock decides), then close the
 * worker without waiting for its jobs — BullMQ SIGTERMs the chunk processes (child-guard.mjs: they exit at once) and
 * waits for them — and exit. A second signal, or a close that takes over STOP_MS, exits at once: the chunk
 * processes still see this process go and end themselves.
 */
function stopOnSignals(worker: Worker, held: Map<string, Job>, log: (line: string) => void): void {
  let stopping = false;
  const stop = async (signal: 'SIGTERM' | 'SIGINT') => {
    const code = held.size > 0 ? ABANDONED_EXIT[signal] : 0;
    if (stopping) process.exit(code);
    stopping = true;
    setTimeout(() => process.exit(code), STOP_MS).unref();
    const given = [...held.values()];
    log(`${signal}: stopping${given.length ? `; chunk ${given.map((j) => j.data.chunk.index).join(', ')} handed back to the queue` : ''}`);
    await Promise.all(given.map((job) => job.moveToWait(job.token!).catch(() => {})));
    await worker.close(true).catch(() => {});
    process.exit(code);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
/** The longest a signalled worker takes to hand back its chunks and reap its chunk processes, ms. */
const STOP_MS = 4000;

/** The model, dtype and run the sandboxed processors open (queue-processor.ts reads them from the environment). */
function handToProcessors(flags: WorkerFlags, model: string, run: string): void {
  process.env[WORKER_ENV.model] = model;
  process.env[WORKER_ENV.dtype] = flags.dtype ?? 'fp32';
  if (flags.tokenizer) process.env[WORKER_ENV.tokenizer] = flags.tokenizer;
  if (flags.servedModel) process.env[WORKER_ENV.servedModel] = flags.servedModel;
  if (flags.llamaGelu === 'exact') process.env[WORKER_ENV.llamaGelu] = 'exact';
  process.env[WORKER_ENV.run] = run;
}

/** What this machine would compute with, against what the run was started with: a difference is a one-line refusal. */
async function assertSameMachine(flags: WorkerFlags, record: RunRecord) {
  const opening = { dtype: flags.dtype, ...backendFlags(flags) };
  const resolved = await modelRef(flags.model, opening);
  const lm = await openLM(flags.model, { ...opening, device: record.identity.config.device }); // the run's device: refused here when missing
  const { translation } = await createNodeParts(lm, { toolConcurrency: 1, toolTimeoutMs: record.identity.config.toolTimeoutMs });
  const mine = {
    modelDigest: resolved.digest(),
    dtype: flags.dtype ?? 'fp32',
    modelMaxLength: lm.maxLength,
    translationEngine: translation,
    versions: packageVersions(),
  };
  for (const key of Object.keys(mine) as (keyof typeof mine)[]) {
    const [was, now] = [JSON.stringify(record.identity[key]), JSON.stringify(mine[key])];
    if (was !== now) {
      const show = (v: string) => (key === 'modelDigest' ? v.slice(1, 13) : v.length > 40 ? `${v.slice(0, 39)}…` : v);
      throw new Error(`worker refused: its ${key} differs from the run's (run ${show(was)}, this worker ${show(now)}): start it with the run's --model, --dtype and --llama-gelu on the same toolformer-ts install and Apertium pairs`);
    }
  }
  return resolved;
}
