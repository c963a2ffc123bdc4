/**
 * The run's files as the loop's store (run-loop.ts ChunkStore): train/calls/errors.jsonl committed in input order
 * through the crash-safe RunFiles (run-files.ts), a checkpoint after each chunk, config.json at the start and
 * stats.json at the end. Used by the in-process and pool executors (registry.ts); shards and the queue write chunk
 * files instead (chunk-files.ts chunkDirStore).
 */
import { mkdirSync } from 'node:fs';
import type { RunPlan } from '../../core/run-plan.ts';
import { type RunStats, emptyStats } from '../../core/stats.ts';
import { withSkippedInputs } from '../corpus/read-corpus.ts';
import { type RunRecord, assertSameRun, resumableCheckpoint } from './resume-checks.ts';
import { RunFiles } from './run-files.ts';
import type { ChunkStore, Totals } from './run-loop.ts';

/** Start or resume a run in `outDir`: a resume's settings checked, the files opened, the plan written to config.json. */
export function openRun(plan: RunPlan, outDir: string, resume?: boolean) {
  mkdirSync(outDir, { recursive: true });
  // Checked before anything changes: a refused resume leaves every file as it was, and a resume never rewrites the
  // settings the run was made with (config.json changes only for a raised --max-docs).
  // The checkpoint as resumableCheckpoint checked it, its stats brought to today's fields (stats.ts withCurrentFields).
  const resumed = resume === true ? resumableCheckpoint(outDir, plan.config.tools) : null;
  const raised = resumed ? assertSameRun(outDir, plan as RunRecord) : null;
  const { files, checkpoint } = RunFiles.open<RunStats>(outDir, resume ?? false, resumed); // checkpoint.json read once
  if (!resumed || raised) RunFiles.writeJson(outDir, 'config.json', raised ?? plan);
  return { files, checkpoint, stats: resumed?.stats ?? emptyStats(plan.config.tools) };
}

/**
 * The run's files as the loop's store (run-loop.ts): results committed in input order, a checkpoint after each, and
 * stats.json at the end. A resume starts after the checkpoint's items.
 */
export function runFilesStore(plan: RunPlan, outDir: string, resume?: boolean): ChunkStore {
  const { files, checkpoint, stats } = openRun(plan, outDir, resume);
  return {
    start: { items: checkpoint?.items ?? 0, docs: checkpoint?.docs ?? 0, stats, lastItem: checkpoint?.lastItem },
    stored: () => null,
    put(result, totals) {
      for (const [file, text] of [['train.jsonl', result.train], ['calls.jsonl', result.calls], ['errors.jsonl', result.errors]] as const) files.pushText(file, text);
      files.commit(totals.items, totals.docs, totals.stats, totals.lastItem);
    },
    finish(totals: Totals) {
      // Bad records after the last document, or a resume with nothing left: the final checkpoint.
      files.commit(totals.items, totals.docs, totals.stats, totals.lastItem);
      RunFiles.writeJson(outDir, 'stats.json', withSkippedInputs(totals.stats, [...plan.inputs]));
      return totals.stats;
    },
    close: () => files.close(),
  };
}
