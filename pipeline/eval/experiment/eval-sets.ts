/**
 * The experiment's eval sets (issue 20, item 1): per family ≥ 100 held-out prompts in ≥ 5 phrasings, none of them a
 * finetuning template, and real-format cloze prompts cut from held-out corpus documents. Pure: the corpus, the KB,
 * the held-out lists and a tokenizer's `encode` are passed in; `toolformer eval --set <prompts.jsonl>` runs them.
 *
 * Families (the tool that fits; none = a good model makes no call):
 *   capitals      QA          held-out countries and US states; 5 template phrasings + the Factbook's own
 *                             "X: Government. … Capital: name:" cut from held-out countries' sections ("factbook-cloze")
 *   elements      QA          held-out elements (tasks.ts elementSplit), symbol and atomic number, 5 phrasings
 *   arithmetic    Calculator  5 template phrasings + held-out SOTU text cut before a number that is the sum,
 *                             difference, product or quotient of two earlier numbers ("sotu-cloze")
 *   dates         Calendar    about *today*: the date is the prompt's `date` (varied per prompt, 1990–2030) and is
 *                             never written in the prompt; 5 phrasings (weekday, year, month, full date)
 *   dates-stated  none        a date is stated and the question is about that date (its weekday): the Calendar only
 *                             knows today, so the expected behaviour is no call (scored as the no-call rate; the
 *                             weekday's accuracy is reported for information)
 *   relevance     none        no tool fits: narrative (tasks.ts RELEVANCE), advice and dialogue sentences, and held-out SOTU
 *                             and Factbook prose cut before an ordinary word
 */
import { mulberry32, type Random } from '../../random/mulberry32.ts';
import { findQuantities } from '../../core/tools/calculator/quantities.ts';
import { relation } from '../../core/tools/calculator/prefilter.ts';
import { elementSplit, longDate, weekday, type EvalPrompt, type KbFact } from '../tasks.ts';
import { evalSubjects, factbookCountry, isHeldOutDoc, type CorpusDoc, type HeldOut } from './heldout.ts';
import { PAPER_TOOLS } from '../../core/tools/registry.ts';

const { calculator, calendar, qa } = PAPER_TOOLS;

export const EVAL_SEED = 2020;
/** Prompt tokens at most: 128 positions − 48 new tokens (the eval's --max-new-tokens) − a margin. */
export const MAX_PROMPT_TOKENS = 72;

/** A phrasing: its name and a regex that finds the same template, with any subject, in a finetuning text. */
export interface Phrasing {
  family: string;
  name: string;
  /** Fixed text of the template with `{S}` for the slot; real-format cloze phrasings have none. */
  template?: string;
  real: boolean;
}

export interface EvalSet {
  prompts: EvalPrompt[];
  phrasings: Phrasing[];
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October',
  'November', 'December'];

const pick = <T>(rng: Random, xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)];
const int = (rng: Random, lo: number, hi: number): number => lo + Math.floor(rng.next() * (hi - lo + 1));

const CAPITAL_TEMPLATES = [
  ['possessive', "{S}'s capital city is"],
  ['which-city', 'Which city is the capital of {S}? The answer is'],
  ['seat', 'The seat of government of {S} is in the city of'],
  ['travel', 'Travellers to {S} usually arrive first in its capital,'],
  ['label', 'Capital city of {S}:'],
] as const;

const ELEMENT_TEMPLATES = [
  ['has-symbol', 'The element {S} has the chemical symbol', 'symbol'],
  ['symbol-for', 'On the periodic table, the symbol for {S} is', 'symbol'],
  ['written-as', 'Chemists write {S} with the letters', 'symbol'],
  ['has-number', 'The element {S} has atomic number', 'atomic_number'],
  ['protons', 'The number of protons in an atom of {S} is', 'atomic_number'],
] as const;

const NAMES = ['Grace', 'Hugo', 'Ines', 'Marek', 'Yuki', 'Tariq', 'Elena', 'Kofi', 'Rosa', 'Viktor'];

