/**
 * Self-supervision rounds (issue 21), sizes and flags in one place. Round 1 is the experiment's arm (e) seed 1
 * (pipeline/eval/experiment): its data D_1 (the pipeline's kept calls on real text + the KB prose), its model M_1
 * and its eval. Round r: annotate the experiment's corpus documents with M_r, the model alone (`--lm-context bare
 * --no-programmatic`: it picks the positions by p(" [" | x_{1:i−1}) and writes every call) → A_r, its kept calls;
 * M_{r+1} = finetune(models/default, D_1 ∪ A_1 ∪ … ∪ A_r), same steps, seed and mixture as the experiment; eval.
 *
 * Why (e) and not (a): a model must write calls before it can write its own, and (e)'s model saw the most calls; its
 * bare-text probe (25 samples per tool at the worked examples) parses 51 of 100 (results/summary.json `bareProbe`).
 */
import type { Run } from '../experiment/plan.ts';

export const ROUNDS = Number(process.env.ROUNDS ?? 3);
/** The experiment run that is round 1. */
export const ROUND_ONE: Run = { arm: 'e', seed: 1 };
/** Round 1 again from the experiment's 5× longer finetune of the same arm and seed (its LIMIT_RUNS): does length help? */
export const ROUND_ONE_LONG: Run = { arm: 'e', seed: 1, steps: 600 };
/** The paper's τ_s, k, m (Appendix A) for every tool; the sampling temperature and top-k are annotate's defaults. */
export const ANNOTATE_FLAGS = ['--lm-context', 'bare', '--no-programmatic', '--tau-s', '0.05', '--k', '5', '--m', '5'];
