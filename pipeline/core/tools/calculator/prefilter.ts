/**
 * The Calculator's document pre-filter (paper App. A.1): keep the expensive LM stages for documents whose numbers
 * are related by arithmetic.
 */
import type { Doc } from '../../document.ts';
import { fnv1a } from '../../text/hash.ts';
import { type NumberSpan, tokenIndexer } from '../../text/spans.ts';
import { findQuantities } from './quantities.ts';
import type { PrefilterVerdict } from '../spec.ts';

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
export function calculatorPrefilter(doc: Doc): PrefilterVerdict {
  const cue = RESULT_CUE.exec(doc.text);
  if (cue) return { pass: true, kind: 'result_cue', reason: `"${cue[0]}": result cue followed by a number` };
  const numbers = findQuantities(doc.text).slice(0, MAX_NUMBERS);
  if (numbers.length < 3) {
    return { pass: false, kind: 'few_numbers', reason: `${numbers.length} numbers (not counting years or dates), need 3` };
  }
  const tokenAt = tokenIndexer(doc.text);
  const tok = numbers.map((n) => tokenAt(n.start));
  for (let i = 0; i < numbers.length; i++) {
    for (let j = i + 1; j < numbers.length && tok[j] - tok[i] <= CALCULATOR_WINDOW_TOKENS; j++) {
      for (let k = j + 1; k < numbers.length && tok[k] - tok[i] <= CALCULATOR_WINDOW_TOKENS; k++) {
        const found = relation(numbers[i], numbers[j], numbers[k]);
        if (found) return { pass: true, kind: 'related_numbers', reason: `${found} within ${tok[k] - tok[i]} tokens` };
      }
    }
  }
  if (fnv1a(doc.id) % 100 < RANDOM_KEEP_PERCENT) {
    return { pass: true, kind: 'random_keep', reason: `${numbers.length} numbers, kept at random (${RANDOM_KEEP_PERCENT}%)` };
  }
  return { pass: false, kind: 'no_relation', reason: `${numbers.length} numbers but no three related by + - * / within 100 tokens` };
}

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
