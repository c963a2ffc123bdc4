/**
 * `npm run rounds` (pipeline/eval/steps-loop.sh loops `tsx run.ts next`): the self-supervision rounds of plan.ts, one step per process,
 * each skipped when its output exists, annotate and finetune resumed from their checkpoints.
 *
 *   tsx pipeline/eval/rounds/run.ts next | status | report
 *
 * Needs the experiment's inputs and arm files (`npm run experiment` makes them first; its round-1 model is reused
 * when out/experiment/models/e-s1 exists, else finetuned again with the same command). Outputs under $ROUNDS_OUT
 * (default out/rounds), checkpoints under .cache/rounds; the small results are committed in results/.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { withoutHeldOutCalls, type TrainRecord } from '../experiment/arms.ts';
import { heldOut, readJsonl, readKb, writeJsonl, PROMPTS_FILE, ROOT } from '../experiment/corpus-files.ts';
import { heldOutSubjects, type CorpusDoc } from '../experiment/heldout.ts';
import { armFiles, paths as experiment } from '../experiment/paths.ts';
import { MIX, STEPS, runName } from '../experiment/plan.ts';
import { copyInto, toolformer, type Step } from '../experiment/steps.ts';
import { elementSplit } from '../tasks.ts';
import { ANNOTATE_FLAGS, ROUNDS, ROUND_ONE, ROUND_ONE_LONG } from './plan.ts';
import { RESULTS, writeRoundsReport } from './report.ts';

const OUT = process.env.ROUNDS_OUT ?? join(ROOT, 'out/rounds');
const WORK = process.env.ROUNDS_WORK ?? join(ROOT, '.cache/rounds');
/** A round: 1, 2, 3 …, or 'long' — round 1 from the experiment's 5× longer finetune of the same arm (plan.ts). */
type Round = number | 'long';
const dir = (r: Round) => (r === 'long' ? 'r1-long' : `r${r}`);
/** The experiment run a round's model and eval come from (round 1 and its long variant), else null. */
const experimentRun = (r: Round) => (r === 'long' ? ROUND_ONE_LONG : r === 1 ? ROUND_ONE : null);

export const roundPaths = {
  model: (r: Round) => join(OUT, dir(r), 'model'),
  /** D_1 ∪ A_1 ∪ … ∪ A_{r−1}: what M_r is finetuned on (r ≥ 2). */
  data: (r: Round) => join(OUT, dir(r), 'data.jsonl'),
  ann: (r: Round) => join(OUT, dir(r), 'annotate'),
  /** A_r: the kept calls of the round-r annotation, held-out subjects removed. */
  kept: (r: Round) => join(OUT, dir(r), 'kept.jsonl'),
  eval: (r: Round) => join(OUT, dir(r), 'eval'),
  evalData: (r: Round, which: 'lm' | 'all') => join(OUT, dir(r), `eval-data-${which}`),
  /** M_r alone on the bundled sample (npm start's 30 documents). */
  sample: (r: Round) => join(OUT, dir(r), 'sample'),
  work: (r: Round) => join(WORK, dir(r)),
  committed: (r: Round) => join(RESULTS, dir(r)),
};

const tf = (args: string[]) => toolformer(args, 'rounds');

function modelStep(r: Round): Step {
  const model = roundPaths.model(r);
  return {
    name: `model M_${r}`,
    done: () => existsSync(join(model, 'onnx/model.onnx')) && existsSync(join(model, 'train-record.json')),
    run: () => {
      const run = experimentRun(r);
      const fromExperiment = run ? experiment.model(run) : '';
      if (run && existsSync(join(fromExperiment, 'train-record.json'))) {
        mkdirSync(join(model, '..'), { recursive: true });
        cpSync(fromExperiment, model + '.tmp', { recursive: true });
        renameSync(model + '.tmp', model);
        return;
      }
      const data = r === 1 ? armFiles(ROUND_ONE.arm) : [roundPaths.data(r)];
      const work = roundPaths.work(r);
      const resume = existsSync(join(work, 'checkpoint.bin')) ? ['--resume'] : [];
      tf(['finetune', '--data', ...data, '--corpus', experiment.baseCorpus, '--out', model, '--work', work,
        '--steps', String(STEPS), '--seed', String(ROUND_ONE.seed), '--mix', String(MIX), '--quiet',
        '--eval-every', String(STEPS), '--ckpt-every', '20', '--rebuild', 'npm run rounds', ...resume]);
    },
  };
}

