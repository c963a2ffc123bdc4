/**
 * Parquet files (one file, or a directory of shards: the reader's walker finds them) as raw records for the
 * corpus reader's record checks. Read with hyparquet, one row group (or a slice of one, see the budget below) at a
 * time and only the columns a record needs (text, id, and `source`/`date` when the file has them), so memory is one
 * read of those columns, never the file. Row numbers are 1-based over the whole file (the `line` of a JSONL record), so a record without an id gets
 * `<file name>:<row>` as a JSONL line does.
 *
 * Column values: the id may be a string or an integer (written in decimal); a `date` may be a string (an ISO
 * date-time such as FineWeb's "2013-05-18T07:24:47Z" counts as its day) or a date/timestamp column (its UTC day);
 * a `source` or `date` column of another type (a struct, a number) is not read.
 * A row group that cannot be decoded is one `corrupt` error for its rows; the next row group is read.
 */
import { decompress as decompressZstd } from 'fzstd';
import { type Compressors, type FileMetaData, type ParquetParsers, type SchemaElement, asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } from 'hyparquet';
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

/** Decoded bytes one Parquet read may hold (a row group, or a slice of one). */
export const DEFAULT_MAX_ROW_GROUP_BYTES = 128 << 20;

/** What reading a Parquet file may cost, bytes. */
export interface ParquetBudget {
  /** A string cell longer than this is a `too-long` bad record, never made a string. @default Infinity */
  maxCellBytes?: number;
  /** Decoded bytes of one read: see parquetRecords. @default DEFAULT_MAX_ROW_GROUP_BYTES */
  maxReadBytes?: number;
}

export type RawRecordItem =
  /** `value` is a record object for the reader's checks: {id?, text, source?, date?}. */
  | { kind: 'record'; row: number; value: Record<string, unknown> }
  /** Codes of read-corpus.ts's CorpusErrorCode (named here, not imported: the reader imports this module). */
  | { kind: 'error'; code: 'corrupt' | 'missing-field' | 'too-long' | 'invalid-utf8' | 'over-budget'; row?: number; reason: string };

/** A string cell the reader cannot take, decided from its bytes before any string is made. */
class BadCell {
  constructor(
    readonly code: 'too-long' | 'invalid-utf8',
    readonly bytes: number,
  ) {}
}

/**
 * One read decoded more string bytes than its budget, or a page's header declares more than the budget
 * (`pageBytes`, checked before a byte of it is decompressed).
 */
class OverBudget extends Error {
  constructor(readonly pageBytes?: number) {
    super('over budget');
  }
}

/**
 * hyparquet-compressors' decompressors, each refusing a page whose header declares more than `maxPageBytes` before
 * decompressing it (a 37 MB file of four ~2 GiB GZIP pages peaked at 8 GB: pages were decompressed whole before the
 * strings were counted), and each writing into an output of the declared size, ZSTD included (fzstd would otherwise
 * grow its output to whatever the frame holds), so a header that lies cannot grow it either.
 */
