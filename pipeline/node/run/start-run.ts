/**
 * The one way a run starts, whoever starts it (`toolformer annotate`, runAnnotate for tests and bench scripts, a
 * queued run): the executor kind (executors/registry.ts) makes its executor and store for the frozen plan, and the
 * one loop (run-loop.ts) runs it.
 */
import type { RunPlan } from '../../core/run-plan.ts';
import { type ExecutorKind, type RunStart, executorNamed } from './executors/registry.ts';
import { type LoopResult, runLoop } from './run-loop.ts';

export type { RunStart } from './executors/registry.ts';

/** What the loop reads from the plan: the inputs, how to read them, and --max-docs. */
export const planSource = (plan: RunPlan) => ({ inputs: plan.inputs, config: plan.config, maxDocs: plan.maxDocs ?? undefined });

/** Run `plan` through the executor `kind` (a registry name or entry): its executor and store, then the loop. */
export async function startRun(plan: RunPlan, kind: string | ExecutorKind, start: RunStart): Promise<LoopResult> {
  const entry = typeof kind === 'string' ? executorNamed(kind) : kind;
  const made = await entry.make(plan, start);
  return runLoop({ ...planSource(plan), ...made, onCommit: start.onCommit });
}
