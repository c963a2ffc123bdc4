/**
 * The corpus record formats besides plain `.jsonl` and `.txt` (read-corpus.ts dispatches to them):
 *   compressed.ts  `.jsonl.gz`, `.jsonl.zst`: decompressed bytes for the JSONL reader
 *   parquet.ts     `.parquet`: rows as raw records, one row group at a time
 * and the text/id column choice (`--text-column`, `--id-column`) shared by every record format.
 */
import { compressionOf } from './compressed.ts';
import { DEFAULT_COLUMNS, type RecordColumns, isParquet } from './parquet.ts';

/** A file one of these formats reads (by name; the reader reports a file whose content is not what its name says). */
export const isCorpusFormat = (path: string): boolean => isParquet(path) || compressionOf(path) !== null;

/**
 * A JSONL value with the chosen text/id fields renamed to `text`/`id` (the reader's record fields); unchanged when
 * the columns are the defaults or the value is not an object (the reader reports that).
 */
export function remapColumns(value: unknown, columns: RecordColumns): unknown {
  const text = columns.text ?? DEFAULT_COLUMNS.text;
  const id = columns.id ?? DEFAULT_COLUMNS.id;
  if ((text === DEFAULT_COLUMNS.text && id === DEFAULT_COLUMNS.id) || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const rec = value as Record<string, unknown>;
  const { [text]: textValue, [id]: idValue, text: _t, id: _i, ...rest } = rec;
  const out: Record<string, unknown> = { ...rest, text: textValue };
  if (idValue !== undefined) out.id = typeof idValue === 'number' ? String(idValue) : idValue;
  return out;
}
