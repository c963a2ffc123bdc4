/**
 * Read documents from `.jsonl` files, `.txt` files and directories as one stream of items. Bad input never throws:
 * each bad record or file becomes an `error` item with its file, line and reason, and the stream goes on.
 *
 *   .jsonl  one record per line, `{id?, text, source?, date?}`; streamed line by line (a line is never held in memory
 *           beyond `maxRecordBytes`, so a 1 GiB single-line record is one `too-long` error with its size, not loaded,
 *           and the lines around it are read). A missing `id` becomes `<path under the inputs' root>:<line>`
 *           ("a/part.jsonl:3"), and an id already seen in another file becomes `<that path>:<id>`; blank lines are
 *           not records (a run of them is skipped in bulk); a file with no record is an `empty-text` error; a record
 *           holding a NUL byte is a `binary` error (the others still read); a run of NULs (1 MiB) in a line over the
 *           cap ends the file as one `binary` error.
 *   .txt    one document per file (decision: a text file is a document; split it yourself for finer units),
 *           `id` = the file path, `source` = the file path, no date.
 *   .jsonl.gz, .jsonl.zst, .parquet   record formats of their own (corpus-formats/): the same record checks and ids;
 *           a truncated or corrupt stream, or a Parquet row group that cannot be decoded, is a `corrupt` error item
 *           and the stream goes on with what could be read.
 *   dirs    walked by corpus-files.ts (the fingerprint uses the same list): sorted, links followed with loop
 *           detection, each file once, only regular files; hidden entries and other kinds are skipped and reported
 *           to `onSkip`; so is a FIFO, socket or device named on the command line (/dev/zero). A named path
 *           that is missing or of another extension is an error item.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { InputLimits } from '../../core/config.ts';
import { DOCUMENT_DATE_FORMS, type Doc, isDocumentDate } from '../../core/document.ts';
import { LineSplitter, NUL_RUN_BYTES, type RawLine } from '../../io/line-splitter.ts';
import { type Listed, type SkippedFiles, listCorpusFiles, summarizeSkips } from './corpus-files.ts';
import { CorruptStreamError, DEFAULT_MAX_ZSTD_WINDOW_BYTES, WindowTooLargeError, decompressedChunks } from './corpus-formats/compressed.ts';
import { remapColumns } from './corpus-formats/index.ts';
import { DEFAULT_MAX_ROW_GROUP_BYTES, type RecordColumns, parquetRecords } from './corpus-formats/parquet.ts';

export type CorpusErrorCode =
  | 'missing-path' // a path given as input does not exist
  | 'unreadable' // open/read/stat failed (permissions, dangling link, I/O error)
  | 'unsupported-extension' // an input file of no corpus kind
  | 'binary' // .txt: NUL bytes in the first 8 KiB; .jsonl: a record holding a NUL byte, or NULs in a file that does not start like JSONL
  | 'invalid-utf8'
  | 'malformed-json'
  | 'not-an-object' // a JSON value that is not an object (array, number, null…)
  | 'missing-field' // no `text`
  | 'wrong-type' // `id`, `text`, `source` or `date` of the wrong type, or a date that is not YYYY-MM-DD / YYYY
  | 'empty-text' // text empty or whitespace only; a .jsonl file with no record
  | 'duplicate-id' // an id already seen earlier in the same file (the first one wins)
  | 'too-long' // a record over `maxRecordBytes` (a line, a .txt file, a Parquet cell)
  | 'over-budget' // a zstd window or a Parquet page over its cap: the file or the rows it holds are not read
  | 'corrupt'; // a compressed stream that breaks off, a Parquet file or row group that cannot be decoded

export type CorpusItem = CorpusDoc | CorpusError;
export interface CorpusDoc {
  kind: 'doc';
  doc: Doc;
  file: string;
  /** 1-based line of a .jsonl record; 1 for a .txt file. */
  line: number;
}
export interface CorpusError {
  kind: 'error';
  code: CorpusErrorCode;
  file: string;
  /** 1-based line for a bad record; absent when the whole file (or path) is bad. */
  line?: number;
  /** Human-readable, at most ~200 characters. */
  reason: string;
}

