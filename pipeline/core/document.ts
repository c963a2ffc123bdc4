/** One input document, as read from the corpus (JSONL `{id, text, source, date?}` or a .txt file). */
export interface Doc {
  id: string;
  text: string;
  /** Where it came from, e.g. "sotu" or a file path. */
  source?: string;
  /** ISO date (YYYY-MM-DD) from the document's metadata; the Calendar tool's "today". */
  date?: string;
}