/** Arithmetic templates: the stem's numbers and the answer (one operation each). */
function arithmetic(rng: Random, kind: number): { phrasing: string; template: string; prompt: string; answer: number } {
  const name = pick(rng, NAMES);
  if (kind === 0) {
    const a = int(rng, 120, 980);
    const b = int(rng, 120, 980);
    return { phrasing: 'farm-total', template: 'A farm sold {a} sheep in spring and {b} in autumn, a total of',
      prompt: `A farm sold ${a} sheep in spring and ${b} in autumn, a total of`, answer: a + b };
  }
  if (kind === 1) {
    const a = int(rng, 300, 990);
    const b = int(rng, 101, a - 50);
    return { phrasing: 'difference', template: 'The difference between {a} and {b} is',
      prompt: `The difference between ${a} and ${b} is`, answer: a - b };
  }
  if (kind === 2) {
    const a = int(rng, 13, 48);
    const b = int(rng, 13, 48);
    return { phrasing: 'crates', template: '{a} crates holding {b} bottles each make',
      prompt: `${a} crates holding ${b} bottles each make`, answer: a * b };
  }
  if (kind === 3) {
    const b = int(rng, 3, 12);
    const q = int(rng, 12, 99);
    return { phrasing: 'split', template: '{name} split {c} dollars evenly among {b} people, so each received',
      prompt: `${name} split ${b * q} dollars evenly among ${b} people, so each received`, answer: q };
  }
  const a = int(rng, 1200, 9800);
  const b = int(rng, 150, 990);
  return { phrasing: 'budget', template: 'The budget was {a} dollars; after spending {b} dollars, the amount left was',
    prompt: `The budget was ${a} dollars; after spending ${b} dollars, the amount left was`, answer: a - b };
}

/** "Today" phrasings: the answer part of the Calendar's "Today is Monday, January 30, 2023." */
const TODAY_TEMPLATES: readonly { name: string; prompt: string; answers: (iso: string) => string[] }[] = [
  { name: 'weekday-question', prompt: 'What day of the week is it today? Today is a', answers: (d) => [weekday(d)] },
  { name: 'weekday-diary', prompt: 'Dear diary, it is the end of another week day; today is', answers: (d) => [weekday(d), longDate(d)] },
  { name: 'year', prompt: 'The current year is', answers: (d) => [d.slice(0, 4)] },
  { name: 'month', prompt: 'We are now in the month of', answers: (d) => [MONTHS[Number(d.slice(5, 7)) - 1]] },
  { name: 'full-date', prompt: "Today's date, written out in full, is", answers: (d) => [longDate(d), `${weekday(d)}, ${longDate(d)}`] },
];

/** A date is stated; the question is about that date, which the Calendar (today only) cannot answer. */
const STATED_TEMPLATES: readonly [string, (date: string) => string][] = [
  ['treaty', (d) => `The treaty was signed on ${d}. That day was a`],
  ['born', (d) => `She was born on ${d}, which fell on a`],
  ['storm', (d) => `The great storm struck on ${d}; the day of the week was`],
  ['opened', (d) => `The bridge opened on ${d}. It opened on a`],
  ['question', (d) => `What day of the week was ${d}? It was a`],
];

const RELEVANCE_NARRATIVE = [
  'The old dog slept by the fire while the children', 'She opened the window and listened to the',
  'We walked along the river until the path', 'The music was soft and the room smelled of',
  'He folded the letter carefully and put it', 'The garden was full of roses and',
  'After the storm, the fishermen mended their', 'The teacher smiled and asked the class to',
  'In the quiet library, a young woman was reading', 'The train left the station slowly, and',
  'They painted the fence white and planted', 'The cat watched the birds from the',
  'My grandmother liked to bake bread on', 'The wind moved through the tall grass and',
  'Everyone laughed when the clown', 'The ship sailed into the fog, and the sailors',
  'He tied his shoes and ran down the', 'The candles flickered as the guests',
  'A small boat drifted across the lake while', 'The baker woke early to prepare the',
];
const RELEVANCE_ADVICE = [
  'Before you leave the house, remember to', 'If the soup tastes bland, try adding a little',
  'To keep a plant healthy, water it', 'When you meet someone new, it is polite to',
  'A good way to fall asleep is to', 'If you feel tired in the afternoon, go for a',
  'Always wash your hands before you', 'To learn a song by heart, sing it',
  'When it rains, the children like to', 'The best way to read a long book is to',
  'If the door is stuck, push it gently and', 'Keep your desk tidy so that you can',
  'When the kettle whistles, pour the water over the', 'To make friends in a new town, join a',
  'If you lose your way in the woods, stay', 'On a cold morning, wear a warm',
  'When you write a letter to a friend, tell', 'Before painting a wall, cover the floor with',
  'If a bird builds a nest on your balcony,', 'To carry heavy bags, bend your knees and',
];

