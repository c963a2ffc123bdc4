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
