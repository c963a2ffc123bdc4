import { mkdirSync } from 'node:fs';
import type { AnnotateConfig } from '../../core/config.ts';
import { type RunPlan, freezePlan } from '../../core/run-plan.ts';
import type { PipelineParts } from '../../core/stages/stages.ts';
import { type RunStats, emptyStats } from '../../core/stats.ts';
import { digestInputs } from '../input-digest.ts';
import { withSkippedInputs } from '../read-corpus.ts';
import { type RunRecord, assertSameRun, resumableCheckpoint } from './resume-checks.ts';
import { RunFiles } from './run-files.ts';
import { type ChunkStore, runLoop, type Totals } from './run-loop.ts';
import { inProcessExecutor } from './executors/in-process.ts';

export { callRecord, errorRecord, trainRecord } from './run-records.ts';

/**
 * One annotate run: corpus → stages → out/<run>/{train,calls,errors}.jsonl, config.json, stats.json.
 * Crash-safe (see run-files.ts) and deterministic: no wall times or absolute paths in the files.
 */
export interface RunOptions {
  inputs: string[];
  outDir: string;
  /** Recorded in config.json (model, versions, …) beside the AnnotateConfig. */
  meta: Record<string, unknown>;
  config: AnnotateConfig;
  maxDocs?: number;
  resume?: boolean;
  /** Called after each committed document (or chunk) with the run's totals so far. */
  onDoc?: (done: { docs: number; stats: RunStats }) => void;
}

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

/** What the loop reads from the plan: the inputs, how to read them, and --max-docs. */
export const planSource = (plan: RunPlan) => ({ inputs: plan.inputs, config: plan.config, maxDocs: plan.maxDocs ?? undefined });

/** A run in this process: the loop with the in-process executor, one input item per chunk (a checkpoint per document). */
export async function runAnnotate(parts: PipelineParts, options: RunOptions): Promise<RunStats> {
  const plan = freezePlan(options.meta, { inputs: options.inputs, inputsDigest: digestInputs(options.inputs), maxDocs: options.maxDocs, config: options.config });
  const { stats } = await runLoop({
    ...planSource(plan),
    chunkItems: 1,
    executor: inProcessExecutor(parts, plan.config),
    store: runFilesStore(plan, options.outDir, options.resume),
    onCommit: ({ docs, stats }) => options.onDoc?.({ docs, stats }),
  });
  return stats;
}
