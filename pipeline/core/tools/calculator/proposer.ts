import { findNumbers, type NumberSpan, tail, tokenIndexer } from '../../text/spans.ts';
import { findQuantities } from './quantities.ts';
import { MAX_PROPOSALS } from '../spec.ts';

/** Numbers further back than this many tokens (words) from the position are not "recent". */
export const CALCULATOR_LOOKBACK_TOKENS = 100;
/** Distinct recent numbers combined pairwise: 5 numbers → 10 pairs, most recent pairs first. */
const RECENT_NUMBERS = 5;
/** Prefix endings that announce a result computed from several numbers: "a total of", "=", "an average of". */
const SUM_CUE = /(?:\btotal(?: of)?|\bsum(?: of)?|\baltogether|\bin all|=|\bequals?|\bequal to)\W*$/i;
const AVERAGE_CUE = /\baverage(?: of)?\W*$/i;
/** A ratio or share is being stated near the position: only then is small / big proposed. */
const RATIO_CUE = /\b(?:ratio|per ?cent|percentage|proportion|share|fraction|one-(?:half|third|fourth|quarter|fifth))\b/i;
/** A product is being stated: "3 times", "each", "apiece", "per head". */
const PRODUCT_CUE = /\b(?:times|each|apiece|per (?:head|capita|man|acre|ton|pound|day|year)|multiplied)\b/i;

/**
 * Calculator calls from the numbers just before the position, chosen by what the text is doing: for each pair of
 * recent numbers (most recent pairs first) the difference big - small (a balance, what remains) and the sum; the
 * fraction small / big (the paper's "400 / 1400") only where a ratio or share is being stated near the position,
 * and the product only where the text says "times", "each", "per head"…;
 * a percentage p% with a plain number n gives n * p / 100. After "a total of", "=", "average of", the sum (or mean)
 * of the last three numbers comes first. Years and numbers inside dates are skipped, except the difference of the
 * last two years; 0 and 1 are never
 * operands. Arguments are written as plain numbers ("27000000", no "$" or ","). At most 10 calls, deduplicated.
 */
export function proposeCalculator(fullPrefix: string): string[] {
  // 100 tokens are well under 3,000 characters (SOTU: ~6 characters per token).
  const prefix = tail(fullPrefix, 3000);
  const recent = inWindow(prefix, findNumbers(prefix));
  const quantities = distinctLatest(inWindow(prefix, findQuantities(prefix)).filter((n) => n.value !== 0 && n.value !== 1));
  const years = distinctLatest(recent.filter((n) => n.year));
  const inputs: string[] = [];
  const last3 = quantities.slice(-3);
  if (last3.length === 3 && last3.every((n) => n.percent === last3[0].percent)) {
    const sum = last3.map(plain).join(' + ');
    if (AVERAGE_CUE.test(prefix)) inputs.push(`(${sum}) / 3`);
    else if (SUM_CUE.test(prefix)) inputs.push(sum);
  }
  const latest = quantities.slice(-RECENT_NUMBERS).reverse(); // most recent first
  const near = prefix.slice(-100);
  const cues = { ratio: RATIO_CUE.test(near), product: PRODUCT_CUE.test(near) };
  for (let j = 1; j < latest.length; j++) {
    for (let i = 0; i < j; i++) inputs.push(...pairCalls(latest[i], latest[j], cues));
  }
  if (years.length >= 2) {
    const [a, b] = years.slice(-2);
    inputs.push(a.value > b.value ? `${plain(a)} - ${plain(b)}` : `${plain(b)} - ${plain(a)}`);
  }
  return [...new Set(inputs)].slice(0, MAX_PROPOSALS);
}

/** Calls for one pair; `recent` was written after `earlier`. */
function pairCalls(recent: NumberSpan, earlier: NumberSpan, cues: { ratio: boolean; product: boolean }): string[] {
  if (recent.percent !== earlier.percent) {
    const [p, n] = recent.percent ? [recent, earlier] : [earlier, recent];
    return [`${plain(n)} * ${plain(p)} / 100`];
  }
  const [small, big] = Math.abs(recent.value) <= Math.abs(earlier.value) ? [recent, earlier] : [earlier, recent];
  return [
    `${plain(big)} - ${plain(small)}`,
    `${plain(earlier)} + ${plain(recent)}`,
    ...(cues.ratio ? [`${plain(small)} / ${plain(big)} * 100`] : []),
    ...(cues.product ? [`${plain(earlier)} * ${plain(recent)}`] : []),
  ];
}

/** The numbers that lie in the last 100 tokens of the prefix, in text order. */
function inWindow(prefix: string, numbers: NumberSpan[]): NumberSpan[] {
  if (numbers.length === 0) return [];
  const tokenAt = tokenIndexer(prefix);
  const lastToken = tokenAt(prefix.length);
  return numbers.filter((n) => lastToken - tokenAt(n.start) <= CALCULATOR_LOOKBACK_TOKENS);
}

/** One span per value, at its latest occurrence, in text order. */
function distinctLatest(numbers: NumberSpan[]): NumberSpan[] {
  const byValue = new Map<string, NumberSpan>();
  for (const n of numbers) {
    const key = `${n.value}${n.percent ? '%' : ''}`;
    byValue.delete(key); // re-insert so Map order follows the latest occurrence
    byValue.set(key, n);
  }
  return [...byValue.values()];
}

/** "$3,000,000" → "3000000", "29%" → "29", "-1.2 percent" → "-1.2": the number as written, without decoration. */
export function plain(n: NumberSpan): string {
  return n.text.replace(/[$,]|\s*%|\s+percent$/g, '');
}