export interface ReadCorpusOptions {
  /** Told of each path the walker skipped, in order. */
  onSkip?: (skipped: Extract<Listed, { kind: 'skipped' }>) => void;
  /**
   * The byte budgets (the config's `inputLimits`): the largest record (a JSONL line, a whole .txt file, a Parquet
   * cell — longer ones are `too-long` without being held in memory), the largest zstd window, the decoded bytes of
   * one Parquet read. @default DEFAULT_INPUT_LIMITS
   */
  limits?: InputLimits;
  /** Which fields (JSONL) or columns (Parquet) hold the text and the id. @default {text: "text", id: "id"} */
  columns?: RecordColumns;
}

export const DEFAULT_INPUT_LIMITS: Required<InputLimits> = {
  maxRecordBytes: 4 << 20,
  maxZstdWindowBytes: DEFAULT_MAX_ZSTD_WINDOW_BYTES,
  maxRowGroupBytes: DEFAULT_MAX_ROW_GROUP_BYTES,
};
/** Bytes inspected for NUL to call a file binary. */
const SNIFF_BYTES = 8192;

/**
 * How each kind of corpus file is read, by name suffix (matched case-insensitively, the longest first): a new kind is
 * one entry here. The walker (corpus-files.ts) lists only files of these kinds, for the reader and the fingerprint.
 */
const READERS: Record<string, FileReader> = {
  '.jsonl': (file, o) => readJsonl(file, o),
  '.jsonl.gz': (file, o) => readJsonl(file, o, decompressedChunks(file.path, 'gzip')),
  '.jsonl.zst': (file, o) => readJsonl(file, o, decompressedChunks(file.path, 'zstd', { maxWindowBytes: o.limits.maxZstdWindowBytes })),
  '.parquet': (file, o) => readParquet(file, o),
  '.txt': (file, o) => readTxt(file, o),
};
type ListedFile = Extract<Listed, { kind: 'file' }>;
/** What every file reader shares over one stream: the budgets, the ids seen so far (id → idBase of its file), the columns. */
interface ReadContext {
  limits: Required<InputLimits>;
  seen: Map<string, string>;
  columns: RecordColumns;
}
type FileReader = (file: ListedFile, o: ReadContext) => AsyncGenerator<CorpusItem>;
export const CORPUS_SUFFIXES = Object.keys(READERS);

/** The files, skips and errors the reader goes through for `paths`, in its order (the fingerprint hashes the same). */
export const listInputs = (paths: readonly string[]) => listCorpusFiles(paths, CORPUS_SUFFIXES);

/** `stats` with `skippedInputs` set when the reader skips any of `paths`' entries (stats.json's record of them). */
export function withSkippedInputs<T extends { skippedInputs?: SkippedFiles }>(stats: T, paths: readonly string[]): T {
  const skips = summarizeSkips(listInputs(paths));
  if (Object.keys(skips).length > 0) stats.skippedInputs = skips;
  return stats;
}

/**
 * Stream every document (and every problem) from the given files and directories, in a stable order. Paths the
 * walker skips (hidden, other kinds, links seen before…) are not items: `onSkip` hears each one, and
 * `summarizeSkips(listInputs(paths))` counts them.
 */
export async function* readCorpus(paths: string[], opts: ReadCorpusOptions = {}): AsyncGenerator<CorpusItem> {
  const limits = { ...DEFAULT_INPUT_LIMITS, ...definedOnly(opts.limits ?? {}) };
  const context: ReadContext = { limits, seen: new Map(), columns: opts.columns ?? {} };
  for (const listed of listInputs(paths)) {
    if (listed.kind === 'skipped') opts.onSkip?.(listed);
    else if (listed.kind === 'error') yield err(listed.code, listed.path, undefined, listed.reason);
    else yield* READERS[listed.suffix](listed, context);
  }
}