function budgetedCompressors(maxPageBytes: number): Compressors {
  const codecs: Compressors = { ...compressors, ZSTD: (input, length) => decompressZstd(input, new Uint8Array(length)) };
  return Object.fromEntries(Object.entries(codecs).map(([codec, decompress]) => [codec, (input: Uint8Array, length: number) => {
    if (length > maxPageBytes) throw new OverBudget(length);
    return decompress!(input, length);
  }]));
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Every row of a Parquet file as a raw record, in file order; a bad file or row group is an error item.
 *
 * Budget: a row group whose columns (those read) decode to more than `maxReadBytes` by its metadata is read in slices
 * of rows, each planned at half the budget (a slice also decodes the pages it starts and ends in), so memory is one
 * slice, and a consumer that stops (`--max-docs`) stops the decoding. Strings are made by our own parser: a cell over
 * `maxCellBytes` or not valid UTF-8 is a bad record of its own (never a string, never U+FFFD), and the bytes of the
 * strings made count against the budget; a read that passes it (one page bigger than the budget, or metadata that
 * lied) is stopped, and the rest of its row group is one `over-budget` error. A compressed page whose header declares
 * more than the budget is refused the same way before it is decompressed (budgetedCompressors).
 */
export async function* parquetRecords(path: string, columns: RecordColumns = {}, budget: ParquetBudget = {}): AsyncGenerator<RawRecordItem> {
  const maxCell = budget.maxCellBytes ?? Infinity;
  const maxRead = budget.maxReadBytes ?? DEFAULT_MAX_ROW_GROUP_BYTES;
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
  let decoded = 0; // string bytes made by the current read
  const stringFromBytes = (bytes: Uint8Array | undefined) => {
    if (bytes === undefined) return bytes;
    if (bytes.length > maxCell) return new BadCell('too-long', bytes.length);
    decoded += bytes.length;
    if (decoded > maxRead) throw new OverBudget();
    try {
      return utf8.decode(bytes);
    } catch {
      return new BadCell('invalid-utf8', bytes.length);
    }
  };
  const decompressors = budgetedCompressors(maxRead);
  let start = 0;
  const groups = metadata.row_groups.length;
  for (const [g, group] of metadata.row_groups.entries()) {
    const rows = Number(group.num_rows);
    const end = start + rows;
    const where = (from: number) => `row group ${g + 1} of ${groups} (rows ${from + 1}–${end})`;
    const size = group.columns.filter((c) => wanted.includes(c.meta_data?.path_in_schema[0] ?? '')).reduce((n, c) => n + Number(c.meta_data?.total_uncompressed_size ?? 0), 0);
    const sliceRows = size <= maxRead ? rows : Math.max(1, Math.floor(rows / Math.ceil(size / (maxRead / 2))));
    for (let from = start; from < end; from += sliceRows) {
      const to = Math.min(from + sliceRows, end);
      let objects: Record<string, unknown>[];
      decoded = 0;
      try {
        objects = await parquetReadObjects({ file, metadata, columns: wanted, rowStart: from, rowEnd: to, compressors: decompressors, useOffsetIndex: true, parsers: { stringFromBytes } as Partial<ParquetParsers> });
        if (objects.length !== to - from) throw new Error(`decoded ${objects.length} of its ${to - from} rows`);
      } catch (e) {
        // The rest of the row group, in one line: the same page (or damage) would stop every later slice too.
        const page = e instanceof OverBudget && e.pageBytes !== undefined ? `a page declares ${e.pageBytes} bytes decompressed,` : 'a page decodes to';
        yield e instanceof OverBudget
          ? { kind: 'error', code: 'over-budget', row: from + 1, reason: `${where(from)}: ${page} over the ${maxRead}-byte budget (--max-row-group-bytes), skipped` }
          : { kind: 'error', code: 'corrupt', row: from + 1, reason: `${where(from)} cannot be decoded, skipped: ${message(e)}` };
        break;
      }
      for (const [i, row] of objects.entries()) yield recordItem(row, from + i + 1, textColumn, idColumn, maxCell);
    }
    start = end;
  }
}

/** A decoded row as a raw record, or the error of its first bad cell. */
function recordItem(row: Record<string, unknown>, rowNumber: number, textColumn: string, idColumn: string, maxCell: number): RawRecordItem {
  for (const [column, value] of Object.entries(row)) {
    if (!(value instanceof BadCell)) continue;
    const reason =
      value.code === 'too-long'
        ? `record is ${value.bytes} bytes${column === textColumn ? '' : ` in column "${column}"`}, over the ${maxCell}-byte cap`
        : `column "${column}" is not valid UTF-8 (${value.bytes} bytes)`;
    return { kind: 'error', code: value.code, row: rowNumber, reason };
  }
  return { kind: 'record', row: rowNumber, value: recordOf(row, textColumn, idColumn) };
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
