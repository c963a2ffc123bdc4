/**
 * The in-process executor: the chunks' documents go through the stages in this process, as one stream (the stages
 * may hold several documents at once), and a chunk's result is passed on when its last document comes out. Used by a
 * plain run (one item per chunk), by a shard, and — one chunk at a time — by the pool's and the queue's workers.
 */
import type { AnnotateConfig } from '../../../core/config.ts';
import type { Doc } from '../../../core/document.ts';
import { annotate, type PipelineParts } from '../../../core/stages/stages.ts';
import type { Executor } from '../run-loop.ts';
import { type Chunk, type ChunkResult, type OpenChunk, addWork, openChunk } from '../chunks.ts';

export function inProcessExecutor(parts: PipelineParts, config: AnnotateConfig): Executor {
  return {
    async run(chunks, done) {
      const chunkOf = new Map<Doc, OpenChunk>();
      async function* documents(): AsyncIterable<Doc> {
        for await (const chunk of chunks) {
          const open = openChunk(chunk, config.tools);
          if (open.docsLeft === 0) done(open.result); // bad records only
          for (const item of chunk.items) {
            if (item.kind !== 'doc') continue;
            chunkOf.set(item.doc, open);
            yield item.doc;
          }
        }
      }
      for await (const work of annotate(parts, config, documents())) {
        const open = chunkOf.get(work.doc)!;
        chunkOf.delete(work.doc);
        addWork(open, parts, work);
        if (open.docsLeft === 0) done(open.result);
      }
    },
  };
}

/** Annotate one chunk here: the lines a single-process run writes for its items, and their stats. */
export async function annotateChunk(parts: PipelineParts, config: AnnotateConfig, chunk: Chunk): Promise<ChunkResult> {
  let result: ChunkResult | undefined;
  async function* one() {
    yield chunk;
  }
  await inProcessExecutor(parts, config).run(one(), (r) => (result = r));
  return result!;
}
