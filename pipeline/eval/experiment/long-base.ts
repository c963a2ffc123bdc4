/**
 * The pretraining confound (issue 31 item 4): a base of models/default's size, config, tokenizer and data mixture
 * pretrained 10× longer (plan.ts PRETRAIN), by the project's own trainer (`npm run train:model`, pipeline/train), one
 * chunk per step process: `train:model --resume` for PRETRAIN.chunkMinutes, which checkpoints every
 * PRETRAIN.ckptEvery steps and at its deadline, then exports the model as it stands. A killed chunk loses at most
 * the steps since the last checkpoint; the next chunk resumes exactly (pipeline/train/resume.test.ts). The step is
 * done when the exported model's train-record.json has every step.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './corpus-files.ts';
import { paths } from './paths.ts';
import { LONG_BASE, PRETRAIN } from './plan.ts';
import { readJson, writeText, type Step } from './steps.ts';

/** The trainer's counters, as train-record.json holds them. */
export interface PretrainRecord {
  step: number;
  tokensSeen: number;
  trainSeconds: number;
}

/** The steps the longer-pretrained base has taken so far (its trainer's record; 0 before the first chunk). */
const trainedSteps = (): number => readJson<PretrainRecord>(join(paths.longBaseWork, 'train-record.json'))?.step ?? 0;

/** Whether the base is pretrained to the end and exported (the finetunes from it may start). */
export const longBaseReady = (): boolean =>
  (readJson<PretrainRecord>(join(paths.longBase, 'train-record.json'))?.step ?? 0) >= PRETRAIN.steps && existsSync(join(paths.longBase, 'onnx/model.onnx'));

/** The train:model arguments of every chunk; the same in each, so that the resumed run is the run that was started. */
export function pretrainArgs(): string[] {
  return ['--steps', String(PRETRAIN.steps), '--work', paths.longBaseWork, '--out', paths.longBase,
    '--minutes', String(PRETRAIN.chunkMinutes), '--ckpt-every', String(PRETRAIN.ckptEvery), '--eval-every', String(PRETRAIN.evalEvery),
    '--resume'];
}

export function pretrainStep(): Step {
  return {
    name: `pretrain base ${LONG_BASE} (${PRETRAIN.steps.toLocaleString('en-US')} steps, one chunk of ${PRETRAIN.chunkMinutes} min)`,
    done: longBaseReady,
    run: () => {
      const before = trainedSteps();
      const args = pretrainArgs().map((a) => (a.startsWith(ROOT) ? relative(ROOT, a) : a));
      console.error(`[experiment] $ npm run train:model -- ${args.join(' ')}`);
      const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'pipeline/train/cli.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
      if (r.status !== 0) throw new Error(`train:model exited ${r.status ?? r.signal}`);
      commitPretrainRecord();
      // A chunk shorter than the trainer's start-up and probes takes no step: fail (the steps loop stops after three
      // tries) rather than loop for ever.
      if (trainedSteps() === before && !longBaseReady()) {
        throw new Error(`pretrain: a chunk of ${PRETRAIN.chunkMinutes} min took no step (still at step ${before}); give it more minutes`);
      }
    },
  };
}

/**
 * results/base-pt10x/: the trainer's train-record.json as of the last chunk (step, tokens, train-seconds, final
 * probes) and evals.jsonl, the probes logged every PRETRAIN.evalEvery steps (a resumed chunk logs the steps after
 * its checkpoint again: one record per step is kept).
 */
function commitPretrainRecord(): void {
  const record = join(paths.longBaseWork, 'train-record.json');
  if (!existsSync(record)) return;
  writeText(join(paths.longBaseCommitted, 'train-record.json'), readFileSync(record, 'utf8'));
  const evals = new Map<number, string>();
  for (const line of readFileSync(join(paths.longBaseWork, 'log.jsonl'), 'utf8').split('\n')) {
    if (!line.includes('"event":"eval"')) continue;
    const rec = JSON.parse(line) as { step: number; time?: string };
    delete rec.time;
    evals.set(rec.step, JSON.stringify(rec));
  }
  writeText(join(paths.longBaseCommitted, 'evals.jsonl'), [...evals.values()].map((l) => l + '\n').join(''));
}
