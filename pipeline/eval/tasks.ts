/**
 * Task families for `toolformer eval`, and the matching finetuning texts, from one set of seeded templates.
 *
 * Every family has a train side and an eval side that never share a subject (facts) or a problem (arithmetic,
 * dates): `trainDocs()` writes plain texts (no calls) that `toolformer annotate` turns into C* like any other corpus;
 * `evalPrompts()` writes prompts whose answers the model must produce. Subjects are split the way the bundled model's
 * own synthetic tool data was split (pipeline/train/data-synthetic.ts splitFacts: every 5th capital fact is held
 * out), so an eval capital was never seen in a call by either model.
 *
 * Families (paper Tables 3–5 in miniature):
 *   facts       capitals of countries and US states, element symbols and atomic numbers (LAMA-style, QA)
 *   arithmetic  one-step word problems, the numbers in the prompt, a number as answer (ASDiv/SVAMP-style, Calculator)
 *   dates       the weekday of a date written in the prompt (DATESET-style, Calendar: the prompt's date is "today")
 *   relevance   prompts no tool fits (BFCL relevance): a good model makes no call
 */
import { mulberry32, type Random } from '../random/mulberry32.ts';
import { capitalFacts, splitFacts } from '../train/data-synthetic.ts';
import { fnv1a } from '../core/text/hash.ts';
import { PAPER_TOOLS } from '../core/tools/registry.ts';

const { calculator, calendar, qa } = PAPER_TOOLS;

export type Family = 'capitals' | 'elements' | 'arithmetic' | 'dates' | 'relevance';
export const FAMILIES: readonly Family[] = ['capitals', 'elements', 'arithmetic', 'dates', 'relevance'];

export interface EvalPrompt {
  id: string;
  /** One of FAMILIES for the built-in set; a set read with `toolformer eval --set` may name others. */
  family: Family | string;
  prompt: string;
  /** Accepted answers (any one counts); empty for relevance. */
  answers: string[];
  /** The tool that fits (none for relevance). */
  tool?: string;
  /** The document date the Calendar reads (dates family; else a fixed date). */
  date: string;
  /** Template or cloze format the prompt was written in (reported per phrasing). */
  phrasing?: string;
  /** The fact's subject (country, state, element): the overlap check looks for it in the finetuning texts. */
  subject?: string;
  /** Cut from a held-out corpus document in the corpus's own format (not a template). */
  real?: boolean;
  /** The corpus document a real-format prompt was cut from. */
  source?: string;
  /** Free-text provenance, e.g. the arithmetic relation a SOTU cloze was chosen for. */
  note?: string;
}

export interface TrainDoc {
  id: string;
  text: string;
  source: string;
  date: string;
}

export interface KbFact {
  subject: string;
  relation: string;
  object: string;
}

const DEFAULT_DATE = '2020-06-15';
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October',
  'November', 'December'];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const NAMES = ['Tom', 'Anna', 'Maria', 'James', 'Lucy', 'Omar', 'Priya', 'Ben', 'Sara', 'Leo', 'Nina', 'Paul'];
const THINGS = ['apples', 'books', 'stamps', 'marbles', 'coins', 'pencils', 'cards', 'shells', 'eggs', 'boxes'];

const pick = <T>(rng: Random, xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)];
const int = (rng: Random, lo: number, hi: number): number => lo + Math.floor(rng.next() * (hi - lo + 1));

/** Capital subjects split like the bundled model's synthetic facts (every 5th held out). */
export function capitalSplit(kb: readonly KbFact[]): { train: KbFact[]; eval: KbFact[] } {
  const heldOut = new Set(splitFacts(capitalFacts()).heldOut.map((f) => /capital of (.*)\?$/.exec(f.question)![1]));
  const seen = new Set<string>();
  const facts = kb.filter((f) => f.relation === 'capital' && f.object && !seen.has(f.subject) && seen.add(f.subject));
  return { train: facts.filter((f) => !heldOut.has(f.subject)), eval: facts.filter((f) => heldOut.has(f.subject)) };
}

/** Elements split by a hash of the name: 1 in 4 held out. */
export function elementSplit(kb: readonly KbFact[]): { train: string[]; eval: string[] } {
  const names = [...new Set(kb.filter((f) => f.relation === 'symbol').map((f) => f.subject))];
  // FNV-1a of the name: a stable split by subject.
  return { train: names.filter((n) => fnv1a(n) % 4 !== 0), eval: names.filter((n) => fnv1a(n) % 4 === 0) };
}

