/**
 * Call positions next to a span. A position is a character offset `at`; the call is inserted as
 * `text.slice(0, at) + " [Tool(args) -> result]" + text.slice(at)`, so `at` is the end of the previous word and
 * `text[at]` is usually the space before the next one.
 */

/**
 * The end of the word before the token holding `offset`: for "of $27,000,000" and the offset of "2" (or "$"),
 * the offset of the space after "of". 0 when nothing precedes the token.
 */
export function positionBefore(text: string, offset: number): number {
  let start = offset;
  while (start > 0 && !/\s/.test(text[start - 1])) start--;
  let at = start;
  while (at > 0 && /\s/.test(text[at - 1])) at--;
  return at;
}

/** Just after a span and any closing quotes right after it: `"Himno Nacional Mexicano"|` (the bar). */
export function positionAfter(text: string, end: number): number {
  let at = end;
  while (at < text.length && /["'”’»]/.test(text[at])) at++;
  return at;
}

/** A letter or a digit: what a word is made of, for `wordAround`. */
const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * The word that `at` splits — letters or digits on both sides ("Hi|ndi") — with its start and end offsets; null when
 * `at` is at a word's edge (the pipeline's positions always are: positionBefore, positionAfter).
 */
export function wordAround(text: string, at: number): { word: string; start: number; end: number } | null {
  if (at <= 0 || at >= text.length || !WORD_CHAR.test(text[at - 1]) || !WORD_CHAR.test(text[at])) return null;
  let start = at;
  while (start > 0 && WORD_CHAR.test(text[start - 1])) start--;
  let end = at;
  while (end < text.length && WORD_CHAR.test(text[end])) end++;
  return { word: text.slice(start, end), start, end };
}

/**
 * Where a call goes to come just before `phrase`: positionBefore its first whole-word occurrence (no letter or digit
 * glued to either end: "India" is not found in "Indian" or "BIndia"), with the occurrence's offset and how many
 * whole-word occurrences there are. null when there is none.
 */
export function positionBeforePhrase(text: string, phrase: string): { at: number; offset: number; occurrences: number } | null {
  if (phrase === '') return null;
  const glued = (inside: string, outside: string | undefined) => outside !== undefined && WORD_CHAR.test(inside) && WORD_CHAR.test(outside);
  const offsets: number[] = [];
  for (let i = text.indexOf(phrase); i >= 0; i = text.indexOf(phrase, i + 1)) {
    if (!glued(phrase[0], text[i - 1]) && !glued(phrase[phrase.length - 1], text[i + phrase.length])) offsets.push(i);
  }
  return offsets.length ? { at: positionBefore(text, offsets[0]), offset: offsets[0], occurrences: offsets.length } : null;
}