const definedOnly = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** A Parquet file's rows through the same record checks as JSONL lines (row = line, fallback id `<idBase>:<row>`). */
async function* readParquet(file: ListedFile, o: ReadContext): AsyncGenerator<CorpusItem> {
  const { path, idBase } = file;
  for await (const item of parquetRecords(path, o.columns, { maxCellBytes: o.limits.maxRecordBytes, maxReadBytes: o.limits.maxRowGroupBytes })) {
    if (item.kind === 'error') yield err(item.code, path, item.row, item.reason);
    else yield parseRecord(item.value, file, item.row, o.seen);
  }
}

async function* readTxt({ path, idBase }: ListedFile, o: ReadContext): AsyncGenerator<CorpusItem> {
  const maxBytes = o.limits.maxRecordBytes;
  let bytes: Buffer;
  try {
    const size = (await stat(path)).size;
    if (size > maxBytes) {
      yield err('too-long', path, undefined, `file is ${size} bytes, over the ${maxBytes}-byte cap`);
      return;
    }
    bytes = await readFile(path);
  } catch (e) {
    yield err('unreadable', path, undefined, message(e));
    return;
  }
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) {
    yield err('binary', path, undefined, 'NUL bytes in the first 8 KiB: not a text file');
    return;
  }
  const text = decode(bytes);
  if (text === null) {
    yield err('invalid-utf8', path, undefined, 'not valid UTF-8');
    return;
  }
  yield checkDoc({ id: path, text: stripBom(text), source: path }, path, 1, idBase, o.seen);
}

async function* readJsonl(file: ListedFile, o: ReadContext, bytes: AsyncIterable<Buffer> = createReadStream(file.path)): AsyncGenerator<CorpusItem> {
  const { path } = file;
  const maxBytes = o.limits.maxRecordBytes;
  let records = 0;
  try {
    for await (const line of jsonlLines(bytes, maxBytes)) {
      if (line.kind === 'binary') {
        yield err('binary', path, undefined, 'NUL bytes in the first 8 KiB and no JSON record first: not a JSONL file');
        return;
      }
      if (line.kind === 'nul-run') {
        yield err('binary', path, line.line, `a run of over ${NUL_RUN_BYTES} NUL bytes from line ${line.line} on: the rest of the file is not text, not read`);
        return;
      }
      if (line.kind === 'too-long') {
        records++;
        yield err('too-long', path, line.line, `record is ${line.bytes} bytes, over the ${maxBytes}-byte cap`);
        continue;
      }
      if (line.bytes.includes(0)) {
        records++;
        yield err('binary', path, line.line, 'NUL byte in the record: not text');
        continue;
      }
      const decoded = decode(line.bytes);
      if (decoded === null) {
        records++;
        yield err('invalid-utf8', path, line.line, 'not valid UTF-8');
        continue;
      }
      const text = line.line === 1 ? stripBom(decoded) : decoded;
      if (text.trim() === '') continue;
      records++;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        yield err('malformed-json', path, line.line, message(e));
        continue;
      }
      // A record without an id: its file's path under the inputs' root and its line, distinct across shards.
      yield parseRecord(remapColumns(value, o.columns), file, line.line, o.seen);
    }
  } catch (e) {
    if (e instanceof CorruptStreamError) yield err('corrupt', path, undefined, e.message);
    else if (e instanceof WindowTooLargeError) yield err('over-budget', path, undefined, e.message);
    else yield err('unreadable', path, undefined, message(e));
    return;
  }
  if (records === 0) yield err('empty-text', path, undefined, 'no records: the file is empty or holds only blank lines');
}

/**
 * The file's lines (io/line-splitter.ts: a line over `maxBytes` counted, not kept; a NUL run ends the file), or one
 * `binary` item when the file holds NULs in its first SNIFF_BYTES and does not start like JSONL.
 */
