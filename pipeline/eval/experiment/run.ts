/**
 * `npm run experiment` (pipeline/eval/steps-loop.sh loops `tsx run.ts next` until every step is done): the issue-20 experiment, one step
 * per process so that a stop anywhere loses at most the step in flight, and a code change is picked up at the next
 * step. Every step skips when its output exists; annotate and finetune resume from their checkpoints; every file is
 * written whole (write-then-rename, or the tools' own checkpointed writers).
 *
 *   tsx pipeline/eval/experiment/run.ts next [lane]  do the lane's first step not done (exit 0), or exit 10 when all
 *                                                 are done or wait for another lane's output; lanes (LANES): main (the
 *                                                 default) and pretrain (`npm run experiment -- pretrain`)
 *   tsx pipeline/eval/experiment/run.ts status   list every lane's steps and whether each is done
 *   tsx pipeline/eval/experiment/run.ts report   rewrite the report from whatever has finished
 *   tsx pipeline/eval/experiment/run.ts derived  the derived sets (positive control, Factbook training-format cut) on
 *                                                 every run whose model is on disk, then the report
 *   tsx pipeline/eval/experiment/run.ts snapshot write results/ann-*.tar.xz from the annotate runs (also in flight)
 *   tsx pipeline/eval/experiment/run.ts toolformer  models/toolformer from the best arm (npm run build:toolformer)
 *
 * Outputs under $EXPERIMENT_OUT (default out/experiment) and checkpoints under .cache/experiment; the report and the
 * small results are committed under pipeline/eval/experiment/results/.
 */
