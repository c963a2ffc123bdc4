/** The lanes of `npm run experiment` (run.ts next <lane>), each in its own file: main-lane.ts, pretrain-lane.ts, dose-lane.ts. */
import { doseLane } from './dose-lane.ts';
import { mainLane } from './main-lane.ts';
import { pretrainLane } from './pretrain-lane.ts';
import type { Step } from './steps.ts';

/**
 * The lanes of `npm run experiment`, each its own loop of `run.ts next <lane>` that may run beside the others: no
 * two lanes write the same file (per-run folders are named by run, the pretraining has its own folders) but the
 * report, which writeReport rewrites under a lock.
 *   main      the grid, the limit run, the data-volume arm (f)
 *   pretrain  the longer-pretrained base in chunks, then (a), (d) and the control finetuned from it (issue 31 item 4);
 *             it reads the arms, base corpus and held-out text the main lane writes, and waits for them
 *   dose      the pretraining dose–response (issue 47 item 2, preregistration.md): the 3× base, its runs, the fresh set
 *             on the existing 1× and 10× runs, then the second 10× base (pretraining seed 2) and its runs
 */
export const LANES = ['main', 'pretrain', 'dose'] as const;
export type Lane = (typeof LANES)[number];

export function steps(lane: Lane = 'main'): Step[] {
  return lane === 'pretrain' ? pretrainLane() : lane === 'dose' ? doseLane() : mainLane();
}

