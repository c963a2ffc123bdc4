/**
 * The one annotate loop, whatever runs the work:
 *
 *   chunk source (chunks.ts readChunks: the input stream cut into chunks, from a resume's start, to --max-docs)
 *     → executor (annotates chunks: in this process, a pool of worker processes, a Redis queue's workers)
 *     → committer (takes results in any order, stores them in the source's order, counts documents and stats)
 *     → store (the run's files with a checkpoint after each chunk; or one file per chunk under <out>/chunks)
 *
 * Resume, --max-docs, skipping chunks already stored, and the stats are decided here and nowhere else; an executor
 * only turns chunks into results. The shape follows datatrove's executor/base.py, whose `_run_for_rank` runs the same
 * steps and bookkeeping whichever executor (local, Slurm) calls it; the executor interface is kept as small as
 * p-queue's queue interface (one method to run work, one to close). Adding an executor touches nothing here.
 */
import type { AnnotateConfig } from '../../core/config.ts';
import { type RunStats, mergeStats } from '../../core/stats.ts';
import { type Chunk, type ChunkResult, readChunks } from './chunks.ts';
import { keptCalls } from './plan.ts';

/** Runs chunks somewhere (in-process, worker pool, Redis queue, …). */
export interface Executor {
  /** Annotate every chunk of `chunks` and pass each result to `done`, in any order; resolve once all are passed. */
  run(chunks: AsyncIterable<Chunk>, done: (result: ChunkResult) => void): Promise<void>;
  /** After the run (`completed`: the store finished) or its failure: stop workers, close connections. */
  close?(completed: boolean): Promise<void>;
}

/** The run so far, as committed. `items`: the input items before the next one to read. */
export interface Totals {
  items: number;
  docs: number;
  stats: RunStats;
  /** Kept calls, stored chunks included (for progress lines). */
  kept: number;
  /** The identity of the last item committed (chunks.ts itemIdentity), when its chunk recorded one. */
  lastItem?: string;
}

/** Where committed results go. */
export interface ChunkStore {
  /** What is already committed (a resume): the source starts after it. */
  readonly start: { items: number; docs: number; stats: RunStats; lastItem?: string };
  /** A chunk stored by an earlier attempt (it is skipped, not run again), or null. */
  stored(index: number): ChunkResult | null;
  /** Store the next result, in source order; `totals` include it. */
  put(result: ChunkResult, totals: Totals): void;
  /** After the last result: `chunks` is how many chunks the source cut. Returns the run's stats. */
  finish(totals: Totals, chunks: number): Promise<RunStats> | RunStats;
  close(): void;
}

export interface LoopOptions {
  inputs: readonly string[];
  config: Pick<AnnotateConfig, 'inputColumns' | 'inputLimits'>;
  chunkItems: number;
  maxDocs?: number;
  executor: Executor;
  store: ChunkStore;
  /** Only these chunks are run (a shard's share); @default all */
  select?: (chunk: Chunk) => boolean;
  /** After each committed (or already stored) chunk. */
  onCommit?: (totals: Totals) => void;
}

export interface LoopResult {
  stats: RunStats;
  /** Chunks the source cut, those selected, and those among them already stored. */
  chunks: number;
  selected: number;
  skipped: number;
}

/** Puts results in the order the source gave their chunks, then commits them to the store one by one. */
class Committer {
  readonly totals: Totals;
  private readonly order: number[] = [];
  private readonly waiting = new Map<number, ChunkResult>();

  constructor(
    private readonly store: ChunkStore,
    private readonly onCommit?: (totals: Totals) => void,
  ) {
    const { items, docs, stats, lastItem } = store.start;
    this.totals = { items, docs, stats, kept: keptCalls(stats), lastItem };
  }

  /** A chunk handed to the executor: its result is committed after those of the chunks handed before it. */
  expect(index: number): void {
    this.order.push(index);
  }

  /** A chunk the store already holds: counted for progress, not committed again. */
  skip(result: ChunkResult): void {
    this.totals.docs += result.docs;
    this.totals.lastItem = result.lastItem;
    this.totals.kept += keptCalls(result.stats);
    this.onCommit?.(this.totals);
  }

  accept(result: ChunkResult): void {
    this.waiting.set(result.index, result);
    for (let r; this.order.length > 0 && (r = this.waiting.get(this.order[0])); ) {
      this.order.shift();
      this.waiting.delete(r.index);
      mergeStats(this.totals.stats, r.stats);
      this.totals.docs += r.docs;
      this.totals.lastItem = r.lastItem;
      this.totals.kept += keptCalls(r.stats);
      this.totals.items = r.firstItem + r.items;
      this.store.put(r, this.totals);
      this.onCommit?.(this.totals);
    }
  }
}

export async function runLoop(options: LoopOptions): Promise<LoopResult> {
  const { store, executor } = options;
  const committer = new Committer(store, options.onCommit);
  const counts = { chunks: 0, selected: 0, skipped: 0 };
  const { items: startItem, docs: startDocs, lastItem: startLastItem } = store.start;
  async function* pending(): AsyncIterable<Chunk> {
    const source = readChunks({ inputs: [...options.inputs], chunkItems: options.chunkItems, maxDocs: options.maxDocs, startItem, startDocs, startLastItem, columns: options.config.inputColumns, limits: options.config.inputLimits });
    for await (const chunk of source) {
      counts.chunks++;
      if (options.select && !options.select(chunk)) continue;
      counts.selected++;
      const have = store.stored(chunk.index);
      if (have) {
        counts.skipped++;
        committer.skip(have);
        continue;
      }
      committer.expect(chunk.index);
      yield chunk;
    }
  }
  let completed = false;
  try {
    await executor.run(pending(), (result) => committer.accept(result));
    const stats = await store.finish(committer.totals, counts.chunks);
    completed = true;
    return { stats, ...counts };
  } finally {
    store.close();
    await executor.close?.(completed);
  }
}
