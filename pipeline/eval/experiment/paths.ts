/** Where the experiment's files live ($EXPERIMENT_OUT, default out/experiment; checkpoints in .cache/experiment). */
import { join } from 'node:path';
import { ROOT } from './corpus-files.ts';
import { LONG_BASE, runName, type BaseId, type Run } from './plan.ts';
import { RESULTS } from './report.ts';

export const OUT = process.env.EXPERIMENT_OUT ?? join(ROOT, 'out/experiment');
export const WORK = process.env.EXPERIMENT_WORK ?? join(ROOT, '.cache/experiment');
export const paths = {
  out: OUT,
  data: join(OUT, 'data'),
  input: join(OUT, 'data/annotate-input.jsonl'),
  baseCorpus: join(OUT, 'data/base-corpus.jsonl'),
  kbInput: join(OUT, 'data/kbprose-input.jsonl'),
  heldText: join(OUT, 'data/heldout-text.jsonl'),
  annCorpus: join(OUT, 'ann/corpus'),
  annKb: join(OUT, 'ann/kbprose'),
  /** The data-volume arm: every non-held-out corpus document, annotated (plan.ts FULL_CORPUS_RUNS). */
  fullInput: join(OUT, 'data/full-corpus-input.jsonl'),
  annFull: join(OUT, 'ann/full'),
  /** A pretrained base (plan.ts BASES): the exported model, its trainer's work folder, its committed record. */
  base: (id: BaseId) => join(OUT, 'models', `base-${id}`),
  baseWork: (id: BaseId) => join(WORK, `base-${id}`),
  baseCommitted: (id: BaseId) => join(RESULTS, `base-${id}`),
  /** The same for the 10× base of issue 31 (plan.ts LONG_BASE). */
  longBase: join(OUT, 'models', `base-${LONG_BASE}`),
  longBaseWork: join(WORK, `base-${LONG_BASE}`),
  longBaseCommitted: join(RESULTS, `base-${LONG_BASE}`),
  arm: (name: string) => join(OUT, 'arms', `${name}.jsonl`),
  armStats: join(OUT, 'arms/stats.json'),
  overlap: join(OUT, 'overlap.json'),
  overlapInputs: join(OUT, 'overlap-inputs.json'),
  model: (r: Run) => join(OUT, 'models', runName(r)),
  work: (r: Run) => join(WORK, runName(r)),
  eval: (r: Run) => join(OUT, 'eval', runName(r)),
  loss: (r: Run) => join(OUT, 'loss', `${runName(r)}.json`),
  /** Finished results, committed (a fresh machine skips the finetune, eval and loss of a run found here). */
  committed: (r: Run) => join(RESULTS, 'runs', runName(r)),
  /** Annotation snapshots, committed (xz tarballs; a fresh machine restores them and resumes). */
  snapshot: (name: string) => join(RESULTS, `ann-${name}.tar.xz`),
};


export function armFiles(arm: Run['arm']): string[] {
  if (arm === 'e') return [paths.arm('a'), paths.arm('kbprose')];
  if (arm === 'control') return [paths.arm('a')];
  return [paths.arm(arm)];
}

