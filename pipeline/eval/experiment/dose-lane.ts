/** The dose lane of `npm run experiment` (lanes.ts): the pretraining dose–response, issue 47 item 2. */
import { armInputs } from './main-lane.ts';
import { baseReady, dirsOf, finishSnapshot, pretrainStep, reexportStep, snapshotCommitted } from './long-base.ts';
import { DOSE_BASES, DOSE_EXISTING_RUNS, DOSE_RUNS, LONG_BASE, LONG_BASE_FINAL_COMMIT, type BaseId, type Run } from './plan.ts';
import { derivedStep, DOSE_SETS, evalStep, finetuneStep, FRESH_SET, lossStep } from './run-steps.ts';
import type { Step } from './steps.ts';

/**
 * The dose lane (plan.ts DOSE_BASES, preregistration.md). It makes its own inputs (the main lane's first steps,
 * deterministic, the annotation restored from its committed snapshot) so it runs alone on a fresh clone. Per new
 * base: pretraining in chunks, then (a), (d), control × 3 seeds with every eval and the fresh set. Between the two
 * bases, the fresh set on the runs that exist (1× and the first 10×): each finetuned again (deterministic in its seed;
 * the 10× base re-exported from its final committed checkpoint). Last, each new base's checkpoint copy is removed
 * once its runs are committed.
 */
export function doseLane(): Step[] {
  const perDoseRun = (r: Run): Step[] => [finetuneStep(r, DOSE_SETS), evalStep(r), lossStep(r), ...DOSE_SETS.map((d) => derivedStep(r, d))];
  const freshOnly = (r: Run): Step[] => [finetuneStep(r, [FRESH_SET]), derivedStep(r, FRESH_SET)];
  const baseSteps = (id: BaseId): Step[] => {
    const runs = DOSE_RUNS.filter((r) => r.base === id).flatMap(perDoseRun);
    const runsDone = () => runs.every((s) => s.done());
    const pretrain = pretrainStep(id);
    const snapshotGone: Step = { name: `remove the checkpoint copy of base ${id}`, done: () => !snapshotCommitted(dirsOf(id)), ready: runsDone, run: () => finishSnapshot(dirsOf(id)) };
    return [{ ...pretrain, done: () => pretrain.done() || runsDone() }, ...runs.map((s) => ({ ...s, ready: () => baseReady(id) })), snapshotGone];
  };
  // The runs on the 10× base wait for its re-export, which is needed only while one of them lacks the fresh set.
  const existing = DOSE_EXISTING_RUNS.flatMap((r) => freshOnly(r).map((s) => (r.base ? { ...s, ready: () => baseReady(r.base!) } : s)));
  const onLongBase = DOSE_EXISTING_RUNS.filter((r) => r.base === LONG_BASE).flatMap(freshOnly);
  const reexport = reexportStep(LONG_BASE, LONG_BASE_FINAL_COMMIT);
  const longBaseUsed: Step = { ...reexport, done: () => reexport.done() || onLongBase.every((s) => s.done()) };
  const rest = [...baseSteps(DOSE_BASES[0]), longBaseUsed, ...existing, ...DOSE_BASES.slice(1).flatMap(baseSteps)];
  // On a clone where every result is committed, the inputs are not needed either.
  const inputs = armInputs().map((s) => ({ ...s, done: () => s.done() || rest.every((r) => r.done()) }));
  return [...inputs, ...rest];
}
