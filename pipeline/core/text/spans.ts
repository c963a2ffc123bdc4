/**
 * Cheap span finders more than one tool reads: numbers and dates (the Calculator's quantities leave dates out, the
 * Calendar proposes at dates), plus `tail` and `tokenIndexer`. Pure functions over a string; every span is
 * `[start, end)` in UTF-16 code units of that string. Heuristics, not NLP: they aim at the corpus (SOTU prose,
 * Factbook fields) and are tested on it. A heuristic only one tool uses lives in that tool's folder:
 * tools/calculator/quantities.ts, tools/qa/entities.ts, tools/translate/foreign-spans.ts.
 */

export interface Span {
  /** Offset of the first character. */
  start: number;
  /** Offset after the last character. */
  end: number;
  text: string;
}

export interface NumberSpan extends Span {
  /** Numeric value with thousands separators and "$" removed; a percentage keeps its number (29% → 29). */
  value: number;
  /** Written with "%" or followed by " percent". */
  percent: boolean;
  /** A plain 4-digit integer 1000–2099 without separators: probably a year, not a quantity. */
  year: boolean;
}

/**
 * "$3,000,000", "3.5", "-1.2%", "29 percent", "1,964,375". A leading "-" counts only after a space or "(" (so
 * "1936-39" is two numbers, 1936 and 39). Digits glued to letters ("H2O", "4th", "March 3d") are not numbers.
 */
const NUMBER = /(?<![\w.,$])(-(?=[$\d]))?\$?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w])(\s?%|\s+percent\b)?/g;

export function findNumbers(text: string): NumberSpan[] {
  const out: NumberSpan[] = [];
  for (const m of text.matchAll(NUMBER)) {
    const start = m.index;
    if (m[1] && start > 0 && !/[\s(]/.test(text[start - 1])) continue;
    const intPart = m[2].replace(/,/g, '');
    const value = Number((m[1] ? '-' : '') + intPart + (m[3] ?? ''));
    if (!Number.isFinite(value)) continue;
    const percent = m[4] !== undefined;
    const year = !m[1] && !m[3] && !percent && !m[0].includes('$') && /^(1\d{3}|20\d{2})$/.test(m[2]);
    out.push({ start, end: start + m[0].length, text: m[0], value, percent, year });
  }
  return out;
}

/**
 * The spans of `spans` that overlap none of `taken`; both sorted by start and each free of overlaps within itself.
 * One merge walk, O(|spans| + |taken|) (a check of every pair was quadratic: 200k years in a 1 MiB document).
 */
export function dropOverlapping<T extends { start: number; end: number }>(spans: readonly T[], taken: readonly { start: number; end: number }[]): T[] {
  const out: T[] = [];
  let t = 0;
  for (const span of spans) {
    while (t < taken.length && taken[t].end <= span.start) t++;
    if (!(t < taken.length && taken[t].start < span.end)) out.push(span);
  }
  return out;
}

/** Two sorted span lists as one, sorted by start. */
function mergeSorted(a: readonly Span[], b: readonly Span[]): Span[] {
  const out: Span[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) out.push(j >= b.length || (i < a.length && a[i].start <= b[j].start) ? a[i++] : b[j++]);
  return out;
}

const MONTHS = 'January|February|March|April|May|June|July|August|September|October|November|December';
const MONTHS_SHORT = 'Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec';
const WEEKDAYS = 'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday';

/** Date-like expressions, longest forms first so "June 30, 1867" wins over "1867". */
const DATE_FORMS: RegExp[] = [
  new RegExp(`\\b(?:${WEEKDAYS}),?\\s+(?:${MONTHS})\\s+\\d{1,2}(?:,?\\s+\\d{4})?\\b`, 'g'),
  new RegExp(`\\b(?:${MONTHS}|(?:${MONTHS_SHORT})\\.?)\\s+\\d{1,2}(?:st|nd|rd|th)?(?:,?\\s+\\d{4})?\\b`, 'g'),
  new RegExp(`\\b\\d{1,2}\\s+(?:${MONTHS})(?:\\s+\\d{4})?\\b`, 'g'),
  new RegExp(`\\b(?:${MONTHS})\\s+(?:of\\s+)?\\d{4}\\b`, 'g'),
  /\b\d{4}-\d{2}-\d{2}\b/g,
  /\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/g,
  new RegExp(`\\b(?:${WEEKDAYS})\\b`, 'g'),
  /\b(?:today|tonight|yesterday|tomorrow|this (?:year|month|week)|last (?:year|month|week)|next (?:year|month|week))\b/gi,
  /(?<![\w$.,])(?:1[5-9]\d{2}|20\d{2})(?!\w|,\d{3}|\.\d)/g,
];

/** Dates, months with years, weekday names, "today"-like words and years (1500–2099), without overlaps. */
export function findDates(text: string): Span[] {
  // Each form's matches are sorted and disjoint (matchAll), so a form's new spans are its matches that overlap no
  // span of an earlier form: one merge walk per form.
  let taken: Span[] = [];
  for (const form of DATE_FORMS) {
    const matches = [...text.matchAll(form)].map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[0] }));
    taken = mergeSorted(taken, dropOverlapping(matches, taken));
  }
  return taken;
}

/**
 * The end of `text`, at most about `chars` long, cut at a whitespace so no word is split: proposers look only at
 * the recent past, and this keeps their cost per position O(chars) on long documents.
 */
export function tail(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const cut = text.length - chars;
  const space = text.slice(cut).search(/\s\S/);
  return space === -1 ? text.slice(cut) : text.slice(cut + space + 1);
}

/** Whitespace-separated token index of each character offset: `tokenIndexAt(text)(offset)`. Tokens ≈ words. */
export function tokenIndexer(text: string): (offset: number) => number {
  const starts: number[] = [];
  for (const m of text.matchAll(/\S+/g)) starts.push(m.index);
  return (offset) => {
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid] <= offset) lo = mid + 1;
      else hi = mid;
    }
    return Math.max(0, lo - 1);
  };
}
