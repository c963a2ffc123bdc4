/**
 * The main lane of `npm run experiment` (lanes.ts): the held-out lists and eval set, the inputs, the annotations and
 * the arms' training files made from them, the overlap reports, then every run of the grid, the limit runs and the
 * data-volume arm (f). Its first steps, up to arms (a) and (d), are also the dose lane's (armInputs).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { elementSplit, trainDocs } from '../tasks.ts';
import { armAll, armNoCalls, armRandom, callsPerTool, mentionsAny, withoutHeldOutCalls, withoutHeldOutRows, type CallRow, type TrainRecord } from './arms.ts';
import { corpus, evalSet, heldOut, readJsonl, readKb, writeJsonl, HELDOUT_FILE, PROMPTS_FILE } from './corpus-files.ts';
import { heldOutSubjects, isHeldOutDoc, type CorpusDoc } from './heldout.ts';
import { ANNOTATE, FULL_CORPUS_RUNS, LIMIT_RUNS, schedule } from './plan.ts';
import { overlapReport } from './overlap.ts';
import { stripCalls } from '../../core/generate/generate.ts';
import { capitalFacts, splitFacts } from '../../train/data-synthetic.ts';
import { readJson, writeJson, type Step } from './steps.ts';
import { paths } from './paths.ts';
import { annotateStep, FULL_SNAPSHOT_FILES, shuffle } from './annotate-steps.ts';
import { perRun } from './run-steps.ts';

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

/** The main lane's first steps, up to arms (a) and (d): what every finetune of (a), (d) or the control reads. */
export const armInputs = (): Step[] => [
  { name: 'held-out lists and eval set', done: () => existsSync(PROMPTS_FILE) && existsSync(HELDOUT_FILE), run: () => void evalSet() },
  { name: 'inputs', done: () => [paths.input, paths.baseCorpus, paths.kbInput, paths.heldText].every(existsSync), run: writeInputs },
  annotateStep('annotate corpus', paths.input, paths.annCorpus),
  { name: 'arms a, d', done: () => existsSync(paths.arm('a')) && existsSync(paths.arm('d')), run: writeArmsAD },
];

export function mainLane(): Step[] {
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
