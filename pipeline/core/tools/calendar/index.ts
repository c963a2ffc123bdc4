/**
 * The Calendar tool, whole: `[Calendar() -> Today is Monday, January 30, 2023.]`. No argument; "today" is the
 * document's date. The engine is calendar.ts, the proposer proposer.ts.
 */
import type { Doc } from '../../document.ts';
import { paperPrompt } from '../prompts.ts';
import { positionBefore } from '../../text/boundaries.ts';
import { foldText } from '../../text/compare.ts';
import { findDates } from '../../text/spans.ts';
import { PAPER_DEFAULTS, type PrefilterVerdict, type ToolRunner, type ToolSpec } from '../spec.ts';
import { proposeCalendar } from './proposer.ts';

const NAME = 'Calendar';

/**
 * The engine (calendar.ts, over date-fns: ~40 modules) loads on the first call, as mathjs and the language detector
 * do: a command that only lists the tools (`toolformer tools`) never loads it.
 */
let engine: Promise<ToolRunner> | undefined;
const loadEngine = () => (engine ??= import('./calendar.ts').then((m) => new m.Calendar()));
const lazyCalendar: ToolRunner = {
  run: async (input, context) => (await loadEngine()).run(input, context),
  load: async () => void (await loadEngine()),
};

export const calendar: ToolSpec = {
  name: NAME,
  description: "Returns today's date (the document's date), e.g. Today is Monday, January 30, 2023.",
  documentation: {
    category: 'Dates',
    syntax: ['Calendar()'],
    examples: ["what day of the week it is today", "today's date: the weekday, month and year", 'the current day, month or year'],
    seeAlso: [],
  },
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  argument: { syntax: 'none' },
  create: () => lazyCalendar,
  sameResult: calendarSameResult,
  prompt: paperPrompt(
    NAME,
    'Your task is to add calls to a Calendar API to a piece of text. The API calls should help you get information ' +
      'required to complete the text. You can call the API by writing "[Calendar()]".',
    {
      input: 'Today is the first Friday of the year.',
      output: 'Today is the first [Calendar()] Friday of the year.',
    },
  ),
  thresholds: PAPER_DEFAULTS,
  prefilter: calendarPrefilter,
  positions: calendarPositions,
  // No argument, so nothing to leak: the answer comes from the document's date.
  leaks: () => null,
  propose: proposeCalendar,
  examples: [
    {
      text: 'Today is the first Friday of the year, and the shops are open.',
      at: 8,
      input: '',
      result: 'Today is Friday, January 6, 2023.',
      date: '2023-01-06',
    },
  ],
};

/**
 * Before dates, years, weekday names and "today"-like words — and before the year inside a date ("July 1, ‸ 1893"),
 * where the year is what a year-only result predicts.
 */
function calendarPositions(text: string): number[] {
  const out: number[] = [];
  for (const d of findDates(text)) {
    out.push(positionBefore(text, d.start));
    const year = /\b\d{4}\b(?!.*\b\d{4}\b)/.exec(d.text);
    if (year && year.index > 0) out.push(positionBefore(text, d.start + year.index));
  }
  return out;
}

/**
 * The paper uses documents whose date is known (URL/metadata); here `doc.date` (YYYY-MM-DD, or YYYY when a source
 * gives only the year). A document without a date is skipped: a date is never made up.
 */
function calendarPrefilter(doc: Doc): PrefilterVerdict {
  return doc.date && /^\d{4}(-\d{2}-\d{2})?$/.test(doc.date)
    ? { pass: true, kind: 'dated', reason: `document date ${doc.date}` }
    : { pass: false, kind: 'no_date', reason: 'no document date' };
}

const MONTH_OR_DAY = /\b(january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/i;

/** An expected year: the result names it and no month or weekday (a day nobody knows); else the result contains it. */
function calendarSameResult(result: string, expected: string): boolean {
  if (/^\d{4}$/.test(expected)) return new RegExp(`\\b${expected}\\b`).test(result) && !MONTH_OR_DAY.test(result);
  return foldText(result).includes(foldText(expected));
}
