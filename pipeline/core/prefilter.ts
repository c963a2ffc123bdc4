/**
 * Per-tool document pre-filters (paper, App. A.1): cheap tests that keep the expensive LM stages for documents where
 * a tool could plausibly help. Pure functions `(doc) => {pass, reason}`; the reason says why, on pass and on fail,
 * so the stats can count every drop by cause.
 */
import type { Doc } from './document.ts';
import {
  englishRatio,
  findEntities,
  findForeignSpans,
  findQuantities,
  type NumberSpan,
  tokenIndexer,
} from './proposers/text-spans.ts';

export interface PrefilterVerdict {
  pass: boolean;
  reason?: string;
}
export type Prefilter = (doc: Doc) => PrefilterVerdict;

/** The paper's window: the three numbers must lie within 100 tokens (here: whitespace-separated words). */
export const CALCULATOR_WINDOW_TOKENS = 100;
/** Numbers examined per document: bounds the triple search to O(n · w²) on number-heavy documents. */
const MAX_NUMBERS = 2000;
/** The paper keeps 1% of documents that merely have ≥ 3 numbers; the pick is a hash of the id (deterministic). */
const RANDOM_KEEP_PERCENT = 1;

/** "=", "equals", "equal to", "total of", "average of" directly followed by a number ("a total of $27,000,000"). */
const RESULT_CUE = /(?:=|\bequals?\b|\bequal to\b|\btotal of\b|\baverage of\b)\s*\$?-?\d[\d,]*(?:\.\d+)?%?/i;

/**
 * Calculator (App. A.1): pass if a result cue is followed by a number, or if three numbers within 100 tokens are
 * related by one operation (c ≈ a + b, a − b, a · b, a / b; "c%" ≈ a / b; "p%" of a ≈ c), within 0.5% relative.
 * Years (plain 1000–2099 integers) and numbers inside dates are not quantities and are left out; 0 and 1 never serve as operands (x · 1 = x
 * would match any repeated number). Otherwise 1% of documents with ≥ 3 numbers pass, picked by id hash.
 */
export const calculatorPrefilter: Prefilter = (doc) => {
  const cue = RESULT_CUE.exec(doc.text);
  if (cue) return { pass: true, reason: `"${cue[0]}": result cue followed by a number` };
  const numbers = findQuantities(doc.text).slice(0, MAX_NUMBERS);
  if (numbers.length < 3) return { pass: false, reason: `${numbers.length} numbers (not counting years or dates), need 3` };
  const tokenAt = tokenIndexer(doc.text);
  const tok = numbers.map((n) => tokenAt(n.start));
  for (let i = 0; i < numbers.length; i++) {
    for (let j = i + 1; j < numbers.length && tok[j] - tok[i] <= CALCULATOR_WINDOW_TOKENS; j++) {
      for (let k = j + 1; k < numbers.length && tok[k] - tok[i] <= CALCULATOR_WINDOW_TOKENS; k++) {
        const found = relation(numbers[i], numbers[j], numbers[k]);
        if (found) return { pass: true, reason: `${found} within ${tok[k] - tok[i]} tokens` };
      }
    }
  }
  if (fnv1a(doc.id) % 100 < RANDOM_KEEP_PERCENT) {
    return { pass: true, reason: `${numbers.length} numbers, kept at random (${RANDOM_KEEP_PERCENT}%)` };
  }
  return { pass: false, reason: `${numbers.length} numbers but no three related by + - * / within 100 tokens` };
};

/** Whether one of the three is the result of an operation on the other two; a description like "21226000 + 5774000 = 27000000". */
export function relation(x: NumberSpan, y: NumberSpan, z: NumberSpan): string | null {
  return opResult(x, y, z) ?? opResult(x, z, y) ?? opResult(y, z, x);
}

