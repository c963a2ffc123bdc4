/**
 * The steps every run of the experiment is made of, whichever lane runs it (lanes.ts): finetune, eval with the
 * experiment's prompts, held-out loss, and each derived prompt set (derived-sets.ts, fresh-set.ts). Each is done when
 * its committed result exists, so a clone with the results committed has nothing to redo.
 */
import { copyFileSync, cpSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { factbookTrainCutSet, freshSet, positiveControlSet, FACTBOOK_TRAIN_CUT_FILE, FRESH_FILE, POSITIVE_FILE, PROMPTS_FILE } from './corpus-files.ts';
import { LIMIT_RUNS, LOSS_TOKENS, MIX, STEPS, TRAIN_THREADS, runName, type Run } from './plan.ts';
import { copyInto, toolformer, type Step } from './steps.ts';
import { armFiles, paths } from './paths.ts';
import { SHIPPED } from './ship-model.ts';

export function finetuneStep(r: Run, sets: readonly DerivedSet[] = DERIVED_SETS): Step {
  const model = paths.model(r);
  const work = paths.work(r);
  return {
    name: `finetune ${runName(r)}`,
    done: () => (existsSync(join(model, 'onnx/model.onnx')) && existsSync(join(model, 'train-record.json'))) ||
      ['trials.jsonl', 'loss.json', ...sets.map((d) => d.trialsFile)].every((f) => existsSync(join(paths.committed(r), f))),
    run: () => {
      const resume = existsSync(join(work, 'checkpoint.bin')) ? ['--resume'] : []; // the trainer's one checkpoint file
      const base = r.base ? ['--base', paths.base(r.base)] : []; // else the CLI's default, models/default
      toolformer(['finetune', ...base, '--data', ...armFiles(r.arm), '--corpus', paths.baseCorpus, '--out', model, '--work', work,
        '--steps', String(r.steps ?? STEPS), '--seed', String(r.seed), '--mix', String(r.arm === 'control' ? 1 : MIX), '--quiet',
        // Probes at step 0 and at the end only (each costs ≈ 7 CPU-seconds); checkpoints every 20 steps.
        '--eval-every', String(STEPS), '--ckpt-every', '20', '--threads', TRAIN_THREADS,
        '--rebuild', 'npm run experiment', ...resume]);
    },
  };
}

/** With tools for every model; also without tools for (d) and the control (the baselines). */
export function evalStep(r: Run): Step {
  const out = paths.eval(r);
  return {
    name: `eval ${runName(r)}`,
    done: () => existsSync(join(paths.committed(r), 'trials.jsonl')),
    run: () => {
      if (!existsSync(join(out, 'trials.jsonl'))) {
        const without = r.arm === 'd' || r.arm === 'control' ? [] : ['--no-without-tools'];
        toolformer(['eval', '--model', paths.model(r), '--set', PROMPTS_FILE, '--trials', '0', '--out', out, '--quiet',
          '--data', ...armFiles(r.arm), ...without]);
      }
      copyInto(paths.committed(r), [join(out, 'eval.json'), join(out, 'eval.md'), join(out, 'trials.jsonl')]);
    },
  };
}

/** A prompt set derived from the eval set (derived-sets.ts), evaluated per run after the main eval. */
export interface DerivedSet {
  /** Step name prefix. */
  label: string;
  /** Its eval folder under the run's out/experiment/eval/<run>/. */
  dir: string;
  /** The committed trials, in results/runs/<run>/. */
  trialsFile: string;
  /** The set's committed file, written when missing. */
  file: string;
  ensure(): unknown;
}

/**
 * Issue 31: the positive control (item 2; the held-out subjects in the training templates) and the Factbook cloze
 * with the training-format cut (item 1; the "Country name:" line kept).
 */
export const DERIVED_SETS: DerivedSet[] = [
  { label: 'positive control', dir: 'positive', trialsFile: 'positive-trials.jsonl', file: POSITIVE_FILE, ensure: positiveControlSet },
  { label: 'Factbook cloze, training-format cut', dir: 'factbook-train-cut', trialsFile: 'factbook-train-cut-trials.jsonl', file: FACTBOOK_TRAIN_CUT_FILE, ensure: factbookTrainCutSet },
];

/**
 * The fresh in-format set of the pretraining dose–response (fresh-set.ts, preregistration.md): evaluated on the dose
 * lane's runs only (the other runs' finetunes would all count as not done without it).
 */
export const FRESH_SET: DerivedSet = { label: 'fresh in-format set', dir: 'fresh', trialsFile: 'fresh-trials.jsonl', file: FRESH_FILE, ensure: freshSet };
/** Every derived set of a dose-lane run. */
export const DOSE_SETS: DerivedSet[] = [...DERIVED_SETS, FRESH_SET];

/**
 * A derived set on the run's model, with and without tools. Runs whose model is gone (a fresh machine) finetune
 * again first: finetuneStep is not done until every derived set's trials are committed, and the finetune is
 * deterministic in its seed (a-s1 refinetuned on 2026-12-02 wrote the committed train-record.json's losses again).
 */
export function derivedStep(r: Run, set: DerivedSet): Step {
  const out = join(paths.eval(r), set.dir);
  const committed = join(paths.committed(r), set.trialsFile);
  return {
    name: `${set.label} ${runName(r)}`,
    done: () => existsSync(committed),
    run: () => {
      set.ensure();
      // models/toolformer is the limit run (ship-model.ts), so it stands in for that run's model where out/ lost it.
      const model = !existsSync(paths.model(r)) && runName(r) === runName(LIMIT_RUNS[0]) && existsSync(SHIPPED) ? SHIPPED : paths.model(r);
      if (!existsSync(join(out, 'trials.jsonl'))) {
        toolformer(['eval', '--model', model, '--set', set.file, '--trials', '0', '--out', out, '--quiet', '--data', ...armFiles(r.arm)]);
      }
      mkdirSync(paths.committed(r), { recursive: true });
      cpSync(join(out, 'trials.jsonl'), committed);
    },
  };
}

export function lossStep(r: Run): Step {
  return {
    name: `held-out loss ${runName(r)}`,
    done: () => existsSync(join(paths.committed(r), 'loss.json')),
    run: () => {
      if (!existsSync(paths.loss(r))) {
        toolformer(['loss', '--model', paths.model(r), '--input', paths.heldText, '--tokens', String(LOSS_TOKENS), '--out', paths.loss(r)]);
      }
      mkdirSync(paths.committed(r), { recursive: true });
      copyFileSync(paths.loss(r), join(paths.committed(r), 'loss.json'));
      const rec = join(paths.model(r), 'train-record.json');
      if (existsSync(rec)) copyFileSync(rec, join(paths.committed(r), 'train-record.json'));
    },
  };
}

/** A run's steps in the main and pretrain lanes: finetune, eval, held-out loss, then each derived set. */
export const perRun = (r: Run): Step[] => [finetuneStep(r), evalStep(r), lossStep(r), ...DERIVED_SETS.map((d) => derivedStep(r, d))];
