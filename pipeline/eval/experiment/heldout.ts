/**
 * The experiment's held-out subjects and documents (issue 20), fixed by rule and seed and committed as heldout.json.
 *
 * - Countries: every Factbook country whose capital fact the bundled model's synthetic tool rows already hold out
 *   (pipeline/train/data-synthetic.ts splitFacts: every 5th capital fact; the old eval's capitals come from the same
 *   list) — these are the eval's countries — plus a seeded draw of further Factbook countries whose documents are
 *   excluded too but which are *not* evaluated: their capitals are in the synthetic rows' train split ("Bosnia and
 *   Herzegovina has its capital in Sarajevo."), which the base model was pretrained on and every finetune's base
 *   mixture draws from. Every Factbook document of a held-out country is excluded from every finetuning text: the
 *   annotated corpus, the base-mixture corpus passed to `toolformer finetune --corpus`, and the KB prose of arm (e).
 * - US states held out the same way (no Factbook documents; they only enter the template prompts).
 * - SOTU: a seeded draw of whole addresses, excluded from every finetuning text; their chunks give the SOTU cloze
 *   prompts and, with the held-out countries' Factbook sections, the held-out corpus loss (≥ 50k tokens).
 *
 * Caveat (stated in the report): `models/default` itself was pretrained on corpus/sotu.jsonl and factbook.jsonl
 * (1 document in 50 held out by id hash), so "held out" means held out of every *finetuning* text, as the issue asks.
 */
import { mulberry32 } from '../../random/mulberry32.ts';
import { capitalFacts, splitFacts, US_STATES } from '../../train/data-synthetic.ts';

export const HELDOUT_SEED = 20;
/** Factbook countries drawn beyond the synthetic split's held-out capitals. */
export const EXTRA_COUNTRIES = 16;
/** Whole SOTU addresses held out (≈ 42 chunks of ≈ 1,000 characters each). */
export const SOTU_ADDRESSES = 10;

export interface CorpusDoc {
  id: string;
  text: string;
  source: string;
  date?: string;
}

export interface HeldOut {
  note: string;
  seed: number;
  /** Factbook country names (as in the documents' `source`), sorted. */
  countries: string[];
  /** Of those, the ones held out by the synthetic split: the eval's countries (the rest, drawn by the seed, only excluded). */
  countriesBySplit: string[];
  /** US states held out by the synthetic split. */
  states: string[];
  /** SOTU address stems (`sotu/<stem>/<chunk>`), sorted. */
  sotuAddresses: string[];
}

/** "factbook: Algeria, Government" → "Algeria". */
export function factbookCountry(doc: Pick<CorpusDoc, 'source'>): string | null {
  const m = /^factbook: (.*), ([^,]*)$/.exec(doc.source);
  return m ? m[1] : null;
}

export function sotuAddress(doc: Pick<CorpusDoc, 'id'>): string | null {
  const m = /^sotu\/([^/]+)\//.exec(doc.id);
  return m ? m[1] : null;
}

function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const rng = mulberry32(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** The held-out lists, from the corpus files' documents (deterministic: same corpus, same seed → same lists). */
export function chooseHeldOut(factbook: readonly CorpusDoc[], sotu: readonly CorpusDoc[], seed = HELDOUT_SEED): HeldOut {
  const splitHeld = new Set(splitFacts(capitalFacts()).heldOut.map((f) => /capital of (.*)\?$/.exec(f.question)![1]));
  const countries = [...new Set(factbook.map(factbookCountry).filter((c): c is string => c !== null))].sort();
  const withCapitalLine = new Set(factbook.filter((d) => /\nCapital: name: /.test(d.text)).map(factbookCountry));
  const bySplit = countries.filter((c) => splitHeld.has(c));
  const extra = shuffled(countries.filter((c) => !splitHeld.has(c) && withCapitalLine.has(c)), seed).slice(0, EXTRA_COUNTRIES);
  const addresses = [...new Set(sotu.map(sotuAddress).filter((a): a is string => a !== null))].sort();
  return {
    note: 'Held out of every finetuning text of the issue-20 experiment (pipeline/eval/experiment/heldout.ts).',
    seed,
    countries: [...bySplit, ...extra].sort(),
    countriesBySplit: bySplit,
    states: US_STATES.filter((s) => splitHeld.has(s)),
    sotuAddresses: shuffled(addresses, seed + 1).slice(0, SOTU_ADDRESSES).sort(),
  };
}

/** Whether a corpus document belongs to the held-out part (a held-out country's section or a held-out address). */
export function isHeldOutDoc(h: HeldOut, doc: Pick<CorpusDoc, 'id' | 'source'>): boolean {
  const c = factbookCountry(doc);
  if (c !== null) return h.countries.includes(c);
  const a = sotuAddress(doc);
  return a !== null && h.sotuAddresses.includes(a);
}

/** Held-out subject names (countries and states): a finetuning text naming one is an overlap. */
export function heldOutSubjects(h: HeldOut): string[] {
  return [...h.countries, ...h.states];
}

/** The subjects the eval asks about: the split's held-out countries and states (never in a synthetic fact row). */
export function evalSubjects(h: HeldOut): string[] {
  return [...h.countriesBySplit, ...h.states];
}