function opResult(a: NumberSpan, b: NumberSpan, c: NumberSpan): string | null {
  const [u, v] = [a.value, b.value];
  if (isTrivial(u) || isTrivial(v)) return null;
  const show = (n: NumberSpan) => `${n.value}${n.percent ? '%' : ''}`;
  const eq = `= ${show(c)}`;
  // Sums and differences only within one kind (12% + 6 = 18 is a coincidence, 12% + 6% = 18% is not).
  if (a.percent === b.percent && b.percent === c.percent) {
    if (close(u + v, c)) return `${show(a)} + ${show(b)} ${eq}`;
    if (close(Math.abs(u - v), c)) return u >= v ? `${show(a)} - ${show(b)} ${eq}` : `${show(b)} - ${show(a)} ${eq}`;
  }
  if (!c.percent) {
    if (!a.percent && !b.percent && close(u * v, c)) return `${show(a)} * ${show(b)} ${eq}`;
    if (a.percent && !b.percent && close((u / 100) * v, c)) return `${show(a)} of ${show(b)} ${eq}`;
    if (b.percent && !a.percent && close((v / 100) * u, c)) return `${show(b)} of ${show(a)} ${eq}`;
  }
  if (c.percent && !a.percent && !b.percent) {
    const [small, big] = u <= v ? [a, b] : [b, a];
    if (close((small.value / big.value) * 100, c, true)) return `${show(small)} / ${show(big)} ${eq}`;
  }
  if (!a.percent && !b.percent && !c.percent) {
    if (close(u / v, c, true)) return `${show(a)} / ${show(b)} ${eq}`;
    if (close(v / u, c, true)) return `${show(b)} / ${show(a)} ${eq}`;
  }
  return null;
}

function isTrivial(n: number): boolean {
  return n === 0 || n === 1;
}

/**
 * Equal within 0.5%, and never 0 ≈ 0. A quotient is usually written rounded ("400 of 1400, or 29%"), so with
 * `rounded` it may also differ by less than half a unit of the last digit written (29 covers 28.57).
 */
function close(computed: number, written: NumberSpan, rounded = false): boolean {
  const w = written.value;
  if (!Number.isFinite(computed) || w === 0) return false;
  const diff = Math.abs(computed - w);
  if (diff <= 0.005 * Math.abs(w)) return true;
  const decimals = /\.(\d+)/.exec(written.text)?.[1].length ?? 0;
  return rounded && diff < 0.5 * 10 ** -decimals;
}

/** 32-bit FNV-1a over UTF-16 code units: a stable, platform-independent hash for the random 1%. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Calendar: the paper uses documents whose date is known (URL/metadata); here `doc.date` (YYYY-MM-DD). */
export const calendarPrefilter: Prefilter = (doc) =>
  doc.date && /^\d{4}-\d{2}-\d{2}$/.test(doc.date)
    ? { pass: true, reason: `document date ${doc.date}` }
    : { pass: false, reason: 'no document date' };

/** Share of English function words below which a text is not "English text" (English prose: ~0.4–0.5). */
export const MIN_ENGLISH_RATIO = 0.1;

/**
 * Translate (the paper's MT): a non-English span inside English text. Cheap heuristics (text-spans.ts): the text's
 * share of English function words ≥ 0.1 (Factbook field lists score 0.1–0.35) and at least one foreign span. The tool
 * itself does real language identification.
 */
export const translatePrefilter: Prefilter = (doc) => {
  const ratio = englishRatio(doc.text);
  if (ratio < MIN_ENGLISH_RATIO) {
    return { pass: false, reason: `not English text (function-word share ${ratio.toFixed(2)} < ${MIN_ENGLISH_RATIO})` };
  }
  const spans = findForeignSpans(doc.text);
  if (spans.length === 0) return { pass: false, reason: 'no non-English span' };
  return { pass: true, reason: `non-English span "${spans[0].text}"` };
};

/**
 * QA: the document names something a question could be about — one capitalised entity that is neither a sentence
 * opener nor a generic institution word (text-spans.ts `findEntities`). Whether the knowledge base knows it is
 * left to the tool and the loss filter.
 */
export const qaPrefilter: Prefilter = (doc) => {
  const entities = findEntities(doc.text);
  return entities.length > 0
    ? { pass: true, reason: `entity "${entities[0].text}"` }
    : { pass: false, reason: 'no capitalised entity' };
};

export const PREFILTERS: Readonly<Record<string, Prefilter>> = {
  Calculator: calculatorPrefilter,
  Calendar: calendarPrefilter,
  QA: qaPrefilter,
  Translate: translatePrefilter,
};

/** Dispatch by tool name; a tool without a pre-filter passes every document. */
export function prefilter(tool: string, doc: Doc): PrefilterVerdict {
  const filter = PREFILTERS[tool];
  return filter ? filter(doc) : { pass: true, reason: `no pre-filter for ${tool}` };
}
