import type { AnnotateConfig } from '../../core/config.ts';
import { freezePlan } from '../../core/run-plan.ts';
import type { PipelineParts } from '../../core/stages/stages.ts';
import type { RunStats } from '../../core/stats.ts';
import { digestInputs } from '../corpus/input-digest.ts';
import { inProcessExecutor } from './executors/in-process.ts';
import { startRun } from './start-run.ts';

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

/** A run in this process (tests, bench scripts): startRun with the in-process executor, a checkpoint per document. */
export async function runAnnotate(parts: PipelineParts, options: RunOptions): Promise<RunStats> {
  const plan = freezePlan(options.meta, { inputs: options.inputs, inputsDigest: digestInputs(options.inputs), maxDocs: options.maxDocs, config: options.config });
  const { stats } = await startRun(plan, 'in-process', {
    flags: { out: options.outDir, resume: options.resume },
    inProcess: inProcessExecutor(parts, plan.config),
    onCommit: ({ docs, stats }) => options.onDoc?.({ docs, stats }),
  });
  return stats;
}
