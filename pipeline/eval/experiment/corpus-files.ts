/**
 * Node edge of the experiment: reads the corpus, the KB and the tokenizer, and writes the committed held-out list
 * and eval set (`heldout.json`, `prompts.jsonl` next to this file). Everything it computes is in the pure modules.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { readJsonl } from '../../io/jsonl.ts';
import type { EvalPrompt, KbFact } from '../tasks.ts';
import { factbookTrainCutPrompts, positiveControlPrompts } from './derived-sets.ts';
import { buildEvalSet, type Phrasing } from './eval-sets.ts';
import { freshInFormatPrompts } from './fresh-set.ts';
import { chooseHeldOut, type CorpusDoc, type HeldOut } from './heldout.ts';

export const ROOT = resolve(import.meta.dirname, '../../..');
export const HERE = import.meta.dirname;
export const HELDOUT_FILE = join(HERE, 'heldout.json');
/** The committed eval set; EXPERIMENT_PROMPTS points a smoke test at a smaller one. */
export const PROMPTS_FILE = process.env.EXPERIMENT_PROMPTS ?? join(HERE, 'prompts.jsonl');
export const PHRASINGS_FILE = join(HERE, 'phrasings.json');
/** The positive control (derived-sets.ts positiveControlPrompts), built from the committed eval set. */
export const POSITIVE_FILE = join(HERE, 'positive-control.jsonl');
/** The Factbook cloze with the training-format cut (derived-sets.ts factbookTrainCutPrompts), from the committed eval set. */
export const FACTBOOK_TRAIN_CUT_FILE = join(HERE, 'factbook-train-cut.jsonl');

/** The fresh in-format set of the pretraining dose–response (fresh-set.ts), committed with the pre-registration. */
export const FRESH_FILE = join(HERE, 'fresh-in-format.jsonl');
/** Its pretraining exposure (write-fresh-set.ts): per prompt and summed, committed beside it. */
export const FRESH_EXPOSURE_FILE = join(HERE, 'fresh-in-format-exposure.json');

/** The repository's JSONL reader (file:line errors). */
export { readJsonl };

export function writeJsonl(path: string, rows: readonly object[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path + '.tmp', rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : ''));
  // Write-then-rename: a killed run never leaves half a file that a later step would take as done.
  renameSync(path + '.tmp', path);
}

export const corpus = {
  factbook: (): CorpusDoc[] => readJsonl<CorpusDoc>(join(ROOT, 'corpus/factbook.jsonl')),
  sotu: (): CorpusDoc[] => readJsonl<CorpusDoc>(join(ROOT, 'corpus/sotu.jsonl')),
};

export function readKb(): KbFact[] {
  return (JSON.parse(readFileSync(join(ROOT, 'pipeline/data/kb.json'), 'utf8')) as { facts: KbFact[] }).facts;
}

export function encoder(modelDir = join(ROOT, 'models/default')): (s: string) => number[] {
  const tok = new Tokenizer(JSON.parse(readFileSync(join(modelDir, 'tokenizer.json'), 'utf8')), {});
  return (s) => tok.encode(s, { add_special_tokens: false }).ids;
}

/** The committed held-out list (computed and written when missing; the file is the reference once committed). */
export function heldOut(): HeldOut {
  if (existsSync(HELDOUT_FILE)) return JSON.parse(readFileSync(HELDOUT_FILE, 'utf8')) as HeldOut;
  const h = chooseHeldOut(corpus.factbook(), corpus.sotu());
  writeFileSync(HELDOUT_FILE, JSON.stringify(h, null, 2) + '\n');
  return h;
}

/** The committed eval set (built and written when missing). */
export function evalSet(): { prompts: EvalPrompt[]; phrasings: Phrasing[] } {
  if (existsSync(PROMPTS_FILE) && existsSync(PHRASINGS_FILE)) {
    return { prompts: readJsonl<EvalPrompt>(PROMPTS_FILE), phrasings: JSON.parse(readFileSync(PHRASINGS_FILE, 'utf8')) as Phrasing[] };
  }
  const set = buildEvalSet({ kb: readKb(), heldOut: heldOut(), factbook: corpus.factbook(), sotu: corpus.sotu(), encode: encoder() });
  writeJsonl(PROMPTS_FILE, set.prompts);
  writeFileSync(PHRASINGS_FILE, JSON.stringify(set.phrasings, null, 2) + '\n');
  return set;
}

/** The committed positive-control set (written from the eval set when missing). */
export function positiveControlSet(): EvalPrompt[] {
  if (!existsSync(POSITIVE_FILE)) writeJsonl(POSITIVE_FILE, positiveControlPrompts(evalSet().prompts));
  return readJsonl<EvalPrompt>(POSITIVE_FILE);
}

/** The committed Factbook cloze with the training-format cut (written from the eval set when missing). */
export function factbookTrainCutSet(): EvalPrompt[] {
  if (!existsSync(FACTBOOK_TRAIN_CUT_FILE)) writeJsonl(FACTBOOK_TRAIN_CUT_FILE, factbookTrainCutPrompts(evalSet().prompts, corpus.factbook(), encoder()));
  return readJsonl<EvalPrompt>(FACTBOOK_TRAIN_CUT_FILE);
}

/** The committed fresh in-format set (written when missing; write-fresh-set.ts rewrites it and its exposure). */
export function freshSet(): EvalPrompt[] {
  if (!existsSync(FRESH_FILE)) writeJsonl(FRESH_FILE, freshInFormatPrompts({ kb: readKb(), heldOut: heldOut(), factbook: corpus.factbook(), encode: encoder() }));
  return readJsonl<EvalPrompt>(FRESH_FILE);
}
