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
