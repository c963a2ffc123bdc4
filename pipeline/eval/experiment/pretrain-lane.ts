/**
 * The pretrain lane of `npm run experiment` (lanes.ts; issue 31 item 4): the longer-pretrained base in chunks
 * (long-base.ts), then (a), (d) and the control finetuned from it. It reads the arms, base corpus and held-out text
 * the main lane writes, and waits for them.
 */
import { existsSync } from 'node:fs';
import { finishSnapshot, longBaseReady, pretrainStep, snapshotCommitted } from './long-base.ts';
import { paths } from './paths.ts';
import { LONG_BASE_RUNS } from './plan.ts';
import { perRun } from './run-steps.ts';
import type { Step } from './steps.ts';

export function pretrainLane(): Step[] {
  // What the main lane writes and this lane only reads: arms (a) and (d) (the control's --data is (a)'s file too),
  // the base-mixture corpus and the held-out text of the loss step.
  const inputs = [paths.arm('a'), paths.arm('d'), paths.baseCorpus, paths.heldText];
  const ready = () => longBaseReady() && inputs.every(existsSync);
  const runs = LONG_BASE_RUNS.flatMap(perRun);
  // The base is needed only by runs not committed yet: on a clone where every one is (and the checkpoint copy is
  // gone), pretraining again would be ten CPU-hours for nothing.
  const runsDone = () => runs.every((s) => s.done());
  const pretrain = pretrainStep();
  const pretrained: Step = { ...pretrain, done: () => pretrain.done() || runsDone() };
  // Last, the committed checkpoint copy that carried the pretraining across machines (long-base.ts) is removed.
  const snapshotGone: Step = { name: 'remove the pretraining checkpoint copy', done: () => !snapshotCommitted(), ready: runsDone, run: () => finishSnapshot() };
  return [pretrained, ...runs.map((s) => ({ ...s, ready })), snapshotGone];
}