const RELEVANCE_DIALOGUE = [
  '"Would you like some tea?" she asked. "Yes, please," he said, "with a little', '"Where did you put my keys?" "I think I left them on the',
  '"How was the concert?" "Wonderful. The singer had such a', '"Are you coming with us tonight?" "I would love to, but I have to',
  '"What a lovely garden," said the visitor. "Thank you, we planted the', '"Is it going to rain?" "Probably. Take your',
  '"Why are you smiling?" "Because my sister just', '"Can you help me carry this?" "Of course. Lift the',
  '"Did you sleep well?" "Not really, the neighbours were', '"What shall we cook?" "Something simple, perhaps a',
  '"Have you read the letter?" "Yes, and it made me', '"Shall we walk or take the bus?" "Let us walk; the evening is',
  '"Who is at the door?" "Only the postman with a', '"Why is the dog barking?" "He heard a',
  '"Where are the children?" "Playing in the', '"Do you like the new house?" "Very much, especially the',
  '"What did the doctor say?" "That I should rest and drink', '"Is the soup ready?" "Almost; it needs a few more',
  '"What are you painting?" "The old mill by the', '"Why so quiet today?" "I am just a little',
];

/** Cuts the last `maxTokens` tokens' worth of whole words of `text` (so a cloze prompt fits the context). */
export function fitLeft(text: string, encode: (s: string) => number[], maxTokens: number): string {
  if (encode(text).length <= maxTokens) return text;
  const words = text.split(/(?<=\s)/);
  let lo = 0;
  while (lo < words.length - 1 && encode(words.slice(lo).join('')).length > maxTokens) lo++;
  return words.slice(lo).join('');
}

/** "X: Government.\n…\nCapital: name:" with whole lines after the header dropped until it fits. */
function factbookCapitalCloze(doc: CorpusDoc, encode: (s: string) => number[]): { prompt: string; answer: string } | null {
  const at = doc.text.indexOf('\nCapital: name: ');
  if (at < 0) return null;
  const answer = /^([^;\n]+)/.exec(doc.text.slice(at + '\nCapital: name: '.length))?.[1].trim();
  if (!answer || /^none\b/i.test(answer)) return null;
  const lines = doc.text.slice(0, at).split('\n');
  const header = lines[0];
  const cue = '\nCapital: name:';
  let body = lines.slice(1);
  const build = () => [header, ...body].join('\n') + cue;
  while (body.length > 0 && encode(build()).length > MAX_PROMPT_TOKENS) body = body.slice(1);
  const prompt = build();
  return encode(prompt).length <= MAX_PROMPT_TOKENS ? { prompt, answer } : null;
}

/** Held-out SOTU text cut before a number that two earlier numbers (within the prompt) give by one operation. */
function sotuArithmeticCloze(doc: CorpusDoc, encode: (s: string) => number[]): { prompt: string; answer: string; relation: string }[] {
  const nums = findQuantities(doc.text);
  const out: { prompt: string; answer: string; relation: string }[] = [];
  for (let k = 2; k < nums.length; k++) {
    const c = nums[k];
    let found: string | null = null;
    for (let i = 0; i < k && !found; i++) {
      for (let j = i + 1; j < k && !found; j++) {
        if (c.start - nums[i].start > 400) continue;
        found = relation(nums[i], nums[j], c);
        // The result must be the last of the three (a cloze before it), not an operand.
        if (found && !found.endsWith(`= ${c.value}${c.percent ? '%' : ''}`)) found = null;
      }
    }
    if (!found) continue;
    let cut = c.start;
    if (doc.text[cut - 1] === '$') cut--;
    // A whole number after a space: not the "4" of "3/4", not a number glued to a word.
    if (doc.text[cut - 1] !== ' ' || doc.text[c.end] === '/') continue;
    const prompt = fitLeft(doc.text.slice(0, cut).trimEnd(), encode, MAX_PROMPT_TOKENS);
    const operandsInPrompt = found.split(/[=+\-*/]| of /).slice(0, 2).every((s) => prompt.replace(/,/g, '').includes(s.trim().replace(/%$/, '')));
    if (!operandsInPrompt) continue;
    out.push({ prompt, answer: doc.text.slice(c.start, c.end).replace(/^\$/, ''), relation: found });
  }
  return out;
}

/** Held-out prose cut before an ordinary lower-case word, no digits in the last sentence (no tool fits). */
function proseCuts(doc: CorpusDoc, encode: (s: string) => number[], rng: Random, n: number): string[] {
  const sentences = doc.text.split(/(?<=[.!?])\s+/).filter((s) => /^[A-Z]/.test(s) && !/\d|\[|\]/.test(s) && s.split(' ').length >= 12);
  const out: string[] = [];
  for (const s of sentences) {
    if (out.length >= n) break;
    const words = s.split(' ');
    const cutAt = int(rng, 7, Math.min(words.length - 3, 14));
    if (!/^[a-z]+$/.test(words[cutAt])) continue;
    const before = doc.text.slice(0, doc.text.indexOf(s)) + words.slice(0, cutAt).join(' ');
    out.push(fitLeft(before, encode, MAX_PROMPT_TOKENS));
  }
  return out;
}

