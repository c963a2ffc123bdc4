/**
 * Heuristic call positions, beside the LM's p_i(" [") positions: where a tool's result would most plausibly help
 * predict the next tokens. A position is a character offset `at` in the text; the call is inserted as
 * `text.slice(0, at) + " [Tool(args) -> result]" + text.slice(at)`, so `at` is the end of the previous word and
 * `text[at]` is usually the space before the next one.
 *
 *   Calculator  before each number that is not a year or part of a date ("… of [Calculator(…)] 27,000,000")
 *   Calendar    before dates, years, weekday names and "today"-like words
 *   QA          before capitalised entities
 *   Translate   after each non-English span (and its closing quote), as the paper's MT calls follow the span
 */
import {
  findDates,
  findEntities,
  findForeignSpans,
  findQuantities,
} from './proposers/text-spans.ts';

/** Sorted, deduplicated positions in `(0, text.length]` for `tool`; `[]` for a tool without heuristics. */
export function heuristicPositions(text: string, tool: string): number[] {
  let positions: number[];
  switch (tool) {
    case 'Calculator':
      positions = findQuantities(text).map((n) => positionBefore(text, n.start));
      break;
    case 'Calendar':
      positions = findDates(text).map((d) => positionBefore(text, d.start));
      break;
    case 'QA':
      positions = findEntities(text).map((e) => positionBefore(text, e.start));
      break;
    case 'Translate':
      positions = findForeignSpans(text).map((s) => positionAfter(text, s.end));
      break;
    default:
      positions = [];
  }
  return [...new Set(positions)].filter((p) => p > 0 && p <= text.length).sort((a, b) => a - b);
}

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
