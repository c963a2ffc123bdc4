/**
 * `npm run experiment` (pipeline/eval/steps-loop.sh loops `tsx run.ts next` until every step is done): the issue-20 experiment, one step
 * per process so that a stop anywhere loses at most the step in flight, and a code change is picked up at the next
 * step. Every step skips when its output exists; annotate and finetune resume from their checkpoints; every file is
 * written whole (write-then-rename, or the tools' own checkpointed writers).
 *
 *   tsx pipeline/eval/experiment/run.ts next [lane]  do the lane's first step not done (exit 0), or exit 10 when all
 *                                                 are done or wait for another lane's output; lanes (lanes.ts): main (the
 *                                                 default), pretrain and dose (`npm run experiment -- pretrain`)
 *   tsx pipeline/eval/experiment/run.ts status   list every lane's steps and whether each is done
 *   tsx pipeline/eval/experiment/run.ts report   rewrite the report from whatever has finished
 *   tsx pipeline/eval/experiment/run.ts derived  the derived sets (positive control, Factbook training-format cut) on
 *                                                 every run whose model is on disk, then the report
 *   tsx pipeline/eval/experiment/run.ts snapshot write results/ann-*.tar.xz from the annotate runs (also in flight)
 *   tsx pipeline/eval/experiment/run.ts toolformer  models/toolformer from the best arm (npm run build:toolformer)
 *
 * The steps: each lane's in its own file (lanes.ts lists them: main-lane.ts, pretrain-lane.ts, dose-lane.ts); a run's
 * finetune, eval, loss and derived sets in run-steps.ts.
 *
 * Outputs under $EXPERIMENT_OUT (default out/experiment) and checkpoints under .cache/experiment; the report and the
 * small results are committed under pipeline/eval/experiment/results/.
 */
import { existsSync } from 'node:fs';
import { LANES, steps, type Lane } from './lanes.ts';
import { LIMIT_RUNS, runName, schedule } from './plan.ts';
import { writeReport } from './report.ts';
import { DERIVED_SETS, derivedStep } from './run-steps.ts';
import type { Step } from './steps.ts';
import { paths } from './paths.ts';
import { snapshot } from './annotate-steps.ts';
import { shipModel } from './ship-model.ts';

async function main(): Promise<void> {
  const cmd = process.argv[2] ?? 'next';
  if (cmd === 'status') {
    for (const lane of LANES) {
      console.log(`lane ${lane}:`);
      for (const s of steps(lane)) console.log(`${s.done() ? 'done ' : (s.ready?.() ?? true) ? '     ' : 'wait '} ${s.name}`);
    }
    return;
  }
  if (cmd === 'report') {
    writeReport(paths);
    return;
  }
  if (cmd === 'derived') {
    // The derived sets alone, for every run whose model is on disk (and the limit run through models/toolformer).
    for (const r of [...schedule(), ...LIMIT_RUNS]) {
      if (!(existsSync(paths.model(r)) || runName(r) === runName(LIMIT_RUNS[0]))) continue;
      for (const step of DERIVED_SETS.map((d) => derivedStep(r, d)).filter((s) => !s.done())) {
        console.error(`[experiment] ${new Date().toISOString()} step: ${step.name}`);
        step.run();
      }
    }
    writeReport(paths);
    return;
  }
  if (cmd === 'snapshot') {
    for (const name of ['corpus', 'kbprose']) snapshot(name);
    return;
  }
  if (cmd === 'toolformer') {
    // Only the steps the shipped run needs: the inputs, annotations and arms, and that run's finetune, eval and loss.
    const run = LIMIT_RUNS[0];
    const own = (s: Step) => !/^(finetune|eval|held-out loss) /.test(s.name) || s.name.endsWith(` ${runName(run)}`);
    for (const s of steps().filter(own)) {
      if (s.done()) continue;
      console.error(`[experiment] ${new Date().toISOString()} step: ${s.name}`);
      await s.run();
    }
    shipModel(run);
    return;
  }
  if (cmd !== 'next') throw new Error(`usage: run.ts next [${LANES.join(' | ')}] | status | report | derived | snapshot | toolformer (got ${cmd})`);
  const lane = (process.argv[3] ?? 'main') as Lane;
  if (!LANES.includes(lane)) throw new Error(`run.ts next: no lane "${lane}" (lanes: ${LANES.join(', ')})`);
  const todo = steps(lane).filter((s) => !s.done());
  const next = todo.find((s) => s.ready?.() ?? true);
  if (!next) {
    writeReport(paths);
    console.error(todo.length === 0 ? `[experiment] lane ${lane}: every step is done`
      : `[experiment] lane ${lane}: waiting for another lane's output before "${todo[0].name}"; rerun later`);
    process.exit(10);
  }
  const t0 = Date.now();
  console.error(`[experiment] ${new Date().toISOString()} step: ${next.name}`);
  await next.run();
  console.error(`[experiment] ${new Date().toISOString()} done: ${next.name} (${((Date.now() - t0) / 60_000).toFixed(1)} min)`);
  if (/^(eval|held-out loss|arms|overlap|pretrain)/.test(next.name)) writeReport(paths);
}

// `run.ts status | head`: a reader that stops early ends the listing, not the process with a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(0);
});

main().catch((err: unknown) => {
  console.error(`[experiment] failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  process.exit(1);
});