function randomIso(rng: Random, from: number, to: number): string {
  return `${int(rng, from, to)}-${String(int(rng, 1, 12)).padStart(2, '0')}-${String(int(rng, 1, 28)).padStart(2, '0')}`;
}

const FIXED_DATE = '2020-06-15';

/** The input of buildEvalSet: the KB, the held-out lists, the corpus and the tokenizer. */
export interface EvalSetInput {
  kb: readonly KbFact[];
  heldOut: HeldOut;
  factbook: readonly CorpusDoc[];
  sotu: readonly CorpusDoc[];
  encode: (s: string) => number[];
  seed?: number;
}

/** A prompt as a family makes it: buildEvalSet gives it its id, and FIXED_DATE unless it has a date. */
type NewPrompt = Omit<EvalPrompt, 'id' | 'date'> & { date?: string };

/**
 * What each family adds to, in family order (the order decides which draws of the one seeded `rng` each gets):
 * `add` numbers a prompt within its family and dates it FIXED_DATE unless it has its own date.
 */
interface SetBuilder {
  add: (p: NewPrompt) => void;
  phrasings: Phrasing[];
  rng: Random;
}

/** Every family's prompts, deterministic for a given corpus, KB, held-out lists and seed. */
export function buildEvalSet(input: EvalSetInput): EvalSet {
  const prompts: EvalPrompt[] = [];
  const phrasings: Phrasing[] = [];
  const add = (p: NewPrompt) => {
    const n = prompts.filter((q) => q.family === p.family).length;
    prompts.push({ id: `${p.family}/${p.phrasing}/${n}`, date: FIXED_DATE, ...p });
  };
  const b: SetBuilder = { add, phrasings, rng: mulberry32(input.seed ?? EVAL_SEED) };
  addCapitals(b, input);
  addElements(b, input.kb);
  addArithmetic(b, input);
  addDates(b);
  addRelevance(b, input);
  return { prompts, phrasings };
}

/**
 * Capitals: every held-out subject with a KB capital, in two template phrasings each (round robin), plus the
 * Factbook cloze of each held-out country.
 */
function addCapitals({ add, phrasings }: SetBuilder, input: EvalSetInput): void {
  const { kb, heldOut, encode } = input;
  const capitalOf = new Map<string, string>();
  for (const f of kb) if (f.relation === 'capital' && f.object && !capitalOf.has(f.subject)) capitalOf.set(f.subject, f.object);
  const subjects = evalSubjects(heldOut).filter((s) => capitalOf.has(s));
  for (const [name, template] of CAPITAL_TEMPLATES) phrasings.push({ family: 'capitals', name, template, real: false });
  phrasings.push({ family: 'capitals', name: 'factbook-cloze', real: true });
  subjects.forEach((s, i) => {
    for (const t of [i % CAPITAL_TEMPLATES.length, (i + 2) % CAPITAL_TEMPLATES.length]) {
      const [name, template] = CAPITAL_TEMPLATES[t];
      add({ family: 'capitals', phrasing: name, subject: s, prompt: template.replace('{S}', s), answers: [capitalOf.get(s)!], tool: qa.name });
    }
  });
  for (const doc of input.factbook) {
    if (!isHeldOutDoc(heldOut, doc) || !doc.id.endsWith('/government/0')) continue;
    const country = factbookCountry(doc)!;
    if (!heldOut.countriesBySplit.includes(country)) continue;
    const cloze = factbookCapitalCloze(doc, encode);
    if (!cloze) continue;
    const answers = [...new Set([cloze.answer, capitalOf.get(country)].filter((a): a is string => !!a))];
    add({ family: 'capitals', phrasing: 'factbook-cloze', subject: country, prompt: cloze.prompt, answers, tool: qa.name, real: true, source: doc.id });
  }
}

/** Elements: every held-out element, each phrasing in turn (symbol and atomic-number phrasings alternate). */
function addElements({ add, phrasings }: SetBuilder, kb: readonly KbFact[]): void {
  const els = elementSplit(kb).eval;
  const obj = (s: string, r: string) => kb.find((f) => f.subject === s && f.relation === r)?.object;
  for (const [name, template] of ELEMENT_TEMPLATES) phrasings.push({ family: 'elements', name, template, real: false });
  els.forEach((el, i) => {
    for (const t of [i % 5, (i + 1) % 5, (i + 3) % 5, (i + 4) % 5]) {
      const [name, template, rel] = ELEMENT_TEMPLATES[t];
      const answer = obj(el, rel);
      if (answer) add({ family: 'elements', phrasing: name, subject: el, prompt: template.replace('{S}', el), answers: [answer], tool: qa.name });
    }
  });
}