function object(kb: readonly KbFact[], subject: string, relation: string): string {
  return kb.find((f) => f.subject === subject && f.relation === relation)!.object;
}

interface Problem {
  /** Text up to the answer. */
  stem: string;
  answer: number;
}

/** One-step word problem (ASDiv/SVAMP-style). `split` decides the number ranges' parity so train ≠ eval. */
function wordProblem(rng: Random): Problem {
  const name = pick(rng, NAMES);
  const thing = pick(rng, THINGS);
  const op = int(rng, 0, 3);
  if (op === 0) {
    const a = int(rng, 12, 95);
    const b = int(rng, 12, 95);
    return { stem: `${name} had ${a} ${thing} and got ${b} more. In all, ${name} has`, answer: a + b };
  }
  if (op === 1) {
    const a = int(rng, 40, 99);
    const b = int(rng, 11, a - 5);
    return { stem: `${name} had ${a} ${thing} and gave away ${b}. Now ${name} has`, answer: a - b };
  }
  if (op === 2) {
    const a = int(rng, 3, 12);
    const b = int(rng, 6, 30);
    return { stem: `${name} has ${a} bags with ${b} ${thing} in each bag. In total, ${name} has`, answer: a * b };
  }
  const b = int(rng, 3, 9);
  const q = int(rng, 4, 25);
  return { stem: `${name} shares ${b * q} ${thing} equally among ${b} friends. Each friend gets`, answer: q };
}

