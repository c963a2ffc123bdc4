/**
 * `annotate --queue redis://…`: the coordinator of a run spread over `toolformer worker`s on any machines, through
 * BullMQ on Redis. It reads the corpus, enqueues each chunk as a job (id = inputs digest + chunk index + config
 * digest: adding it twice is a no-op), keeps a bounded window of chunks in Redis, and follows the run.
 *
 * Where results live: a worker returns a chunk's result as the BullMQ job's return value (in Redis, so workers need
 * no shared filesystem); the coordinator takes it and removes the job, and its committer writes it to
 * <out>/chunks/<k>.json (write-then-rename) in chunk order (a result taken but not yet written when the coordinator
 * dies is redone on --resume). Redis holds at most the window's chunks (inputs and results), never the corpus or the output; <out> on the
 * coordinator's disk is the record of what is done. So:
 *   - a worker killed mid-chunk: its lock expires, BullMQ moves the job back to waiting, another worker redoes it;
 *   - Redis restarted (and emptied): the coordinator re-adds every chunk it has not saved, and the run record;
 *   - the coordinator killed: `annotate --queue … --resume` skips the saved chunks and re-adds the others;
 *   - every chunk's bytes are the same whoever computes them, so a chunk done twice is written once, identical.
 * At the end it writes manifest.json and merges (chunk-files.ts), exactly as `toolformer merge` does.
 * An executor of the one loop (run-loop.ts; registry.ts's `queue` entry makes it): the loop cuts the chunks, skips the
 * saved ones and commits the results.
 */
import { Job, Queue } from 'bullmq';
import type { AnnotateConfig } from '../../../core/config.ts';
import type { Executor } from '../run-loop.ts';
import type { Chunk, ChunkResult } from '../chunks.ts';
import { REDIS_GONE_MS, redactUrl, redisOptions, watchRedis } from './redis.ts';
import { type RunIdentity, digestOf } from '../run-digest.ts';

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
  /** Give up once Redis has been unreachable this long, ms. @default REDIS_GONE_MS */
  redisGoneMs?: number;
}

export const jobId = (inputsDigest: string, index: number, identity: RunIdentity) =>
  `${inputsDigest.slice(0, 16)}-${index}-${digestOf(identity).slice(0, 16)}`;

/** The queue as an executor: enqueue each chunk (a bounded window in Redis), pass on each result a worker returns. */
export function queueExecutor(options: QueuedOptions): Executor {
  const { run } = options;
  const record: RunRecord = { run, identity: options.identity, allEnqueued: false, done: false };
  let queue: Queue<ChunkJob, ChunkResult> | null = null;
  let publish = async (): Promise<unknown> => undefined;
  /** Set when Redis went away for good: its client is dropped, and close() must not wait for it. */
  let redisLost = false;
  return {
    async run(chunks, done) {
      const q = (queue = new Queue<ChunkJob, ChunkResult>(QUEUE_NAME, {
        connection: redisOptions(options.url),
        // Retries for a chunk whose processor threw (a worker's own trouble); a killed worker's chunk is "stalled", not failed.
        defaultJobOptions: { attempts: 3, backoff: { type: 'fixed', delay: 1000 }, removeOnComplete: false, removeOnFail: false },
      }));
      // While Redis is down ioredis reconnects and commands wait; the errors it reports meanwhile are not fatal.
      q.on('error', () => {});
      const redis = await q.client;
      const before = JSON.parse((await redis.get(RUN_KEY)) ?? 'null') as RunRecord | null;
      if (before && !before.done && before.run !== run && (await q.count()) > 0) {
        throw new Error(`the queue at ${redactUrl(options.url)} is busy with another run (${before.run.slice(0, 12)}): wait for it, or use another Redis database (redis://host:port/1)`);
      }
      publish = () => redis.set(RUN_KEY, JSON.stringify(record));
      await publish();

      const outstanding = new Map<number, { id: string; chunk: Chunk }>();
      const add = (chunk: Chunk, id: string) => q.add('chunk', { run, config: options.config, chunk }, { jobId: id });

      /** Pass on finished chunks; re-add those Redis lost; fail on a chunk that failed every attempt. */
      async function collect(): Promise<void> {
        await new Promise((r) => setTimeout(r, TICK_MS));
        let lost = false;
        for (const [index, { id, chunk }] of outstanding) {
          const job = await Job.fromId<ChunkJob, ChunkResult>(q, id);
          if (!job) {
            lost = true;
            await add(chunk, id);
          } else if (job.finishedOn && job.returnvalue) {
            outstanding.delete(index);
            done(job.returnvalue);
            await job.remove().catch(() => {});
          } else if (job.finishedOn && job.failedReason && job.attemptsMade >= (job.opts.attempts ?? 1)) {
            throw new Error(`chunk ${index} (items ${chunk.firstItem}–${chunk.firstItem + chunk.items.length - 1}) failed ${job.attemptsMade} times: ${job.failedReason.split('\n')[0]}`);
          }
        }
        // An emptied Redis (restarted without persistence) lost the run record too.
        if (lost || !(await redis.get(RUN_KEY))) await publish();
      }

      const follow = async () => {
        for await (const chunk of chunks) {
          while (outstanding.size >= WINDOW) await collect();
          const id = jobId(options.inputsDigest, chunk.index, options.identity);
          await add(chunk, id);
          outstanding.set(chunk.index, { id, chunk });
        }
        record.allEnqueued = true;
        await publish();
        while (outstanding.size > 0) await collect();
      };
      // Redis gone for good: one line within redisGoneMs, not a silent wait (commands queue up while it is away).
      const { host, port } = redisOptions(options.url);
      const watch = watchRedis(redis, `${host}:${port}`, options.redisGoneMs ?? REDIS_GONE_MS);
      try {
        await Promise.race([follow(), watch.gone.catch((error) => ((redisLost = true), Promise.reject(error)))]);
      } finally {
        watch.stop();
        // close() and disconnect() would wait for the Redis that is gone: the client is dropped with its queued commands.
        if (redisLost) redis.disconnect();
      }
    },
    async close(completed) {
      // The run is merged (the loop's store finished): workers may stop.
      if (completed) {
        record.done = true;
        await publish();
      }
      if (!redisLost) await queue?.close();
    },
  };
}
