/**
 * The pretraining confound (issue 31 item 4) and its dose–response (issue 47 item 2): bases of models/default's size,
 * config, tokenizer and data mixture pretrained longer (plan.ts BASES: 10×, 3×, and 10× with another seed), by the project's own trainer (`npm run train:model`, pipeline/train), one
 * chunk per step process: `train:model --resume` for PRETRAIN.chunkMinutes, which checkpoints every
 * PRETRAIN.ckptEvery steps and at its deadline, then exports the model as it stands. A killed chunk loses at most
 * the steps since the last checkpoint; the next chunk resumes exactly (pipeline/train/resume.test.ts). The step is
 * done when the exported model's train-record.json has every step.
 *
 * The run outlives a machine: its CPU-hours span several sessions, and a session's next machine starts from a clone.
 * After each chunk the checkpoint (params + both AdamW moments: three float32 copies of the parameters, which barely
 * compress) and the tokenizer are copied, gzipped, beside the committed record (results/base-pt10x/checkpoint.bin.gz); a chunk on
 * a machine with no checkpoint of its own starts from that copy, so the resumed run is the run that was started.
 * The copy is removed once every run from the longer-pretrained base is committed (finishSnapshot).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { HERE, ROOT } from './corpus-files.ts';
import { paths } from './paths.ts';
import { BASES, LONG_BASE, PRETRAIN, TRAIN_THREADS, type BaseId } from './plan.ts';
import { readJson, writeText, type Step } from './steps.ts';
import { CHECKPOINT_FILE } from '../../train/checkpoint.ts';

/** The trainer's counters, as train-record.json holds them. */
export interface PretrainRecord {
  step: number;
  tokensSeen: number;
  trainSeconds: number;
}

/** The steps a base has taken so far (its trainer's record; 0 before the first chunk). */
const trainedSteps = (id: BaseId): number => readJson<PretrainRecord>(join(paths.baseWork(id), 'train-record.json'))?.step ?? 0;

/** Whether a base is pretrained to the end and exported (the finetunes from it may start). */
export const baseReady = (id: BaseId): boolean =>
  (readJson<PretrainRecord>(join(paths.base(id), 'train-record.json'))?.step ?? 0) >= BASES[id].steps && existsSync(join(paths.base(id), 'onnx/model.onnx'));
/** Whether the 10× base of issue 31 is ready. */
export const longBaseReady = (): boolean => baseReady(LONG_BASE);

/** The train:model arguments of every chunk of a base; the same in each, so that the resumed run is the run that was started. */
export function pretrainArgs(id: BaseId = LONG_BASE): string[] {
  return ['--steps', String(BASES[id].steps), '--seed', String(BASES[id].seed), '--work', paths.baseWork(id), '--out', paths.base(id),
    '--minutes', String(PRETRAIN.chunkMinutes), '--ckpt-every', String(PRETRAIN.ckptEvery), '--eval-every', String(PRETRAIN.evalEvery),
    '--threads', TRAIN_THREADS, '--resume'];
}

/** One `train:model --resume` chunk of a base, in the foreground. */
function runChunk(id: BaseId): void {
  const args = pretrainArgs(id).map((a) => (a.startsWith(ROOT) ? relative(ROOT, a) : a));
  console.error(`[experiment] $ npm run train:model -- ${args.join(' ')}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'pipeline/train/cli.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`train:model exited ${r.status ?? r.signal}`);
}

export function pretrainStep(id: BaseId = LONG_BASE): Step {
  const dirs = dirsOf(id);
  return {
    name: `pretrain base ${id} (${BASES[id].steps.toLocaleString('en-US')} steps, seed ${BASES[id].seed}, one chunk of ${PRETRAIN.chunkMinutes} min)`,
    done: () => baseReady(id),
    run: () => {
      restoreSnapshot(dirs);
      const before = trainedSteps(id);
      runChunk(id);
      commitPretrainRecord(dirs);
      // A chunk shorter than the trainer's start-up and probes takes no step: fail (the steps loop stops after three
      // tries) rather than loop for ever.
      if (trainedSteps(id) === before && !baseReady(id)) {
        throw new Error(`pretrain ${id}: a chunk of ${PRETRAIN.chunkMinutes} min took no step (still at step ${before}); give it more minutes`);
      }
    },
  };
}

/**
 * A finished base exported again from the final checkpoint a commit holds (its copy is removed from the tree once the
 * base's runs are committed): the checkpoint and tokenizer written into the work folder from `git show`, then one
 * chunk, which resumes at the last step, takes none and exports. Nothing is committed (the record is already).
 */
export function reexportStep(id: BaseId, commit: string): Step {
  const dirs = dirsOf(id);
  return {
    name: `re-export base ${id} from its final checkpoint (commit ${commit.slice(0, 7)})`,
    done: () => baseReady(id),
    run: () => {
      if (!existsSync(join(dirs.work, CHECKPOINT_FILE))) {
        for (const [work, committed] of snapshotFiles(dirs)) {
          // The copy's path in the repository (the results folder may be pointed elsewhere: EXPERIMENT_RESULTS).
          const inRepo = relative(ROOT, join(HERE, 'results', `base-${id}`, basename(committed)));
          const r = spawnSync('git', ['show', `${commit}:${inRepo}`], { cwd: ROOT, maxBuffer: 1 << 30 });
          if (r.status !== 0) throw new Error(`git show ${commit}:${inRepo} failed: ${r.stderr}`);
          writeText(work, gunzipSync(r.stdout));
        }
      }
      runChunk(id);
      if (!baseReady(id)) throw new Error(`re-export ${id}: the checkpoint of ${commit} is not the base's last step`);
    },
  };
}

