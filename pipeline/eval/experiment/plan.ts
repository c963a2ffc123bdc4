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
export type Run = { arm: Arm | 'control'; seed: number; steps?: number; base?: typeof LONG_BASE };

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
export const PRETRAIN = {
  steps: Number(process.env.EXPERIMENT_PRETRAIN_STEPS ?? 18_000),
  chunkMinutes: Number(process.env.EXPERIMENT_PRETRAIN_MINUTES ?? 30),
  ckptEvery: 100,
  evalEvery: 500,
} as const;
/**
 * Threads of every training process (pretraining chunks and finetunes): `--threads`, a count or auto. Any count writes
 * the same bytes (pipeline/train/matmul-threads.ts), so a lane may change it between chunks.
 */
export const TRAIN_THREADS = process.env.EXPERIMENT_THREADS ?? 'auto';
/** (a), (d) and the control from the longer-pretrained base, seed 1 of each first. */
export const LONG_BASE_RUNS: Run[] = SEEDS.flatMap((seed) => (['a', 'd', 'control'] as const).map((arm) => ({ arm, seed, base: LONG_BASE })));

/** The runs the report's arm tables show: the grid, then the data-volume arm, then the longer-pretrained base's. */
export const reportedRuns = (): Run[] => [...schedule(), ...FULL_CORPUS_RUNS, ...LONG_BASE_RUNS];
