/**
 * `annotate --queue redis://…`: the coordinator of a run spread over `toolformer worker`s on any machines, through
 * BullMQ on Redis. It reads the corpus, enqueues each chunk as a job (id = inputs digest + chunk index + config
 * digest: adding it twice is a no-op), keeps a bounded window of chunks in Redis, and follows the run.
 *
 * Where results live: a worker returns a chunk's result as the BullMQ job's return value (in Redis, so workers need
 * no shared filesystem); the coordinator copies it to <out>/chunks/<k>.json (write-then-rename), then removes the
 * job. Redis holds at most the window's chunks (inputs and results), never the corpus or the output; <out> on the
 * coordinator's disk is the record of what is done. So:
 *   - a worker killed mid-chunk: its lock expires, BullMQ moves the job back to waiting, another worker redoes it;
 *   - Redis restarted (and emptied): the coordinator re-adds every chunk it has not saved, and the run record;
 *   - the coordinator killed: `annotate --queue … --resume` skips the saved chunks and re-adds the others;
 *   - every chunk's bytes are the same whoever computes them, so a chunk done twice is written once, identical.
 * At the end it writes manifest.json and merges (chunk-files.ts), exactly as `toolformer merge` does.
 */
import { Job, Queue } from 'bullmq';
import type { AnnotateConfig } from '../../core/config.ts';
import type { RunStats } from '../../core/stats.ts';
import { type Chunk, type ChunkResult, readChunks } from './chunks.ts';
import { readChunk, mergeRun, writeChunk, writeManifest } from './chunk-files.ts';
import { keptCalls } from './plan.ts';
import { redisOptions } from './redis.ts';
import { type RunIdentity, digestOf } from './run-digest.ts';

export const QUEUE_NAME = 'toolformer-chunks';
/** The run the queue's jobs belong to (one run per Redis database at a time). */
export const RUN_KEY = 'toolformer:run';

export interface RunRecord {
  run: string;
  identity: RunIdentity;
  /** Every chunk has been enqueued (workers may stop once the queue is empty). */
  allEnqueued: boolean;
  /** The coordinator has merged the run. */
  done: boolean;
}

export interface ChunkJob {
  run: string;
  config: AnnotateConfig;
  chunk: Chunk;
}

/** How often the coordinator looks at its jobs, ms. */
const TICK_MS = 250;
/** Chunks in Redis at once (enqueued and not yet saved). */
const WINDOW = 64;

export interface QueuedOptions {
  url: string;
  identity: RunIdentity;
  inputsDigest: string;
  run: string;
  config: AnnotateConfig;
  inputs: string[];
  outDir: string;
  chunkItems: number;
  maxDocs?: number;
  resume?: boolean;
  onProgress?: (p: { docs: number; kept: number; workers: number }) => void;
}

export const jobId = (inputsDigest: string, index: number, identity: RunIdentity) =>
  `${inputsDigest.slice(0, 16)}-${index}-${digestOf(identity).slice(0, 16)}`;

export async function runQueued(options: QueuedOptions): Promise<RunStats> {
  const { outDir, run } = options;
  const queue = new Queue<ChunkJob, ChunkResult>(QUEUE_NAME, {
    connection: redisOptions(options.url),
    // Retries for a chunk whose processor threw (a worker's own trouble); a killed worker's chunk is "stalled", not failed.
    defaultJobOptions: { attempts: 3, backoff: { type: 'fixed', delay: 1000 }, removeOnComplete: false, removeOnFail: false },
  });
  // While Redis is down ioredis reconnects and commands wait; the errors it reports meanwhile are not fatal.
  queue.on('error', () => {});
  const redis = await queue.client;
  const record: RunRecord = { run, identity: options.identity, allEnqueued: false, done: false };
  const before = JSON.parse((await redis.get(RUN_KEY)) ?? 'null') as RunRecord | null;
  if (before && !before.done && before.run !== run && (await queue.count()) > 0) {
    await queue.close();
    throw new Error(`the queue at ${options.url} is busy with another run (${before.run.slice(0, 12)}): wait for it, or use another Redis database (redis://host:port/1)`);
  }
  const publish = () => redis.set(RUN_KEY, JSON.stringify(record));
  await publish();

  const outstanding = new Map<number, { id: string; chunk: Chunk }>();
  let docs = 0;
  let kept = 0;
  let workers = 0;
  const add = (chunk: Chunk, id: string) => queue.add('chunk', { run, config: options.config, chunk }, { jobId: id });
  const saved = (result: ChunkResult) => {
    docs += result.docs;
    kept += keptCalls(result.stats);
    options.onProgress?.({ docs, kept, workers });
  };

  /** Save finished chunks; re-add those Redis lost; fail on a chunk that failed every attempt. */
  async function collect(): Promise<void> {
    await new Promise((r) => setTimeout(r, TICK_MS));
    let lost = false;
    for (const [index, { id, chunk }] of outstanding) {
      const job = await Job.fromId<ChunkJob, ChunkResult>(queue, id);
      if (!job) {
        lost = true;
        await add(chunk, id);
      } else if (job.finishedOn && job.returnvalue) {
        writeChunk(outDir, run, job.returnvalue);
        outstanding.delete(index);
        await job.remove().catch(() => {});
        saved(job.returnvalue);
      } else if (job.finishedOn && job.failedReason && job.attemptsMade >= (job.opts.attempts ?? 1)) {
        throw new Error(`chunk ${index} (items ${chunk.firstItem}–${chunk.firstItem + chunk.items.length - 1}) failed ${job.attemptsMade} times: ${job.failedReason.split('\n')[0]}`);
      }
    }
    // An emptied Redis (restarted without persistence) lost the run record too.
    if (lost || !(await redis.get(RUN_KEY))) await publish();
    workers = (await queue.getWorkers()).length;
    options.onProgress?.({ docs, kept, workers });
  }

  try {
    let chunks = 0;
    for await (const chunk of readChunks({ inputs: options.inputs, chunkItems: options.chunkItems, maxDocs: options.maxDocs, columns: options.config.inputColumns, limits: options.config.inputLimits })) {
      chunks++;
      // --resume: a chunk saved by the coordinator before it stopped is done.
      const have = options.resume ? readChunk(outDir, run, chunk.index) : null;
      if (have) {
        saved(have);
        continue;
      }
      while (outstanding.size >= WINDOW) await collect();
      const id = jobId(options.inputsDigest, chunk.index, options.identity);
      await add(chunk, id);
      outstanding.set(chunk.index, { id, chunk });
    }
    record.allEnqueued = true;
    await publish();
    while (outstanding.size > 0) await collect();
    writeManifest(outDir, { run, chunks, chunkItems: options.chunkItems });
    const stats = mergeRun(outDir);
    record.done = true;
    await publish();
    return stats;
  } finally {
    await queue.close();
  }
}
