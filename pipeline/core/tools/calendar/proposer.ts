import type { Doc } from '../../document.ts';
import { findDates } from '../../text/spans.ts';

/** Prefix endings after which today's date may help: "… as of", "… Today is", "… this year". */
const DATE_CUE = /\b(?:today|tonight|now|currently|at present|this (?:year|month|week|day)|the (?:year|date|day)|as of|dated?)\W*$/i;

/**
 * Calendar(): the tool takes no argument and answers from the document's date, so there is nothing to leak. It is
 * proposed when the document has a date and either the prefix ends with a date cue or a date-like expression
 * ("June 30, 1867", "1867", "Monday", "today") starts right at the position. Looking at the text after `at` only
 * decides *whether* to propose; the call itself carries nothing from it.
 */
export function proposeCalendar(prefix: string, doc: Doc, at: number): string[] {
  if (!doc.date) return [];
  const next = doc.text.slice(at, at + 40);
  const lead = /^[\s("'“‘[]*/.exec(next)![0].length;
  const dateNext = findDates(next).some((d) => d.start === lead);
  return dateNext || DATE_CUE.test(prefix) ? [''] : [];
}