function randomDate(rng: Random, fromYear: number, toYear: number): string {
  const y = int(rng, fromYear, toYear);
  const m = int(rng, 1, 12);
  const d = int(rng, 1, 28);
  return `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function longDate(iso: string): string {
  const [y, m, d] = iso.split('-').map(Number);
  return `${MONTHS[m - 1]} ${d}, ${y}`;
}

function weekday(iso: string): string {
  const [y, m, d] = iso.split('-').map(Number);
  return WEEKDAYS[new Date(Date.UTC(y, m - 1, d)).getUTCDay()];
}

const DATE_STEM = (iso: string) => `The letter is dated ${longDate(iso)}. It was written on a`;

const RELEVANCE = [
  'The old dog slept by the fire while the children',
  'She opened the window and listened to the',
  'We walked along the river until the path',
  'The music was soft and the room smelled of',
  'He folded the letter carefully and put it',
  'The garden was full of roses and',
  'After the storm, the fishermen mended their',
  'The teacher smiled and asked the class to',
  'In the quiet library, a young woman was reading',
  'The train left the station slowly, and',
  'They painted the fence white and planted',
  'The cat watched the birds from the',
  'My grandmother liked to bake bread on',
  'The wind moved through the tall grass and',
  'Everyone laughed when the clown',
  'The ship sailed into the fog, and the sailors',
  'He tied his shoes and ran down the',
  'The candles flickered as the guests',
  'A small boat drifted across the lake while',
  'The baker woke early to prepare the',
];

/** Evaluation prompts, `perFamily` each (fewer where the held-out set is smaller), seeded. */
export function evalPrompts(kb: readonly KbFact[], perFamily = 50, seed = 11): EvalPrompt[] {
  const rng = mulberry32(seed);
  const out: EvalPrompt[] = [];
  // Evenly spaced over the held-out list, so US states (after the countries in kb.json) are asked too.
  const held = capitalSplit(kb).eval;
  const caps = Array.from({ length: Math.min(perFamily, held.length) }, (_, i) => held[Math.floor((i * held.length) / Math.min(perFamily, held.length))]);
  caps.forEach((f, i) => out.push({ id: `capitals/${i}`, family: 'capitals', prompt: `The capital of ${f.subject} is`,
    answers: [f.object], tool: qa.name, date: DEFAULT_DATE }));
  const els = elementSplit(kb).eval;
  for (let i = 0; i < Math.min(perFamily, 2 * els.length); i++) {
    const el = els[i >> 1];
    const symbol = i % 2 === 0;
    out.push({ id: `elements/${i}`, family: 'elements',
      prompt: symbol ? `The chemical symbol of ${el} is` : `The atomic number of ${el} is`,
      answers: [object(kb, el, symbol ? 'symbol' : 'atomic_number')], tool: qa.name, date: DEFAULT_DATE });
  }
  for (let i = 0; i < perFamily; i++) {
    const p = wordProblem(rng);
    out.push({ id: `arithmetic/${i}`, family: 'arithmetic', prompt: p.stem, answers: [String(p.answer)], tool: calculator.name, date: DEFAULT_DATE });
  }
  for (let i = 0; i < perFamily; i++) {
    const iso = randomDate(rng, 1990, 2030);
    out.push({ id: `dates/${i}`, family: 'dates', prompt: DATE_STEM(iso), answers: [weekday(iso)], tool: calendar.name, date: iso });
  }
  RELEVANCE.slice(0, perFamily).forEach((prompt, i) =>
    out.push({ id: `relevance/${i}`, family: 'relevance', prompt, answers: [], date: DEFAULT_DATE }));
  return out;
}

/**
 * Finetuning texts for the same families, from the train subjects only and other seeds (the eval prompts are
 * checked against them: `overlap`). Each text states the answer after the stem, as a corpus would; the pipeline
 * then decides which calls help (nothing here writes a call).
 */
export function trainDocs(kb: readonly KbFact[], options: { perFamily?: number; seed?: number } = {}): TrainDoc[] {
  const n = options.perFamily ?? 300;
  const rng = mulberry32(options.seed ?? 1001);
  const docs: TrainDoc[] = [];
  const caps = capitalSplit(kb).train;
  for (let i = 0; i < n; i++) {
    const f = caps[i % caps.length];
    const form = pick(rng, [`The capital of ${f.subject} is ${f.object}.`, `The capital of ${f.subject} is ${f.object}, a city in ${f.subject}.`,
      `${f.subject} is a country. The capital of ${f.subject} is ${f.object}.`]);
    docs.push({ id: `kbprose/capitals/${i}`, text: form, source: 'kb-prose', date: DEFAULT_DATE });
  }
  const els = elementSplit(kb).train;
  for (let i = 0; i < n; i++) {
    const el = els[i % els.length];
    const symbol = rng.next() < 0.5;
    const text = symbol ? `The chemical symbol of ${el} is ${object(kb, el, 'symbol')}.`
      : `The atomic number of ${el} is ${object(kb, el, 'atomic_number')}.`;
    docs.push({ id: `kbprose/elements/${i}`, text, source: 'kb-prose', date: DEFAULT_DATE });
  }
  for (let i = 0; i < n; i++) {
    const p = wordProblem(rng);
    docs.push({ id: `kbprose/arithmetic/${i}`, text: `${p.stem} ${p.answer}.`, source: 'kb-prose', date: DEFAULT_DATE });
  }
  for (let i = 0; i < n; i++) {
    const iso = randomDate(rng, 1800, 1989); // eval dates are 1990–2030: disjoint
    docs.push({ id: `kbprose/dates/${i}`, text: `${DATE_STEM(iso)} ${weekday(iso)}.`, source: 'kb-prose', date: iso });
  }
  return docs;
}

/**
 * Fact prompts whose subject and answer both appear in one finetuning text (the fact was seen, though not the prompt):
 * reported beside the prompt overlap.
 */
export function factOverlap(prompts: readonly EvalPrompt[], texts: readonly string[]): { id: string; prompt: string }[] {
  return prompts.filter((p) => (p.family === 'capitals' || p.family === 'elements' || p.subject !== undefined) && p.answers.length > 0).filter((p) => {
    const subject = p.subject ?? /^The (?:capital|chemical symbol|atomic number) of (.*) is$/.exec(p.prompt)?.[1];
    if (!subject) return false;
    const re = new RegExp(`\\b${p.answers[0].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`);
    return texts.some((t) => t.includes(subject) && re.test(t));
  }).map(({ id, prompt }) => ({ id, prompt }));
}

/** Eval prompts that appear verbatim in any finetuning text (the leakage check the README reports). */
export function overlap(prompts: readonly EvalPrompt[], texts: Iterable<string>): { id: string; prompt: string }[] {
  const all = [...texts];
  return prompts.filter((p) => all.some((t) => t.includes(p.prompt + ' ') || t.endsWith(p.prompt))).map(({ id, prompt }) => ({ id, prompt }));
}

export { weekday, longDate };
