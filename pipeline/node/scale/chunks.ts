/**
 * The unit of scale-out: a chunk is `chunkItems` consecutive items of the input stream (documents and bad records,
 * in the reader's order). Chunk k always holds items [k·chunkItems, (k+1)·chunkItems), on every machine, so it has a
 * stable id; its result is the exact bytes a single-process run writes for those items, plus their stats. Results
 * concatenated in chunk order (and their stats summed) are byte-identical to `--workers 1`:
 *   - every document's work depends only on the document and the config (seeds are per document, tool, position);
 *   - duplicate ids and --max-docs are decided by the one reader that cuts the chunks, as in runAnnotate;
 *   - summing stats in chunk order keeps the key order of the `reasons` maps (first occurrence in the stream).
 */
import type { AnnotateConfig } from '../../core/config.ts';
import type { Doc } from '../../core/document.ts';
import { annotate, type PipelineParts } from '../../core/stages/stages.ts';
import { type RunStats, addDoc, emptyStats } from '../../core/stats.ts';
import { callRecord, errorRecord, trainRecord } from '../annotate-run.ts';
import { readCorpus } from '../read-corpus.ts';

export type ChunkItem = { kind: 'doc'; doc: Doc } | { kind: 'error'; record: ReturnType<typeof errorRecord> };

export interface Chunk {
  index: number;
  /** Stream index of the first item. */
  firstItem: number;
  items: ChunkItem[];
}

/** What a chunk contributes to the run's files: whole JSON lines, in input order. */
export interface ChunkResult {
  index: number;
  firstItem: number;
  /** Items consumed (documents and bad records) and documents among them. */
  items: number;
  docs: number;
  train: string;
  calls: string;
  errors: string;
  stats: RunStats;
}

export interface ChunkPlan {
  inputs: string[];
  chunkItems: number;
  maxDocs?: number;
  /** Skip the items before this one (a resume from a checkpoint); chunks then start here. */
  startItem?: number;
  /** Documents among the skipped items (for --max-docs). */
  startDocs?: number;
  /** Which fields/columns hold the text and id (the config's `inputColumns`). */
  columns?: AnnotateConfig['inputColumns'];
  /** The reader's byte budgets (the config's `inputLimits`). */
  limits?: AnnotateConfig['inputLimits'];
}

/**
 * Cut the input stream into chunks. With `startItem` (an embedded resume, never the queue) chunk numbering starts
 * there; that does not change any output byte, only where chunk boundaries fall.
 */
export async function* readChunks(plan: ChunkPlan): AsyncGenerator<Chunk> {
  const start = plan.startItem ?? 0;
  let items = 0;
  let docs = plan.startDocs ?? 0;
  let chunk: Chunk = { index: 0, firstItem: start, items: [] };
  for await (const item of readCorpus(plan.inputs, { columns: plan.columns, limits: plan.limits })) {
    // Exactly runAnnotate's order of checks, so --max-docs stops at the same item.
    if (items < start) {
      items++;
      continue;
    }
    if (item.kind === 'doc' && plan.maxDocs !== undefined && docs >= plan.maxDocs) break;
    items++;
    if (item.kind === 'error') chunk.items.push({ kind: 'error', record: errorRecord(item) });
    else {
      docs++;
      chunk.items.push({ kind: 'doc', doc: item.doc });
    }
    if (chunk.items.length === plan.chunkItems) {
      yield chunk;
      chunk = { index: chunk.index + 1, firstItem: items, items: [] };
    }
  }
  if (chunk.items.length > 0) yield chunk;
}

const line = (record: unknown) => JSON.stringify(record) + '\n';

/** Annotate one chunk: the lines runAnnotate would write for its items, and their stats. */
export async function annotateChunk(parts: PipelineParts, config: AnnotateConfig, chunk: Chunk): Promise<ChunkResult> {
  const stats = emptyStats(config.tools);
  // errors.jsonl holds only the bad records, calls/train.jsonl only the documents: each file keeps input order.
  let errors = '';
  for (const item of chunk.items) {
    if (item.kind === 'error') {
      stats.badRecords++;
      errors += line(item.record);
    }
  }
  let train = '';
  let calls = '';
  async function* docs(): AsyncIterable<Doc> {
    for (const item of chunk.items) if (item.kind === 'doc') yield item.doc;
  }
  let n = 0;
  for await (const work of annotate(parts, config, docs())) {
    n++;
    addDoc(stats, work);
    for (const c of work.candidates) calls += line(callRecord(c, parts.registry.get(c.tool)?.server));
    const t = trainRecord(parts, work);
    if (t) train += line(t);
  }
  return { index: chunk.index, firstItem: chunk.firstItem, items: chunk.items.length, docs: n, train, calls, errors, stats };
}
