/**
 * `annotate --shard i/N`: one of N independent processes (a Slurm array task, a Kubernetes indexed Job) over the
 * same inputs and --out. Every shard reads the whole input stream (cheap) and annotates chunks k with k mod N = i,
 * writing each to <out>/chunks/ (chunk-files.ts); chunks already there are skipped, so a requeued task redoes only
 * what it had not finished. `toolformer merge <out>` assembles the run once all N are done.
 * The one loop (run-loop.ts) with the in-process executor, a selection of chunks and the chunk files as its store.
 */
import type { AnnotateConfig } from '../../../core/config.ts';
import type { PipelineParts } from '../../../core/stages/stages.ts';
import type { RunStats } from '../../../core/stats.ts';
import { runLoop } from '../run-loop.ts';
import { chunkDirStore } from '../chunk-files.ts';
import { inProcessExecutor } from './in-process.ts';

export async function runShard(args: {
  parts: PipelineParts;
  config: AnnotateConfig;
  inputs: readonly string[];
  outDir: string;
  run: string;
  chunkItems: number;
  maxDocs?: number;
  shard: { index: number; count: number };
  onChunk?: (done: { docs: number }) => void;
}): Promise<{ chunks: number; mine: number; skipped: number; stats: RunStats }> {
  const { shard } = args;
  const done = await runLoop({
    inputs: args.inputs,
    config: args.config,
    chunkItems: args.chunkItems,
    maxDocs: args.maxDocs,
    executor: inProcessExecutor(args.parts, args.config),
    // Every shard writes the same manifest: whichever lands last, it is the same bytes.
    store: chunkDirStore(args.outDir, args.run, { tools: args.config.tools, chunkItems: args.chunkItems, reuse: true, merge: false }),
    select: (chunk) => chunk.index % shard.count === shard.index,
    onCommit: ({ docs }) => args.onChunk?.({ docs }),
  });
  return { chunks: done.chunks, mine: done.selected, skipped: done.skipped, stats: done.stats };
}
