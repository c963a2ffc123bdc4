/**
 * Which executor and store an annotate run uses (run-loop.ts): `--shard` or `--queue` write chunk files under
 * <out>/chunks (a queued run merges them at the end), `--workers` > 1 a pool of processes, otherwise this process;
 * the latter two write the run's files directly. The flags were checked before (annotate-command.ts checkFlags).
 */
import { mkdirSync } from 'node:fs';
import type { RunPlan } from '../../core/run-plan.ts';
import type { Dtype } from '../hf-cache.ts';
import { assertChunksOfRun } from './resume-checks.ts';
import { RunFiles } from './run-files.ts';
import type { Executor, LoopOptions } from './run-loop.ts';
import type { Shard } from './plan.ts';
import type { PoolWorker } from './executors/pool.ts';
import { digestOf, runIdentity } from './run-digest.ts';

/** The executor and store the flags choose: a shard or a queue (chunk files), a pool or this process (the run's files). */
export async function chooseExecution(
  plan: RunPlan,
  flags: { out: string; queue?: string; resume?: boolean; dtype?: Dtype; maxDocs?: number },
  o: { chunkItems: number; poolChunk: number; shard: Shard | null; inProcess: Executor; modelDigest: () => string; workers: PoolWorker[] | null },
): Promise<Pick<LoopOptions, 'executor' | 'store' | 'chunkItems' | 'select'>> {
  if (o.shard || flags.queue) {
    const { chunkDirStore } = await import('./chunk-files.ts');
    const identity = runIdentity({ modelDigest: o.modelDigest(), dtype: flags.dtype ?? 'fp32', meta: plan as Parameters<typeof runIdentity>[0]['meta'], config: plan.config, maxDocs: flags.maxDocs, chunkItems: o.chunkItems });
    const run = digestOf({ identity, inputsDigest: plan.inputsDigest });
    mkdirSync(flags.out, { recursive: true });
    assertChunksOfRun(flags.out, run); // before config.json is written: a refused shard changes nothing
    RunFiles.writeJson(flags.out, 'config.json', plan);
    // A queued run merges at the end and reuses saved chunks on --resume; a shard always skips the chunks already there.
    const store = chunkDirStore(flags.out, run, { tools: plan.config.tools, chunkItems: o.chunkItems, reuse: o.shard ? true : flags.resume ?? false, merge: !o.shard });
    if (o.shard) {
      const { index, count } = o.shard;
      return { executor: o.inProcess, store, chunkItems: o.chunkItems, select: (chunk) => chunk.index % count === index };
    }
    const { queueExecutor } = await import('./executors/queue.ts');
    return { executor: queueExecutor({ url: flags.queue!, identity, inputsDigest: plan.inputsDigest, run, config: plan.config }), store, chunkItems: o.chunkItems };
  }
  const { runFilesStore } = await import('./annotate-run.ts');
  const store = runFilesStore(plan, flags.out, flags.resume);
  if (!o.workers) return { executor: o.inProcess, store, chunkItems: 1 }; // one item per chunk: a checkpoint per document
  const { poolExecutor } = await import('./executors/pool.ts');
  return { executor: poolExecutor(o.workers, plan.config), store, chunkItems: o.poolChunk };
}