async function* jsonlLines(bytes: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<RawLine | { kind: 'binary' }> {
  const split = new LineSplitter(maxBytes);
  let first = true;
  for await (const chunk of bytes) {
    if (first) {
      first = false;
      // NULs in a file that does not even start like JSONL (a first record "{…"): a binary file, one error. In a
      // file that does, NULs are judged record by record: one bad record must not hide the good ones.
      const head = chunk.subarray(0, SNIFF_BYTES);
      if (head.includes(0) && !startsLikeJsonl(head)) {
        yield { kind: 'binary' };
        return;
      }
    }
    for (const line of split.push(chunk)) {
      yield line;
      if (line.kind === 'nul-run') return;
    }
  }
  yield* split.end();
}

/** The first byte that is not whitespace (or a UTF-8 BOM) is "{". */
function startsLikeJsonl(head: Buffer): boolean {
  let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x09 || head[i] === 0x0a || head[i] === 0x0d)) i++;
  return head[i] === 0x7b;
}


const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Strict UTF-8 decoding: null on any invalid byte sequence. */
function decode(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

function stripBom(s: string): string {
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}

/** Validate one parsed JSONL value (or Parquet row) of `listed` as a Doc; without an id it gets `<idBase>:<line>`. */
function parseRecord(value: unknown, listed: ListedFile, line: number, seen: Map<string, string>): CorpusItem {
  const file = listed.path;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    return err('not-an-object', file, line, `record is ${what}, expected an object`);
  }
  const rec = value as Record<string, unknown>;
  if (!('text' in rec) || rec.text === undefined) return err('missing-field', file, line, 'no "text" field');
  for (const key of ['id', 'text', 'source', 'date'] as const) {
    if (key in rec && rec[key] !== undefined && rec[key] !== null && typeof rec[key] !== 'string') {
      return err('wrong-type', file, line, `"${key}" is ${typeof rec[key]}, expected a string`);
    }
  }
  const date = rec.date as string | undefined | null;
  if (typeof date === 'string' && !isDocumentDate(date)) {
    return err('wrong-type', file, line, `"date" is ${JSON.stringify(date.slice(0, 40))}, expected ${DOCUMENT_DATE_FORMS}`);
  }
  if (rec.text === null) return err('wrong-type', file, line, '"text" is null, expected a string');
  const id = typeof rec.id === 'string' && rec.id !== '' ? rec.id : `${listed.idBase}:${line}`;
  const doc: Doc = { id, text: rec.text as string, source: typeof rec.source === 'string' ? rec.source : file };
  if (typeof date === 'string') doc.date = date;
  return checkDoc(doc, file, line, listed.idBase, seen);
}

/**
 * The checks shared by records and .txt files: non-empty text, unique id. An id first seen in another file (two
 * shards that both number their rows from 0) is made distinct as `<idBase>:<id>`, as ids of records without one
 * are; an id repeated within one file is a `duplicate-id` (the first kept).
 */
function checkDoc(doc: Doc, file: string, line: number, idBase: string, seen: Map<string, string>): CorpusItem {
  if (doc.text.trim() === '') return err('empty-text', file, line, `document ${JSON.stringify(doc.id)} has no text`);
  const firstIn = seen.get(doc.id);
  if (firstIn !== undefined) {
    const distinct = `${idBase}:${doc.id}`;
    if (firstIn === idBase || seen.has(distinct)) return err('duplicate-id', file, line, `id ${JSON.stringify(doc.id)} already seen; first kept`);
    doc = { ...doc, id: distinct };
  }
  seen.set(doc.id, idBase);
  return { kind: 'doc', doc, file, line };
}

function err(code: CorpusErrorCode, file: string, line: number | undefined, reason: string): CorpusError {
  const short = reason.length > 200 ? `${reason.slice(0, 197)}...` : reason;
  return line === undefined ? { kind: 'error', code, file, reason: short } : { kind: 'error', code, file, line, reason: short };
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