function annotateStep(r: Round): Step {
  const out = roundPaths.ann(r);
  return {
    name: `annotate with M_${r} (LM only, bare text)`,
    done: () => existsSync(join(out, 'stats.json')),
    run: () => {
      const resume = existsSync(join(out, 'checkpoint.json')) ? ['--resume'] : ['--overwrite'];
      tf(['annotate', experiment.input, '--model', roundPaths.model(r), '--out', out, '--workers', '1', '--quiet', '--seed', String(r === 'long' ? 1 : r), ...ANNOTATE_FLAGS, ...resume]);
      copyInto(roundPaths.committed(r), [join(out, 'stats.json'), join(out, 'config.json')]);
    },
  };
}

/** The must-show run: M_r alone (`--no-programmatic`) on npm start's corpus/sample.jsonl. */
function sampleStep(r: Round): Step {
  const out = roundPaths.sample(r);
  return {
    name: `M_${r} alone on corpus/sample.jsonl`,
    done: () => existsSync(join(roundPaths.committed(r), 'sample-stats.json')),
    run: () => {
      tf(['annotate', join(ROOT, 'corpus/sample.jsonl'), '--model', roundPaths.model(r), '--out', out, '--overwrite', '--workers', '1', '--quiet', '--seed', '0', ...ANNOTATE_FLAGS]);
      mkdirSync(roundPaths.committed(r), { recursive: true });
      cpSync(join(out, 'stats.json'), join(roundPaths.committed(r), 'sample-stats.json'));
      cpSync(join(out, 'train.jsonl'), join(roundPaths.committed(r), 'sample-train.jsonl'));
    },
  };
}

function keptStep(r: Round): Step {
  return {
    name: `A_${r}: kept calls of round ${r}, held-out subjects removed`,
    done: () => existsSync(roundPaths.kept(r)),
    run: () => {
      const docs = new Map(readJsonl<CorpusDoc>(experiment.input).map((d) => [d.id, d]));
      const subjects = [...heldOutSubjects(heldOut()), ...elementSplit(readKb()).eval];
      const { records } = withoutHeldOutCalls(readJsonl<TrainRecord>(join(roundPaths.ann(r), 'train.jsonl')), docs, subjects);
      writeJsonl(roundPaths.kept(r), records);
      copyInto(roundPaths.committed(r), [roundPaths.kept(r)]);
    },
  };
}

function dataStep(r: number): Step {
  return {
    name: `D_${r} = D_1 ∪ A_1 … A_${r - 1}`,
    done: () => existsSync(roundPaths.data(r)),
    run: () => {
      const rows = armFiles(ROUND_ONE.arm).flatMap((f) => readJsonl<TrainRecord>(f));
      for (let q = 1; q < r; q++) rows.push(...readJsonl<TrainRecord>(roundPaths.kept(q)));
      writeJsonl(roundPaths.data(r), rows);
    },
  };
}

function evalStep(r: Round): Step {
  const out = roundPaths.eval(r);
  return {
    name: `eval M_${r}`,
    done: () => existsSync(join(roundPaths.committed(r), 'trials.jsonl')),
    run: () => {
      const run = experimentRun(r);
      const fromExperiment = run ? experiment.committed(run) : '';
      if (run && existsSync(join(fromExperiment, 'trials.jsonl'))) {
        copyInto(roundPaths.committed(r), [join(fromExperiment, 'eval.json'), join(fromExperiment, 'trials.jsonl')]);
        return;
      }
      if (!existsSync(join(out, 'trials.jsonl'))) {
        const data = r === 1 ? armFiles(ROUND_ONE.arm) : [roundPaths.data(r)];
        tf(['eval', '--model', roundPaths.model(r), '--set', PROMPTS_FILE, '--trials', '0', '--out', out, '--quiet', '--data', ...data, '--no-without-tools']);
      }
      copyInto(roundPaths.committed(r), [join(out, 'eval.json'), join(out, 'trials.jsonl')]);
    },
  };
}