import { copyFileSync, cpSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { trainDocs } from '../tasks.ts';
import { armAll, armNoCalls, armRandom, callsPerTool, mentionsAny, withoutHeldOutCalls, withoutHeldOutRows, type CallRow, type TrainRecord } from './arms.ts';
import { ROOT, corpus, evalSet, factbookTrainCutSet, freshSet, heldOut, positiveControlSet, readJsonl, readKb, writeJsonl, FACTBOOK_TRAIN_CUT_FILE, FRESH_FILE, HELDOUT_FILE, POSITIVE_FILE, PROMPTS_FILE } from './corpus-files.ts';
import { heldOutSubjects, isHeldOutDoc, type CorpusDoc } from './heldout.ts';
import { ANNOTATE, DOSE_BASES, DOSE_EXISTING_RUNS, DOSE_RUNS, FULL_CORPUS_RUNS, LIMIT_RUNS, LONG_BASE, LONG_BASE_FINAL_COMMIT, LONG_BASE_RUNS, LOSS_TOKENS, MIX, STEPS, TRAIN_THREADS, runName, schedule, type BaseId, type Run } from './plan.ts';
import { baseReady, dirsOf, finishSnapshot, longBaseReady, pretrainStep, reexportStep, snapshotCommitted } from './long-base.ts';
import { RESULTS, writeReport } from './report.ts';
import { overlapReport } from './overlap.ts';
import { elementSplit } from '../tasks.ts';
import { stripCalls } from '../../core/generate/generate.ts';
import { capitalFacts, splitFacts } from '../../train/data-synthetic.ts';
import { copyInto, readJson, toolformer, writeJson, type Step } from './steps.ts';
import { armFiles, paths } from './paths.ts';
import { annotateStep, FULL_SNAPSHOT_FILES, shuffle, snapshot } from './annotate-steps.ts';
import { SHIPPED, shipModel } from './ship-model.ts';

/** 1 / the share of the non-held-out corpus used as the base-mixture corpus. */
const BASE_CORPUS_SHARE_INV = 4;

/** The inputs: documents to annotate, the base-mixture corpus and the KB prose (all without held-out subjects). */
function writeInputs(): void {
  const h = heldOut();
  const fb = corpus.factbook().filter((d) => !isHeldOutDoc(h, d));
  const sotu = corpus.sotu().filter((d) => !isHeldOutDoc(h, d));
  mkdirSync(paths.data, { recursive: true });
  const take = (docs: CorpusDoc[], n: number, seed: number) => shuffle([...docs], seed).slice(0, n);
  const section = (s: string) => fb.filter((d) => d.id.endsWith(`/${s}/0`));
  const chosen = [
    ...take(section('government'), ANNOTATE.government, ANNOTATE.seed),
    ...take(section('people-and-society'), ANNOTATE['people-and-society'], ANNOTATE.seed + 1),
    ...take(section('introduction'), ANNOTATE.introduction, ANNOTATE.seed + 2),
    ...take(section('economy'), ANNOTATE.economy, ANNOTATE.seed + 3),
    ...take(sotu, ANNOTATE.sotu, ANNOTATE.seed + 4),
  ];
  writeJsonl(paths.input, shuffle(chosen, ANNOTATE.seed + 5));
  // The base-mixture corpus: a seeded quarter of the non-held-out documents (≈ 3 MB). 120 steps draw ≈ 270 natural
  // windows from it, and every finetune tokenises the whole file at start-up (the full 13 MB cost minutes of CPU).
  const base = shuffle([...sotu, ...fb], ANNOTATE.seed + 6).slice(0, Math.ceil((sotu.length + fb.length) / BASE_CORPUS_SHARE_INV));
  writeJsonl(paths.baseCorpus, base.map(({ id, text, source }) => ({ id, text, source })));
  const kb = readKb();
  const subjects = [...heldOutSubjects(h), ...elementSplit(kb).eval];
  writeJsonl(paths.kbInput, trainDocs(kb, { perFamily: 250 }).filter((d) => !mentionsAny(d.text, subjects)));
  const held = [...corpus.sotu(), ...corpus.factbook()].filter((d) => isHeldOutDoc(h, d));
  writeJsonl(paths.heldText, held.map(({ id, text, source }) => ({ id, text, source })));
}

/**
 * The data-volume arm's input: every non-held-out corpus document (Factbook sections and SOTU addresses), in a
 * seeded order so that a partial annotation is a uniform sample of the corpus.
 */
function writeFullInput(): void {
  const h = heldOut();
  const docs = [...corpus.factbook(), ...corpus.sotu()].filter((d) => !isHeldOutDoc(h, d));
  writeJsonl(paths.fullInput, shuffle(docs.map(({ id, text, source }) => ({ id, text, source })), ANNOTATE.seed + 7));
}

/** Arm (f): (a)'s recipe on the whole-corpus annotation (kept calls, those naming a held-out subject removed). */
function writeArmF(): void {
  const docs = new Map(readJsonl<CorpusDoc>(paths.fullInput).map((d) => [d.id, d]));
  const { records, removed } = withoutHeldOutCalls(readJsonl<TrainRecord>(join(paths.annFull, 'train.jsonl')), docs, heldOutNames());
  writeJson(join(paths.out, 'arms/f-removed.json'), { heldOutCallsRemoved: removed, records: records.length, calls: callsPerTool(records) });
  writeJsonl(paths.arm('f'), records);
}

function docsById(): Map<string, CorpusDoc> {
  return new Map(readJsonl<CorpusDoc>(paths.input).map((d) => [d.id, d]));
}

/** Held-out subjects a call may not ask about: countries (all 60), states and elements. */
function heldOutNames(): string[] {
  return [...heldOutSubjects(heldOut()), ...elementSplit(readKb()).eval];
}

function writeArmsAD(): void {
  const docs = docsById();
  const { records: kept, removed } = withoutHeldOutCalls(readJsonl<TrainRecord>(join(paths.annCorpus, 'train.jsonl')), docs, heldOutNames());
  writeJson(join(paths.out, 'arms/a-removed.json'), { heldOutCallsRemoved: removed });
  writeJsonl(paths.arm('a'), kept);
  writeJsonl(paths.arm('d'), armNoCalls(kept, docs));
}

function writeArmsBCE(): void {
  const docs = docsById();
  const kept = readJsonl<TrainRecord>(paths.arm('a'));
  const allRows = readJsonl<CallRow>(join(paths.annCorpus, 'calls.jsonl'));
  const subjects = heldOutNames();
  const rows = withoutHeldOutRows(allRows, subjects);
  const b = armAll(rows, docs, 101);
  const perTool = callsPerTool(kept);
  const c = armRandom(rows, docs, perTool, 102);
  const kbKept = readJsonl<TrainRecord>(join(paths.annKb, 'train.jsonl')).filter((r) => !mentionsAny(r.text, subjects));
  writeJsonl(paths.arm('b'), b);
  writeJsonl(paths.arm('c'), c);
  writeJsonl(paths.arm('kbprose'), kbKept);
  const reasons: Record<string, number> = {};
  for (const r of allRows) reasons[r.reason.split(':')[0]] = (reasons[r.reason.split(':')[0]] ?? 0) + 1;
  const removedA = readJson<{ heldOutCallsRemoved: number }>(join(paths.out, 'arms/a-removed.json'))?.heldOutCallsRemoved ?? null;
  writeJson(paths.armStats, {
    candidates: allRows.length, candidateReasons: reasons,
    heldOutCandidatesRemoved: allRows.length - rows.length, heldOutKeptCallsRemoved: removedA,
    arms: {
      a: { records: kept.length, calls: callsPerTool(kept) },
      b: { records: b.length, calls: callsPerTool(b) },
      c: { records: c.length, calls: callsPerTool(c) },
      d: { records: kept.length, calls: {} },
      e: { records: kept.length + kbKept.length, calls: callsPerTool([...kept, ...kbKept]) },
    },
  });
}

/**
 * Every finetuning text: each arm's records with and without calls (or, before the arms exist, the plain texts they
 * are made from: the annotate input and the KB prose input), the base corpus, the synthetic fact statements.
 */
function writeOverlap(fromInputs: boolean): void {
  const texts: string[] = [];
  if (fromInputs) {
    for (const f of [paths.input, paths.kbInput]) texts.push(...readJsonl<CorpusDoc>(f).map((d) => d.text));
  } else {
    for (const a of ['a', 'b', 'c', 'd', 'kbprose']) {
      for (const r of readJsonl<TrainRecord>(paths.arm(a))) texts.push(r.text, stripCalls(r.text));
    }
  }
  texts.push(...readJsonl<CorpusDoc>(paths.baseCorpus).map((d) => d.text));
  texts.push(...splitFacts(capitalFacts()).train.map((f) => `${f.statement.replace('{a}', f.answer)} ${f.question} ${f.answer}`));
  const set = evalSet();
  writeJson(fromInputs ? paths.overlapInputs : paths.overlap, overlapReport(set.prompts, set.phrasings, texts));
}

function finetuneStep(r: Run, sets: readonly DerivedSet[] = DERIVED_SETS): Step {
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
function evalStep(r: Run): Step {
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
interface DerivedSet {
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
const DOSE_SETS: DerivedSet[] = [...DERIVED_SETS, FRESH_SET];

/**
 * A derived set on the run's model, with and without tools. Runs whose model is gone (a fresh machine) finetune
 * again first: finetuneStep is not done until every derived set's trials are committed, and the finetune is
 * deterministic in its seed (a-s1 refinetuned on 2026-12-02 wrote the committed train-record.json's losses again).
 */
function derivedStep(r: Run, set: DerivedSet): Step {
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

function lossStep(r: Run): Step {
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

const perRun = (r: Run): Step[] => [finetuneStep(r), evalStep(r), lossStep(r), ...DERIVED_SETS.map((d) => derivedStep(r, d))];

function pretrainLane(): Step[] {
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

/** The main lane's first steps, up to arms (a) and (d): what every finetune of (a), (d) or the control reads. */
const armInputs = (): Step[] => [
  { name: 'held-out lists and eval set', done: () => existsSync(PROMPTS_FILE) && existsSync(HELDOUT_FILE), run: () => void evalSet() },
  { name: 'inputs', done: () => [paths.input, paths.baseCorpus, paths.kbInput, paths.heldText].every(existsSync), run: writeInputs },
  annotateStep('annotate corpus', paths.input, paths.annCorpus),
  { name: 'arms a, d', done: () => existsSync(paths.arm('a')) && existsSync(paths.arm('d')), run: writeArmsAD },
];

/**
 * The dose lane (plan.ts DOSE_BASES, preregistration.md). It makes its own inputs (the main lane's first steps,
 * deterministic, the annotation restored from its committed snapshot) so it runs alone on a fresh clone. Per new
 * base: pretraining in chunks, then (a), (d), control × 3 seeds with every eval and the fresh set. Between the two
 * bases, the fresh set on the runs that exist (1× and the first 10×): each finetuned again (deterministic in its seed;
 * the 10× base re-exported from its final committed checkpoint). Last, each new base's checkpoint copy is removed
 * once its runs are committed.
 */
function doseLane(): Step[] {
  const perDoseRun = (r: Run): Step[] => [finetuneStep(r, DOSE_SETS), evalStep(r), lossStep(r), ...DOSE_SETS.map((d) => derivedStep(r, d))];
  const freshOnly = (r: Run): Step[] => [finetuneStep(r, [FRESH_SET]), derivedStep(r, FRESH_SET)];
  const baseSteps = (id: BaseId): Step[] => {
    const runs = DOSE_RUNS.filter((r) => r.base === id).flatMap(perDoseRun);
    const runsDone = () => runs.every((s) => s.done());
    const pretrain = pretrainStep(id);
    const snapshotGone: Step = { name: `remove the checkpoint copy of base ${id}`, done: () => !snapshotCommitted(dirsOf(id)), ready: runsDone, run: () => finishSnapshot(dirsOf(id)) };
    return [{ ...pretrain, done: () => pretrain.done() || runsDone() }, ...runs.map((s) => ({ ...s, ready: () => baseReady(id) })), snapshotGone];
  };
  // The runs on the 10× base wait for its re-export, which is needed only while one of them lacks the fresh set.
  const existing = DOSE_EXISTING_RUNS.flatMap((r) => freshOnly(r).map((s) => (r.base ? { ...s, ready: () => baseReady(r.base!) } : s)));
  const onLongBase = DOSE_EXISTING_RUNS.filter((r) => r.base === LONG_BASE).flatMap(freshOnly);
  const reexport = reexportStep(LONG_BASE, LONG_BASE_FINAL_COMMIT);
  const longBaseUsed: Step = { ...reexport, done: () => reexport.done() || onLongBase.every((s) => s.done()) };
  const rest = [...baseSteps(DOSE_BASES[0]), longBaseUsed, ...existing, ...DOSE_BASES.slice(1).flatMap(baseSteps)];
  // On a clone where every result is committed, the inputs are not needed either.
  const inputs = armInputs().map((s) => ({ ...s, done: () => s.done() || rest.every((r) => r.done()) }));
  return [...inputs, ...rest];
}

function mainLane(): Step[] {
  const [evalSetStep, inputs, ...arms] = armInputs();
  const out: Step[] = [
    evalSetStep, inputs,
    { name: 'overlap of the eval set with the plain inputs', done: () => existsSync(paths.overlapInputs), run: () => writeOverlap(true) },
    ...arms,
  ];
  const runs = schedule();
  // Seed 1 of (a) and (d) first, then the KB prose annotation and the other arms' files, then everything else.
  out.push(...runs.slice(0, 2).flatMap(perRun));
  out.push(annotateStep('annotate KB prose', paths.kbInput, paths.annKb));
  out.push({ name: 'arms b, c, e', done: () => ['b', 'c', 'kbprose'].every((a) => existsSync(paths.arm(a))) && existsSync(paths.armStats), run: writeArmsBCE });
  out.push({ name: 'overlap of the eval set with every finetuning text', done: () => existsSync(paths.overlap), run: () => writeOverlap(false) });
  // The rest of seed 2, then the limit runs (the longer finetune of the best arm), then seed 3.
  const seedTwoEnd = runs.findIndex((r) => r.seed === 3);
  out.push(...runs.slice(2, seedTwoEnd).flatMap(perRun));
  out.push(...LIMIT_RUNS.flatMap(perRun));
  out.push(...runs.slice(seedTwoEnd).flatMap(perRun));
  // The data-volume arm last: the whole corpus annotated (hours; resumable), then (a)'s recipe on it, 3 seeds.
  out.push({ name: 'inputs (whole corpus)', done: () => existsSync(paths.fullInput), run: writeFullInput });
  out.push(annotateStep('annotate whole corpus', paths.fullInput, paths.annFull, FULL_SNAPSHOT_FILES));
  out.push({ name: 'arm f', done: () => existsSync(paths.arm('f')), run: writeArmF });
  out.push(...FULL_CORPUS_RUNS.flatMap(perRun));
  return out;
}

async function main(): Promise<void> {
  const cmd = process.argv[2] ?? 'next';
  if (cmd === 'status') {
    for (const lane of LANES) {
      console.log(`lane ${lane}:`);
      for (const s of steps(lane)) console.log(`${s.done() ? 'done ' : (s.ready?.() ?? true) ? '     ' : 'wait '} ${s.name}`);
    }
    return;
  }
  if (cmd === 'report') {
    writeReport(paths);
    return;
  }
  if (cmd === 'derived') {
    // The derived sets alone, for every run whose model is on disk (and the limit run through models/toolformer).
    for (const r of [...schedule(), ...LIMIT_RUNS]) {
      if (!(existsSync(paths.model(r)) || runName(r) === runName(LIMIT_RUNS[0]))) continue;
      for (const step of DERIVED_SETS.map((d) => derivedStep(r, d)).filter((s) => !s.done())) {
        console.error(`[experiment] ${new Date().toISOString()} step: ${step.name}`);
        step.run();
      }
    }
    writeReport(paths);
    return;
  }
  if (cmd === 'snapshot') {
    for (const name of ['corpus', 'kbprose']) snapshot(name);
    return;
  }
  if (cmd === 'toolformer') {
    // Only the steps the shipped run needs: the inputs, annotations and arms, and that run's finetune, eval and loss.
    const run = LIMIT_RUNS[0];
    const own = (s: Step) => !/^(finetune|eval|held-out loss) /.test(s.name) || s.name.endsWith(` ${runName(run)}`);
    for (const s of steps().filter(own)) {
      if (s.done()) continue;
      console.error(`[experiment] ${new Date().toISOString()} step: ${s.name}`);
      await s.run();
    }
    shipModel(run);
    return;
  }
  if (cmd !== 'next') throw new Error(`usage: run.ts next [${LANES.join(' | ')}] | status | report | derived | snapshot | toolformer (got ${cmd})`);
  const lane = (process.argv[3] ?? 'main') as Lane;
  if (!LANES.includes(lane)) throw new Error(`run.ts next: no lane "${lane}" (lanes: ${LANES.join(', ')})`);
  const todo = steps(lane).filter((s) => !s.done());
  const next = todo.find((s) => s.ready?.() ?? true);
  if (!next) {
    writeReport(paths);
    console.error(todo.length === 0 ? `[experiment] lane ${lane}: every step is done`
      : `[experiment] lane ${lane}: waiting for another lane's output before "${todo[0].name}"; rerun later`);
    process.exit(10);
  }
  const t0 = Date.now();
  console.error(`[experiment] ${new Date().toISOString()} step: ${next.name}`);
  await next.run();
  console.error(`[experiment] ${new Date().toISOString()} done: ${next.name} (${((Date.now() - t0) / 60_000).toFixed(1)} min)`);
  if (/^(eval|held-out loss|arms|overlap|pretrain)/.test(next.name)) writeReport(paths);
}

// `run.ts status | head`: a reader that stops early ends the listing, not the process with a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(0);
});

main().catch((err: unknown) => {
  console.error(`[experiment] failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  process.exit(1);
});
