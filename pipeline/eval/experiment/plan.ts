/**
 * The experiment's grid and its sizes (issue 20 item 3), in one place: what is annotated, how long each finetune
 * runs, which seeds, and the order of work (seed 1 of (a) and (d) first, so partial results are useful early).
 * The arithmetic behind the numbers is in README.md ("Sizing").
 */
import type { Arm } from './arms.ts';

/**
 * Optimiser steps per finetune: 120 × 16 rows × 128 tokens = 245,760 tokens, the same for every arm and the control
 * (4.2 CPU-seconds a step measured here, ≈ 8.5 CPU-minutes a finetune; README "Sizing").
 */
export const STEPS = Number(process.env.EXPERIMENT_STEPS ?? 120); // the env override is for smoke tests only
export const SEEDS = [1, 2, 3] as const;
/** Share of base-mixture rows in every arm (the finetune default); the control is all base mixture. */
export const MIX = 0.4;

/** Documents annotated, per Factbook section (chunk 0 of each train country) and from SOTU (train addresses). */
export const ANNOTATE = {
  government: 150,
  'people-and-society': 120,
  introduction: 60,
  economy: 40,
  sotu: 130,
  seed: 7,
} as const;

/** Held-out corpus loss: tokens scored without calls (≥ 50k), in 128-token windows. */
export const LOSS_TOKENS = Number(process.env.EXPERIMENT_LOSS_TOKENS ?? 60_000);

/**
 * One finetune; `steps` only for the runs that measure a limit (absent: STEPS); `base` only for the runs finetuned
 * from the longer-pretrained base (absent: models/default).
 */
export type Run = { arm: Arm | 'control'; seed: number; steps?: number; base?: BaseId };

/**
 * Runs beyond the grid that measure what limits the result (issue 20: "what limits it, with evidence"): the best arm,
 * (e), five times as long (600 steps, 1.23M tokens — the old models/toolformer's length), seed 1. Its model is the one
 * `npm run build:toolformer` ships as models/toolformer.
 */
export const LIMIT_RUNS: Run[] = [{ arm: 'e', seed: 1, steps: 600 }];

/** Every finetune in the order the runner does them. */
export function schedule(): Run[] {
  const order: (Arm | 'control')[] = ['a', 'd', 'control', 'b', 'c', 'e'];
  return SEEDS.flatMap((seed) => order.map((arm) => ({ arm, seed })));
}

export const runName = (r: Run): string => `${r.arm}${r.steps ? r.steps : ''}${r.base ? `-${r.base}` : ''}-s${r.seed}`;

/**
 * The data-volume arm (issue 31 item 3): (a)'s recipe — the pipeline's kept calls, held-out subjects removed — on the
 * whole non-held-out corpus instead of 500 documents, 3 seeds, the grid's steps and eval. `npm run experiment` runs
 * it after the grid and the limit runs (one long job at a time): annotating ≈ 11k documents is hours of CPU,
 * checkpointed and resumed by annotate --resume.
 */
export const FULL_CORPUS_RUNS: Run[] = SEEDS.map((seed) => ({ arm: 'f', seed }));

/**
 * The pretraining confound (issue 31 item 4): a base of models/default's size, config, tokenizer and data mixture
 * (npm run train:model's defaults, seed 1) pretrained 10× longer — 18,000 steps × 16 × 128 tokens = 36.9M tokens, the
 * cosine schedule over the new total (models/default: 1,800 steps, 3.69M tokens, 2,134 train-seconds, i.e. ≈ 6 CPU-hours
 * for this one at its speed). It is trained in chunks, one `train:model --resume` process of `chunkMinutes` per step
 * (the trainer checkpoints every `ckptEvery` steps and at the deadline, and resumes exactly), then (a), (d) and the
 * control are finetuned on it as in the grid. The env overrides are for smoke tests only.
 */
export const LONG_BASE = 'pt10x';
/** Smoke tests shorten every base's pretraining to this many steps. */
const SMOKE_PRETRAIN_STEPS = process.env.EXPERIMENT_PRETRAIN_STEPS ? Number(process.env.EXPERIMENT_PRETRAIN_STEPS) : null;
export const PRETRAIN = {
  steps: SMOKE_PRETRAIN_STEPS ?? 18_000,
  chunkMinutes: Number(process.env.EXPERIMENT_PRETRAIN_MINUTES ?? 30),
  ckptEvery: 100,
  evalEvery: 500,
} as const;

/**
 * The pretrained bases beyond models/default, by id (a run's `base`; folders `base-<id>`). pt10x is issue 31's; pt3x
 * and pt10x-p2 are the pretraining dose–response of issue 47 (preregistration.md): 3× models/default's steps with
 * the 10× base's pretraining seed, and a second 10× base with another pretraining seed. Each: train:model's defaults
 * but `--steps` (the cosine schedule over that total) and `--seed`, in PRETRAIN's chunks.
 */
export const BASES = {
  pt10x: { steps: PRETRAIN.steps, seed: 1, dose: '10×' },
  pt3x: { steps: SMOKE_PRETRAIN_STEPS ?? 5_400, seed: 1, dose: '3×' },
  'pt10x-p2': { steps: PRETRAIN.steps, seed: 2, dose: '10×' },
} as const;
export type BaseId = keyof typeof BASES;
/**
 * The commit whose results/base-pt10x/checkpoint.bin.gz is the 10× base's final checkpoint (step 18,000; removed from
 * the tree once its runs were committed): the dose lane re-exports the base from it to evaluate the fresh set.
 */
export const LONG_BASE_FINAL_COMMIT = '33ac1d00eaa24083627e5b774589aff00f466f56';

/**
 * Threads of every training process (pretraining chunks and finetunes): `--threads`, a count or auto. Any count writes
 * the same bytes (pipeline/train/matmul-threads.ts), so a lane may change it between chunks.
 */
export const TRAIN_THREADS = process.env.EXPERIMENT_THREADS ?? 'auto';
/** (a), (d) and the control from a base, seed 1 of each first. */
const armsOn = (base?: BaseId): Run[] => SEEDS.flatMap((seed) => (['a', 'd', 'control'] as const).map((arm) => ({ arm, seed, ...(base ? { base } : {}) })));
/** (a), (d) and the control from the longer-pretrained base, seed 1 of each first. */
export const LONG_BASE_RUNS: Run[] = armsOn(LONG_BASE);

/** The dose–response's new bases, in the order the dose lane pretrains them (preregistration.md). */
export const DOSE_BASES: BaseId[] = ['pt3x', 'pt10x-p2'];
/** Its runs on the new bases: (a), (d), control × 3 seeds each. */
export const DOSE_RUNS: Run[] = DOSE_BASES.flatMap(armsOn);
/** Its runs that exist already (1× on models/default, the first 10× on pt10x): each gets the fresh set too. */
export const DOSE_EXISTING_RUNS: Run[] = [...armsOn(), ...LONG_BASE_RUNS];

/** The runs the report's arm tables show: the grid, the data-volume arm, the longer-pretrained bases'. */
export const reportedRuns = (): Run[] => [...schedule(), ...FULL_CORPUS_RUNS, ...LONG_BASE_RUNS, ...DOSE_RUNS];