/** Precision and recall of the kept calls on the hand-labelled passages: the LM's alone, and with the proposers. */
function evalDataStep(r: Round, which: 'lm' | 'all'): Step {
  const out = roundPaths.evalData(r, which);
  return {
    name: `eval:data M_${r} (${which === 'lm' ? 'LM only' : 'LM + programmatic proposers'})`,
    done: () => existsSync(join(roundPaths.committed(r), `eval-data-${which}.json`)),
    run: () => {
      const flags = ANNOTATE_FLAGS.filter((f) => which === 'lm' || f !== '--no-programmatic');
      const args = ['tsx', join(ROOT, 'pipeline/eval/data-quality/run.ts'), '--eval-out', out, '--model', roundPaths.model(r), '--workers', '1', '--quiet', ...flags];
      console.error(`[rounds] $ npm run eval:data -- ${args.slice(2).join(' ')}`);
      const run = spawnSync('npx', args, { cwd: ROOT, stdio: 'inherit' });
      if (run.status !== 0) throw new Error(`eval:data exited ${run.status ?? run.signal}`);
      mkdirSync(roundPaths.committed(r), { recursive: true });
      cpSync(join(out, 'report.json'), join(roundPaths.committed(r), `eval-data-${which}.json`));
    },
  };
}

export function steps(): Step[] {
  const out: Step[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    if (r >= 2) out.push(dataStep(r));
    out.push(modelStep(r), evalStep(r), annotateStep(r), keptStep(r), sampleStep(r), evalDataStep(r, 'lm'), evalDataStep(r, 'all'));
  }
  // What a longer finetune changes: round 1 again from the experiment's 5× longer run, once the experiment made it.
  const long = [modelStep('long'), evalStep('long'), annotateStep('long'), keptStep('long'), sampleStep('long'), evalDataStep('long', 'lm'), evalDataStep('long', 'all')];
  const ready = () => existsSync(join(experiment.model(ROUND_ONE_LONG), 'train-record.json')) && existsSync(join(experiment.committed(ROUND_ONE_LONG), 'trials.jsonl'));
  out.push(...long.map((step) => ({ ...step, ready })));
  return out;
}

async function main(): Promise<void> {
  const cmd = process.argv[2] ?? 'next';
  const all = steps();
  if (cmd === 'status') {
    for (const s of all) console.log(`${s.done() ? 'done ' : '     '} ${s.name}`);
    return;
  }
  if (cmd === 'report') return writeRoundsReport(roundPaths, ROUNDS);
  if (cmd !== 'next') throw new Error(`usage: run.ts next | status | report (got ${cmd})`);
  if (!existsSync(experiment.input) || !existsSync(experiment.baseCorpus) || armFiles(ROUND_ONE.arm).some((f) => !existsSync(f))) {
    throw new Error(`the experiment's inputs and arm files are missing (${experiment.input}): run npm run experiment first`);
  }
  const next = all.find((s) => !s.done() && (s.ready?.() ?? true));
  if (!next) {
    writeRoundsReport(roundPaths, ROUNDS);
    const waiting = all.filter((s) => !s.done());
    console.error(waiting.length ? `[rounds] done for now; waiting for the experiment's ${runName(ROUND_ONE_LONG)}: ${waiting.map((s) => s.name).join('; ')} (rerun npm run rounds then)` : '[rounds] every step is done');
    process.exit(10);
  }
  const t0 = Date.now();
  console.error(`[rounds] ${new Date().toISOString()} step: ${next.name}`);
  await next.run();
  console.error(`[rounds] ${new Date().toISOString()} done: ${next.name} (${((Date.now() - t0) / 60_000).toFixed(1)} min)`);
  writeRoundsReport(roundPaths, ROUNDS);
}

main().catch((err: unknown) => {
  console.error(`[rounds] failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  process.exit(1);
});