/** Arithmetic: 20 per template, then every SOTU cloze of the held-out addresses. */
function addArithmetic({ add, phrasings, rng }: SetBuilder, input: EvalSetInput): void {
  const { heldOut, encode } = input;
  const seenTemplates = new Set<string>();
  for (let kind = 0; kind < 5; kind++) {
    for (let i = 0; i < 20; i++) {
      const a = arithmetic(rng, kind);
      if (!seenTemplates.has(a.phrasing)) {
        seenTemplates.add(a.phrasing);
        phrasings.push({ family: 'arithmetic', name: a.phrasing, template: a.template, real: false });
      }
      add({ family: 'arithmetic', phrasing: a.phrasing, prompt: a.prompt, answers: [String(a.answer)], tool: calculator.name });
    }
  }
  phrasings.push({ family: 'arithmetic', name: 'sotu-cloze', real: true });
  for (const doc of input.sotu) {
    if (!isHeldOutDoc(heldOut, doc)) continue;
    for (const c of sotuArithmeticCloze(doc, encode)) {
      add({ family: 'arithmetic', phrasing: 'sotu-cloze', prompt: c.prompt, answers: [c.answer], tool: calculator.name, real: true, source: doc.id, note: c.relation });
    }
  }
}

/** Dates: about today (the Calendar's date, never written) and about a stated date (no call expected). */
function addDates({ add, phrasings, rng }: SetBuilder): void {
  // Dates about today: 20 per phrasing, today's date drawn per prompt and never written.
  for (const t of TODAY_TEMPLATES) {
    phrasings.push({ family: 'dates', name: t.name, template: t.prompt, real: false });
    for (let i = 0; i < 20; i++) {
      const iso = randomIso(rng, 1990, 2030);
      add({ family: 'dates', phrasing: t.name, prompt: t.prompt, answers: t.answers(iso), tool: calendar.name, date: iso });
    }
  }
  // A stated date, a question the Calendar cannot answer: no call expected. "Today" (the Calendar's date) is drawn
  // too and differs from the stated date, so a call returns a wrong weekday.
  for (const [name, make] of STATED_TEMPLATES) {
    phrasings.push({ family: 'dates-stated', name, template: make('{S}'), real: false });
    for (let i = 0; i < 20; i++) {
      const stated = randomIso(rng, 1800, 1989);
      add({ family: 'dates-stated', phrasing: name, prompt: make(longDate(stated)), answers: [weekday(stated)], date: randomIso(rng, 1990, 2030) });
    }
  }
}

/** Relevance: prompts no tool helps with, from three sets of templates and held-out prose of both sources. */
function addRelevance({ add, phrasings, rng }: SetBuilder, input: EvalSetInput): void {
  const { heldOut, encode } = input;
  phrasings.push({ family: 'relevance', name: 'narrative', real: false }, { family: 'relevance', name: 'advice', real: false },
    { family: 'relevance', name: 'dialogue', real: false },
    { family: 'relevance', name: 'sotu-prose', real: true }, { family: 'relevance', name: 'factbook-prose', real: true });
  for (const p of RELEVANCE_NARRATIVE) add({ family: 'relevance', phrasing: 'narrative', prompt: p, answers: [] });
  for (const p of RELEVANCE_ADVICE) add({ family: 'relevance', phrasing: 'advice', prompt: p, answers: [] });
  for (const p of RELEVANCE_DIALOGUE) add({ family: 'relevance', phrasing: 'dialogue', prompt: p, answers: [] });
  const sotuHeld = input.sotu.filter((d) => isHeldOutDoc(heldOut, d));
  // At most 45 and 25 real-prose prompts (an eval's time grows with the set), spread over the held-out documents.
  for (const d of sotuHeld.filter((_, i) => i % 9 === 0).slice(0, 45)) {
    for (const p of proseCuts(d, encode, rng, 1)) add({ family: 'relevance', phrasing: 'sotu-prose', prompt: p, answers: [], real: true, source: d.id });
  }
  const intro = input.factbook.filter((d) => isHeldOutDoc(heldOut, d) && /\/introduction\/0$/.test(d.id)).slice(0, 25);
  for (const d of intro) {
    for (const p of proseCuts(d, encode, rng, 1)) add({ family: 'relevance', phrasing: 'factbook-prose', prompt: p, answers: [], real: true, source: d.id });
  }
}
