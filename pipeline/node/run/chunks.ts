/**
 * The unit of scale-out: a chunk is `chunkItems` consecutive items of the input stream (documents and bad records,
 * in the reader's order). Chunk k always holds items [k·chunkItems, (k+1)·chunkItems), on every machine, so it has a
 * stable id; its result is the exact bytes a single-process run writes for those items, plus their stats. Results
 * concatenated in chunk order (and their stats summed) are byte-identical to `--workers 1`:
 *   - every document's work depends only on the document and the config (seeds are per document, tool, position);
 *   - duplicate ids, a resume's start and --max-docs are decided here, by the one reader that cuts the chunks for
 *     every executor (run-loop.ts);
 *   - summing stats in chunk order keeps the key order of the `reasons` maps (first occurrence in the stream).
 */
import type { AnnotateConfig } from '../../core/config.ts';
import type { Doc } from '../../core/document.ts';
import type { DocWork, PipelineParts } from '../../core/stages/stages.ts';
import { type RunStats, addDoc, emptyStats } from '../../core/stats.ts';
import { callRecords, errorRecord, trainRecord } from './run-records.ts';
import { type CorpusItem, readCorpus } from '../corpus/read-corpus.ts';

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
  /** The identity of its last item (itemIdentity): a resume checks the input still has it there. */
  lastItem?: string;
}

/** An input item as a checkpoint names it: `document "<id>"` or `bad record <file>:<line>`. */
export function itemIdentity(item: ChunkItem): string {
  return item.kind === 'doc' ? `document ${JSON.stringify(item.doc.id)}` : `bad record ${item.record.file}:${item.record.line ?? '-'}`;
}

/** A reader's item as a chunk holds it. */
const chunkItem = (item: CorpusItem): ChunkItem => (item.kind === 'error' ? { kind: 'error', record: errorRecord(item) } : { kind: 'doc', doc: item.doc });

export interface ChunkPlan {
  inputs: string[];
  chunkItems: number;
  maxDocs?: number;
  /** Skip the items before this one (a resume from a checkpoint); chunks then start here. */
  startItem?: number;
  /** Documents among the skipped items (for --max-docs). */
  startDocs?: number;
  /** The identity the last skipped item must have (the checkpoint's `lastItem`), when it recorded one. */
  startLastItem?: string;
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
    // The only place a resume's skipped items and --max-docs are decided (run-loop.ts reads every run through here).
    if (items < start) {
      items++;
      // The checkpoint's last item must be the input's item there: counts raised by hand would skip unread documents.
      if (items === start && plan.startLastItem !== undefined && itemIdentity(chunkItem(item)) !== plan.startLastItem) {
        throw new Error(`cannot resume: the checkpoint's last item (number ${start}) was ${plan.startLastItem}, but the inputs have ${itemIdentity(chunkItem(item))} there: start again with --overwrite or another --out`);
      }
      continue;
    }
    if (item.kind === 'doc' && plan.maxDocs !== undefined && docs >= plan.maxDocs) break;
    items++;
    if (item.kind === 'doc') docs++;
    chunk.items.push(chunkItem(item));
    if (chunk.items.length === plan.chunkItems) {
      yield chunk;
      chunk = { index: chunk.index + 1, firstItem: items, items: [] };
    }
  }
  if (chunk.items.length > 0) yield chunk;
  // A resume whose checkpoint counts more items than the inputs hold: nothing was read, nothing is written.
  if (items < start) {
    throw new Error(`cannot resume: the checkpoint counts ${start} input items read, but the inputs hold ${items}: start again with --overwrite or another --out`);
  }
}

const line = (record: unknown) => JSON.stringify(record) + '\n';

/** A chunk's result while its documents go through the stages: its bad records at once, its documents as they finish. */
export interface OpenChunk {
  result: ChunkResult;
  /** Documents not finished yet. */
  docsLeft: number;
}

/** Start a chunk's result: errors.jsonl holds only the bad records, calls/train.jsonl only the documents (input order each). */
export function openChunk(chunk: Chunk, tools: readonly string[]): OpenChunk {
  const result: ChunkResult = { index: chunk.index, firstItem: chunk.firstItem, items: chunk.items.length, docs: 0, train: '', calls: '', errors: '', stats: emptyStats(tools), lastItem: chunk.items.length > 0 ? itemIdentity(chunk.items.at(-1)!) : undefined };
  let docsLeft = 0;
  for (const item of chunk.items) {
    if (item.kind === 'error') {
      result.stats.badRecords++;
      result.errors += line(item.record);
    } else docsLeft++;
  }
  return { result, docsLeft };
}

/** Add one judged document: the lines a single-process run writes for it, and its stats. */
export function addWork(open: OpenChunk, parts: PipelineParts, work: DocWork): void {
  const r = open.result;
  r.docs++;
  open.docsLeft--;
  addDoc(r.stats, work);
  for (const record of callRecords(parts, work)) r.calls += line(record);
  const t = trainRecord(parts, work);
  if (t) r.train += line(t);
}
