/**
 * Cheap span finders shared by the pre-filters, heuristic positions, proposers and the leakage guard: numbers, dates,
 * capitalised entities and non-English spans. Pure functions over a string; every span is `[start, end)` in UTF-16
 * code units of that string. Heuristics, not NLP: they aim at the corpus (SOTU prose, Factbook fields) and are
 * tested on it.
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
 * Numbers that are quantities: not years and not part of a date expression ("June 30, 1867" holds no quantity).
 * What the Calculator pre-filter, positions and proposer work with.
 */
export function findQuantities(text: string): NumberSpan[] {
  const dates = findDates(text);
  return dropOverlapping(findNumbers(text), dates).filter((n) => !n.year);
}

/**
 * The spans of `spans` that overlap none of `taken`; both sorted by start and each free of overlaps within itself.
 * One merge walk, O(|spans| + |taken|) (a check of every pair was quadratic: 200k years in a 1 MiB document).
 */
function dropOverlapping<T extends { start: number; end: number }>(spans: readonly T[], taken: readonly { start: number; end: number }[]): T[] {
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

/** Capitalised function words and sentence openers: stripped from both ends of a name. */
const CAPITALISED_STOPWORDS = new Set(
  (
    'The A An This That These Those It Its In On At By For From To Of With Without As And But Or Nor So Yet If When ' +
    'While Where Whereas Which Who Whom Whose What Why How There Here We Our Ours Us I My Me You Your He His Him She ' +
    'Her They Their Them Not No Yes All Any Some Many Much Most More Each Every Other Such Also After Before Since ' +
    'During Under Over Upon Into Through Between Among Until Unless Although Though Because Thus Therefore However ' +
    'Moreover Furthermore Let Now Then Today Tonight Thank Mr Mrs Ms Dr Madam President Secretary General Senator ' +
    'Governor Chief Justice King Queen Emperor Prince Senor Sir Lord Note ' +
    'January February March April May June July August September October November December ' +
    'Monday Tuesday Wednesday Thursday Friday Saturday Sunday'
  ).split(' '),
);
/** Institution and field-label words: a name made only of these (and joiners) is dropped ("Secretary of State"). */
const GENERIC_NAMES = new Set(
  (
    'Fellow Fellow-Citizens Gentlemen Ladies Congress Government Senate House Representatives Department State ' +
    'States Nation Nations Union Federal Constitution Treasury Army Navy Court Committee Act Administration ' +
    'Executive Republic Kingdom Location Area Climate Terrain Population Languages Religions Capital Independence ' +
    'Economy Geography Introduction People Society Background Exports Imports Labor Literacy Nationality Coastline ' +
    'Unemployment Exchange GDP PPP UTC Natural Environment Elevation Ethnic Major Life National Country ' +
    'Applause Laughter Message Standard Time Day'
  ).split(' '),
);
/** Lower-case words allowed inside a multi-word name: "Bay of Biscay", "Rio de Janeiro", "Emperor of France". */
const NAME_JOINERS = new Set(['of', 'de', 'del', 'da', 'la', 'the', 'von', 'van', 'du', 'le', 'al']);

/**
 * Capitalised names: runs of capitalised words ("United States", "MADRID", "Pico de Orizaba"), joined by a few
 * lower-case particles. Capitalised stop words and titles ("The", "President", "June") are stripped from both ends;
 * a run made only of generic words ("Congress", "Secretary of State") is dropped; so is a one-word run that opens a
 * sentence ("Afterwards, …") unless the same word also appears capitalised mid-sentence in the text.
 */
export function findEntities(text: string): Span[] {
  const words = nameWords(text).map((m) => {
    // "Spain's" → "Spain", "U.S." → "U.S", "Jr." → "Jr": possessives and trailing dots are not part of the name.
    const word = trimTrailing(m.text.replace(/['’]s$/, ''));
    return { start: m.start, end: m.start + word.length, text: word };
  });
  const isCap = (w: string) => /^[A-Z\u00C0-\u00DE]/.test(w) && !/['’](m|ll|ve|re|d|t)$/i.test(w);
  // At a sentence start, capitalisation says nothing ("Afterwards, …"), unless the word heads a title ("Italy: …").
  const opensSentence = (start: number) => {
    if (start === 0) return !/^[\p{L}'’.-]+[:.]/u.test(text);
    const before = text.slice(Math.max(0, start - 12), start);
    // "Charles A. Washburn", "Mr. Washburn": the period after an initial or a title does not end a sentence.
    if (/(?:^|[^\p{L}])(?:\p{Lu}|Mr|Mrs|Ms|Dr|St|Gen|Col|Capt|Lt|Gov|Sen|Rev|Hon)\. $/u.test(before)) return false;
    return /([.!?]["'”’)]*\s+|\n\s*|^\s*["'“‘(])$/.test(before.slice(-4));
  };
  /** Words joined into one name: one space apart, or ". " after an initial or a title ("Charles A. Washburn"). */
  const joined = (a: { text: string; end: number }, b: { start: number }) => {
    const gap = text.slice(a.end, b.start);
    return gap === ' ' || (gap === '. ' && /^(?:\p{Lu}|Mr|Mrs|Ms|Dr|St|Gen|Col|Capt|Lt|Gov|Sen|Rev|Hon)$/u.test(a.text));
  };
  const midSentence = new Set<string>();
  for (const w of words) if (isCap(w.text) && !opensSentence(w.start)) midSentence.add(w.text);
  const isStop = (w: string) => CAPITALISED_STOPWORDS.has(cap(w)) || NAME_JOINERS.has(w);
  const out: Span[] = [];
  let i = 0;
  while (i < words.length) {
    if (!isCap(words[i].text)) {
      i++;
      continue;
    }
    let j = i;
    // Extend over "Cap Cap", "Cap of Cap", "Cap A. Cap".
    while (j + 1 < words.length && joined(words[j], words[j + 1])) {
      const next = words[j + 1].text;
      if (isCap(next)) j++;
      else if (
        NAME_JOINERS.has(next) &&
        j + 2 < words.length &&
        isCap(words[j + 2].text) &&
        joined(words[j + 1], words[j + 2])
      )
        j += 2;
      else break;
    }
    let a = i;
    let b = j;
    while (a <= b && isStop(words[a].text)) a++;
    while (b >= a && isStop(words[b].text)) b--;
    const run = words.slice(a, b + 1);
    const generic = run.every((w) => GENERIC_NAMES.has(w.text) || GENERIC_NAMES.has(cap(w.text)) || NAME_JOINERS.has(w.text));
    const opener = run.length === 1 && opensSentence(run[0].start) && !midSentence.has(run[0].text);
    if (run.length > 0 && !generic && !opener && run[0].text.length > 1) {
      out.push({ start: run[0].start, end: run[run.length - 1].end, text: text.slice(run[0].start, run[run.length - 1].end) });
    }
    i = j + 1;
  }
  return out;
}

/** Characters a name word is made of, and those it may start with. */
const WORD_CHARS = /[A-Za-z\u00C0-\u024F'’.-]+/g;
const WORD_START = /[A-Za-z\u00C0-\u024F]/;
const LETTER_OR_DIGIT = /^[\p{N}\p{L}]/u;
const ENDS_WITH_DIGIT = /\p{N}$/u;

/**
 * Words not glued to digits ("FY2014/15" holds no name): what the pattern
 * `(?<!\p{N})[A-Za-z\u00C0-\u024F][A-Za-z\u00C0-\u024F'’.-]*(?![\p{N}\p{L}])` (flags gu) matches, found in linear
 * time. That pattern backtracks over a whole run of letters from every start inside it when the run ends at a digit
 * (n²/2 steps: 100k letters took 25 s). Here each maximal run of word characters is scanned once: the match starts at
 * the run's first letter that follows no digit and ends at the last end inside the run that no letter or digit
 * follows — the same spans (spans.test.ts checks them against the pattern on random strings). A run holds at most
 * one match: after it, every later end would have been a longer match.
 */
export function nameWords(text: string): Span[] {
  const out: Span[] = [];
  for (const run of text.matchAll(WORD_CHARS)) {
    const runEnd = run.index + run[0].length;
    let start = run.index;
    // Only the run's first character can follow a digit; later ones follow a word character.
    while (start < runEnd && !(WORD_START.test(text[start]) && !(start === run.index && ENDS_WITH_DIGIT.test(text.slice(Math.max(0, start - 2), start))))) start++;
    if (start === runEnd) continue;
    let end = runEnd;
    while (end > start && LETTER_OR_DIGIT.test(text.slice(end, end + 2))) end--;
    if (end > start) out.push({ start, end, text: text.slice(start, end) });
  }
  return out;
}

/**
 * Without trailing dots, apostrophes and hyphens ("Jr." → "Jr"). A loop: `/[.'’-]+$/` rescans a run of them from
 * every start inside it (60k apostrophes before a letter: 12 s).
 */
function trimTrailing(w: string): string {
  let end = w.length;
  while (end > 0 && TRAILING.has(w[end - 1])) end--;
  return w.slice(0, end);
}
const TRAILING = new Set(['.', "'", '’', '-']);

/** "MADRID" → "Madrid" for the stop-word lookup only. */
function cap(w: string): string {
  return w.length > 1 && w === w.toUpperCase() ? w[0] + w.slice(1).toLowerCase() : w;
}

/** English function words: a run containing one is English. */
export const ENGLISH_WORDS = new Set(
  (
    'the of and to in is was were are be been being for with as on by at from this that these those it its an or ' +
    'which who whom whose has have had not but he she they we our you your his her their them will would shall ' +
    'can could may might should must there than all into upon such so if also more most other any each i me my us ' +
    'do does did no only over under about after before between through during without within would what when where ' +
    'how why while very same both few own then once here just now'
  ).split(' '),
);
/** Function words of Spanish, French, Portuguese, Italian, Catalan and German that are not English words. */
const FOREIGN_WORDS = new Set(
  (
    'de del la las los el y al con por para que una un unos unas su sus es está muy pero como más sobre ' +
    'le les des du et au aux pour sur avec dans est sont une qui ne pas ce cette ces leur nous vous ' +
    'dos das em os ao às não uma com pelo pela ' +
    'il di della delle dei degli nel nella che gli sono ' +
    'und der die das dem den ist nicht mit für von zu auf ein eine einer ' +
    'els amb ni'
  ).split(' '),
);
/** Letters English does not use. */
const FOREIGN_LETTERS = /[áéíóúñçàèìòùâêîôûäöüßãõœ¿¡]/i;

/** Foreign-ness of a run of words: 2 per lower-case foreign function word, 1 per word with a foreign letter. */
function foreignScore(words: string[]): number {
  let score = 0;
  for (const w of words) {
    const lw = w.toLowerCase();
    // Only lower-case articles count: "UN" is an acronym, "Al Qaida" a name used in English.
    if (FOREIGN_WORDS.has(lw) && !ENGLISH_WORDS.has(lw) && w === lw) score += 2;
    else if (FOREIGN_LETTERS.test(w)) score += 1;
  }
  return score;
}

/**
 * Non-English spans inside (presumably English) text. Two sources:
 *  - quoted text ("…", “…”, «…») of 1–12 words with no English function word and foreign score ≥ 1, or a score
 *    of 0 but an English gloss in parentheses right after it ("Himno Nacional Mexicano" (National Anthem of Mexico));
 *  - runs of words between punctuation and English function words, cut to their foreign words ± 2 words, of ≥ 3
 *    words and foreign score ≥ 2 ("Reino de Espana", "Resaca de la Palma"). Two-word names ("Los Angeles",
 *    "Buenos Aires") are not taken. Most hits in SOTU are place names: the loss filter decides if they help.
 * The span excludes the quotes. Sorted, non-overlapping.
 */
export function findForeignSpans(text: string): Span[] {
  const out: Span[] = [];
  const quotes = new RegExp(QUOTED.source, 'g');
  let close = -1; // the first » at or after the current «, found once for a run of «s
  for (let m = quotes.exec(text); m !== null; m = quotes.exec(text)) {
    let inner = m[1] ?? m[2] ?? null;
    let start = m.index + 1;
    let end = m.index + m[0].length;
    if (inner === null) {
      // «: its content runs to the first » (at most 122 characters); no match here → on from the next character.
      if (close <= m.index) close = text.indexOf('»', m.index + 1);
      if (close === -1) close = Number.POSITIVE_INFINITY; // no » in the rest of the text
      if (close - m.index - 1 > 122) continue;
      const content = text.slice(m.index + 1, close);
      const quotedPart = guillemetInner(content);
      if (quotedPart === null) continue;
      inner = quotedPart;
      start = m.index + 1 + content.indexOf(inner);
      end = close + 1;
      quotes.lastIndex = end;
    }
    const words = inner.match(/\p{L}[\p{L}'’-]*/gu) ?? [];
    if (words.length === 0 || words.length > 12) continue;
    if (words.some((w) => ENGLISH_WORDS.has(w.toLowerCase()))) continue;
    GLOSS.lastIndex = end;
    const glossed = GLOSS.test(text);
    if (foreignScore(words) >= 1 || (glossed && words.length >= 2)) {
      out.push({ start, end: start + inner.length, text: inner });
    }
  }
  // Runs of words separated only by spaces (no punctuation), cut at English function words.
  const quoted = [...out];
  let q = 0;
  for (const clause of text.matchAll(/[^\n,;:()"“”«».!?[\]]+/g)) {
    const words = [...clause[0].matchAll(/\p{L}[\p{L}'’-]*/gu)];
    let run: RegExpMatchArray[] = [];
    const flush = () => {
      // Keep the foreign core of the run and two words either side ("… steamer El Dorado", "San Juan de Puerto
      // Rico"), then trim lower-case non-foreign words at the edges.
      const marked = run.flatMap((w, k) => (foreignScore([w[0]]) > 0 ? [k] : []));
      if (marked.length > 0) {
        let core = run.slice(Math.max(0, marked[0] - 2), marked[marked.length - 1] + 3);
        while (core.length && isEdgeNoise(core[0][0])) core = core.slice(1);
        while (core.length && isEdgeNoise(core[core.length - 1][0])) core = core.slice(0, -1);
        if (core.length >= 3 && foreignScore(core.map((w) => w[0])) >= 2) {
          const start = clause.index + core[0].index!;
          const last = core[core.length - 1];
          const end = clause.index + last.index! + last[0].length;
          // Quoted spans are sorted and disjoint; clause spans come in text order after each other.
          while (q < quoted.length && quoted[q].end <= start) q++;
          if (!(q < quoted.length && quoted[q].start < end)) out.push({ start, end, text: text.slice(start, end) });
        }
      }
      run = [];
    };
    for (const w of words) {
      if (ENGLISH_WORDS.has(w[0].toLowerCase())) flush();
      else run.push(w);
    }
    flush();
  }
  return out.sort((a, b) => a.start - b.start);
}

/** Quoted text: "…" and “…” of 2–120 characters; at «, findForeignSpans reads to the next » (`guillemetInner`). */
const QUOTED = /"([^"\n]{2,120})"|“([^”\n]{2,120})”|«/;
/** An English gloss in parentheses right after a quote (sticky: tried at one offset). */
const GLOSS = /\s*\([A-Z][^)]{2,80}\)/y;
const SPACE = /\s/;

/**
 * The quoted part of «content»: what `«\s?([^»\n]{2,120}?)\s?»` captures — one space off each end when that leaves
 * 2–120 characters (a space off the start first) — or null where that pattern has no match. The pattern itself
 * backtracks polynomially (two optional spaces around a lazy group); `content` is at most 122 characters.
 */
function guillemetInner(content: string): string | null {
  const leads = SPACE.test(content[0] ?? '') ? [1, 0] : [0];
  for (const lead of leads) {
    // The lazy group ends at the first place where "\s?»" can follow: before a final space, else at the end.
    const ends = SPACE.test(content[content.length - 1] ?? '') ? [content.length - 1, content.length] : [content.length];
    for (const end of ends) {
      const k = end - lead;
      if (k >= 2 && k <= 120 && !content.slice(lead, end).includes('\n')) return content.slice(lead, end);
    }
  }
  return null;
}

function isEdgeNoise(w: string): boolean {
  return /^[a-z]/.test(w) && !FOREIGN_WORDS.has(w) && !FOREIGN_LETTERS.test(w);
}

/** Share of words that are English function words: ~0.4–0.5 for English prose, ~0 for Spanish or French. */
export function englishRatio(text: string): number {
  const words = text.toLowerCase().match(/[a-z\u00C0-\u024F']+/g) ?? [];
  if (words.length === 0) return 0;
  return words.filter((w) => ENGLISH_WORDS.has(w)).length / words.length;
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
