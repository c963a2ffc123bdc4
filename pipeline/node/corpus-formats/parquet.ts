/**
 * Parquet files (one file, or a directory of shards: the reader's walker finds them) as raw records for the
 * corpus reader's record checks. Read with hyparquet, one row group at a time and only the columns a record needs
 * (text, id, and `source`/`date` when the file has them), so memory is one row group of those columns, never the
 * file. Row numbers are 1-based over the whole file (the `line` of a JSONL record), so a record without an id gets
 * `<file name>:<row>` as a JSONL line does.
 *
 * Column values: the id may be a string or an integer (written in decimal); a `date` may be a string (an ISO
 * date-time such as FineWeb's "2013-05-18T07:24:47Z" counts as its day) or a date/timestamp column (its UTC day);
 * a `source` or `date` column of another type (a struct, a number) is not read.
 * A row group that cannot be decoded is one `corrupt` error for its rows; the next row group is read.
 */
import { type FileMetaData, type SchemaElement, asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

export const PARQUET_SUFFIX = '.parquet';
export const isParquet = (path: string) => path.toLowerCase().endsWith(PARQUET_SUFFIX);

/** Which columns hold a record's text and id (`--text-column`, `--id-column`). */
export interface RecordColumns {
  /** @default "text" */
  text?: string;
  /** @default "id" */
  id?: string;
}
export const DEFAULT_COLUMNS = { text: 'text', id: 'id' } as const;

export type RawRecordItem =
  /** `value` is a record object for the reader's checks: {id?, text, source?, date?}. */
  | { kind: 'record'; row: number; value: Record<string, unknown> }
  /** Codes of read-corpus.ts's CorpusErrorCode (named here, not imported: the reader imports this module). */
  | { kind: 'error'; code: 'corrupt' | 'missing-field' | 'too-long'; row?: number; reason: string };

/** Every row of a Parquet file as a raw record, in file order; a bad file or row group is an error item. */
export async function* parquetRecords(path: string, columns: RecordColumns = {}, maxBytes = Infinity): AsyncGenerator<RawRecordItem> {
  const textColumn = columns.text ?? DEFAULT_COLUMNS.text;
  const idColumn = columns.id ?? DEFAULT_COLUMNS.id;
  let file;
  let metadata: FileMetaData;
  try {
    file = await asyncBufferFromFile(path);
    metadata = await parquetMetadataAsync(file);
  } catch (e) {
    yield { kind: 'error', code: 'corrupt', reason: `not a readable Parquet file: ${message(e)}` };
    return;
  }
  const elements = new Map(parquetSchema(metadata).children.map((c) => [c.element.name, c.element]));
  const names = [...elements.keys()];
  if (!names.includes(textColumn)) {
    const flag = columns.text === undefined ? ': pass --text-column' : '';
    yield { kind: 'error', code: 'missing-field', reason: `no column "${textColumn}" (columns: ${names.slice(0, 12).join(', ')})${flag}` };
    return;
  }
  // `source` and `date` only when they can be what the reader takes (a string, a date or timestamp column): a
  // struct or number column of that name in someone's dataset would otherwise make every row a wrong-type error.
  const optional = [
    elements.has(idColumn) ? idColumn : null,
    isString(elements.get('source')) ? 'source' : null,
    isString(elements.get('date')) || isDateType(elements.get('date')) ? 'date' : null,
  ];
  const wanted = [textColumn, ...optional.filter((n): n is string => n !== null && n !== textColumn)];
  let start = 0;
  for (const [g, group] of metadata.row_groups.entries()) {
    const rows = Number(group.num_rows);
    const first = start + 1; // 1-based
    let objects: Record<string, unknown>[];
    try {
      objects = await parquetReadObjects({ file, metadata, columns: wanted, rowStart: start, rowEnd: start + rows, compressors });
      if (objects.length !== rows) throw new Error(`decoded ${objects.length} of its ${rows} rows`);
    } catch (e) {
      const last = start + rows;
      yield { kind: 'error', code: 'corrupt', row: first, reason: `row group ${g + 1} of ${metadata.row_groups.length} (rows ${first}–${last}) cannot be decoded, skipped: ${message(e)}` };
      start += rows;
      continue;
    }
    for (const [i, row] of objects.entries()) {
      const rowNumber = first + i;
      const text = row[textColumn];
      if (typeof text === 'string' && Buffer.byteLength(text) > maxBytes) {
        yield { kind: 'error', code: 'too-long', row: rowNumber, reason: `record is ${Buffer.byteLength(text)} bytes, over the ${maxBytes}-byte cap` };
        continue;
      }
      yield { kind: 'record', row: rowNumber, value: recordOf(row, textColumn, idColumn) };
    }
    start += rows;
  }
}

const isString = (e: SchemaElement | undefined) => e?.type === 'BYTE_ARRAY' && !e.num_children;
const isDateType = (e: SchemaElement | undefined) =>
  e !== undefined && (['DATE', 'TIMESTAMP_MILLIS', 'TIMESTAMP_MICROS'].includes(e.converted_type ?? '') || ['DATE', 'TIMESTAMP'].includes(e.logical_type?.type ?? ''));

/** A row as a corpus record, in the JSONL record's field names (the reader then checks types as for JSONL). */
function recordOf(row: Record<string, unknown>, textColumn: string, idColumn: string): Record<string, unknown> {
  const out: Record<string, unknown> = { text: row[textColumn] }; // null stays null: the reader says "text" is null
  const id = row[idColumn];
  if (idColumn !== textColumn && id !== null && id !== undefined) out.id = typeof id === 'number' || typeof id === 'bigint' ? String(id) : id;
  if (textColumn !== 'source' && row.source !== null && row.source !== undefined) out.source = row.source;
  const date = row.date;
  if (textColumn !== 'date' && date !== null && date !== undefined) out.date = dayOf(date);
  return out;
}

const ISO_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ]\d{2}:\d{2}/;

function dayOf(date: unknown): unknown {
  if (date instanceof Date) return Number.isNaN(date.getTime()) ? date : date.toISOString().slice(0, 10);
  if (typeof date === 'string') return ISO_DATE_TIME.exec(date)?.[1] ?? date;
  return date;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
