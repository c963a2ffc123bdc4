/**
 * `annotate --shard i/N`: one of N independent processes (a Slurm array task, a Kubernetes indexed Job) over the
 * same inputs and --out. Every shard reads the whole input stream (cheap) and annotates chunks k with k mod N = i,
 * writing each to <out>/chunks/ (chunk-files.ts); chunks already there are skipped, so a requeued task redoes only
 * what it had not finished. `toolformer merge <out>` assembles the run once all N are done.
 */
import type { AnnotateConfig } from '../../core/config.ts';
import type { PipelineParts } from '../../core/stages/stages.ts';
import { type RunStats, emptyStats, mergeStats } from '../../core/stats.ts';
import { annotateChunk, readChunks } from './chunks.ts';
import { hasChunk, writeChunk, writeManifest } from './chunk-files.ts';

export async function runShard(args: {
  parts: PipelineParts;
  config: AnnotateConfig;
  inputs: string[];
  outDir: string;
  run: string;
  chunkItems: number;
  maxDocs?: number;
  shard: { index: number; count: number };
  onChunk?: (done: { chunks: number; docs: number }) => void;
}): Promise<{ chunks: number; mine: number; skipped: number; stats: RunStats }> {
  const stats = emptyStats(args.config.tools);
  let chunks = 0;
  let mine = 0;
  let skipped = 0;
  let docs = 0;
  for await (const chunk of readChunks({ inputs: args.inputs, chunkItems: args.chunkItems, maxDocs: args.maxDocs, columns: args.config.inputColumns, limits: args.config.inputLimits })) {
    chunks++;
    if (chunk.index % args.shard.count !== args.shard.index) continue;
    mine++;
    if (hasChunk(args.outDir, args.run, chunk.index)) {
      skipped++;
      continue;
    }
    const result = await annotateChunk(args.parts, args.config, chunk);
    writeChunk(args.outDir, args.run, result);
    docs += result.docs;
    mergeStats(stats, result.stats);
    args.onChunk?.({ chunks: mine, docs });
  }
  // Every shard writes the same manifest: whichever lands last, it is the same bytes.
  writeManifest(args.outDir, { run: args.run, chunks, chunkItems: args.chunkItems });
  return { chunks, mine, skipped, stats };
}
