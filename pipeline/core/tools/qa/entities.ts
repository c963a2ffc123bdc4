/**
 * The QA tool's text heuristic: capitalised names (the entities a question is asked about). Pure functions over a
 * string; spans are `[start, end)` in UTF-16 code units. Tested on the corpus (SOTU prose, Factbook fields).
 */
import type { Span } from '../../text/spans.ts';

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