/** The work folder of the longer-pretrained base and its committed results folder (tests pass their own). */
export interface PretrainDirs {
  work: string;
  committed: string;
}
export const dirsOf = (id: BaseId): PretrainDirs => ({ work: paths.baseWork(id), committed: paths.baseCommitted(id) });
const DIRS: PretrainDirs = dirsOf(LONG_BASE);

/**
 * results/base-pt10x/: the trainer's train-record.json as of the last chunk (step, tokens, train-seconds, final
 * probes), evals.jsonl, the probes logged every PRETRAIN.evalEvery steps (a resumed chunk logs the steps after
 * its checkpoint again, and an earlier machine's are in the committed file only: one record per step is kept, in
 * step order), and the checkpoint copy (saveSnapshot).
 */
export function commitPretrainRecord(dirs: PretrainDirs = DIRS): void {
  const record = join(dirs.work, 'train-record.json');
  if (!existsSync(record)) return;
  writeText(join(dirs.committed, 'train-record.json'), readFileSync(record, 'utf8'));
  saveSnapshot(dirs);
  const evals = new Map<number, string>();
  const committedEvals = join(dirs.committed, 'evals.jsonl');
  if (existsSync(committedEvals)) {
    for (const line of readFileSync(committedEvals, 'utf8').split('\n')) if (line) evals.set((JSON.parse(line) as { step: number }).step, line);
  }
  for (const line of readFileSync(join(dirs.work, 'log.jsonl'), 'utf8').split('\n')) {
    if (!line.includes('"event":"eval"')) continue;
    const rec = JSON.parse(line) as { step: number; time?: string };
    delete rec.time;
    evals.set(rec.step, JSON.stringify(rec));
  }
  const ordered = [...evals.entries()].sort(([a], [b]) => a - b).map(([, l]) => l + '\n');
  writeText(committedEvals, ordered.join(''));
}

/** The work folder's files a resumed chunk needs, each with its committed gzip: [work file, committed file]. */
const snapshotFiles = ({ work, committed }: PretrainDirs): [string, string][] =>
  [CHECKPOINT_FILE, 'tokenizer.json'].map((f) => [join(work, f), join(committed, `${f}.gz`)]);

/** Copy the work folder's checkpoint and tokenizer, gzipped, beside the committed record (write, then rename). */
export function saveSnapshot(dirs: PretrainDirs = DIRS): void {
  for (const [work, committed] of snapshotFiles(dirs)) {
    if (existsSync(work)) writeText(committed, gzipSync(readFileSync(work)));
  }
}

/** On a machine whose work folder has no checkpoint, start from the committed copy (when there is one). */
export function restoreSnapshot(dirs: PretrainDirs = DIRS): void {
  if (existsSync(join(dirs.work, CHECKPOINT_FILE))) return;
  for (const [work, committed] of snapshotFiles(dirs)) {
    if (!existsSync(committed)) continue;
    writeText(work, gunzipSync(readFileSync(committed)));
    console.error(`[experiment] restored ${work} from ${committed}`);
  }
}

/** Whether a checkpoint copy is committed (the pretraining, or the runs from it, not finished). */
export const snapshotCommitted = (dirs: PretrainDirs = DIRS): boolean => snapshotFiles(dirs).some(([, committed]) => existsSync(committed));

/** Once every run from the longer-pretrained base is committed, the checkpoint copy has done its work: remove it. */
export function finishSnapshot(dirs: PretrainDirs = DIRS): void {
  for (const [, committed] of snapshotFiles(dirs)) rmSync(committed, { force: true });
}
