/**
 * Read documents from `.jsonl` files, `.txt` files and directories as one stream of items. Bad input never throws:
 * each bad record or file becomes an `error` item with its file, line and reason, and the stream goes on.
 *
 *   .jsonl  one record per line, `{id?, text, source?, date?}`; streamed line by line (a line is never held in memory
 *           beyond `maxDocBytes`, so a 10 MB single-line record is reported, not loaded). A missing `id` becomes
 *           `<file>:<line>`; blank lines are skipped silently (they are not records).
 *   .txt    one document per file (decision: a text file is a document; split it yourself for finer units),
 *           `id` = the file path, `source` = the file path, no date.
 *   .jsonl.gz, .jsonl.zst, .parquet   record formats of their own (corpus-formats/): the same record checks and ids;
 *           a truncated or corrupt stream, or a Parquet row group that cannot be decoded, is a `corrupt` error item
 *           and the stream goes on with what could be read.
 *   dirs    walked recursively in sorted (code-unit) order; hidden entries and other extensions are skipped silently.
 *           A path named on the command line that is missing, hidden or of another extension is an error item.
 */
import { createReadStream } from 'node:fs';
import { lstat, readFile, readdir, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type { Doc } from '../core/document.ts';
import { CorruptStreamError, compressionOf, decompressedChunks } from './corpus-formats/compressed.ts';
import { isCorpusFormat, remapColumns } from './corpus-formats/index.ts';
import { type RecordColumns, isParquet, parquetRecords } from './corpus-formats/parquet.ts';

export type CorpusErrorCode =
  | 'missing-path' // a path given as input does not exist
  | 'unreadable' // open/read/stat failed (permissions, dangling link, I/O error)
  | 'unsupported-extension' // an input file that is neither .jsonl nor .txt
  | 'binary' // NUL bytes in the first 8 KiB
  | 'invalid-utf8'
  | 'malformed-json'
  | 'not-an-object' // a JSON value that is not an object (array, number, null…)
  | 'missing-field' // no `text`
  | 'wrong-type' // `id`, `text`, `source` or `date` of the wrong type, or a date that is not YYYY-MM-DD / YYYY
  | 'empty-text' // text empty or whitespace only
  | 'duplicate-id' // an id already seen earlier in this stream (the first one wins)
  | 'too-long' // a record over `maxDocBytes`
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
  /**
   * Largest record accepted, in bytes of UTF-8 (a JSONL line or a whole .txt file). Longer ones are reported as
   * `too-long` without being held in memory.
   * @default 1_048_576 (1 MiB)
   */
  maxDocBytes?: number;
  /** Which fields (JSONL) or columns (Parquet) hold the text and the id. @default {text: "text", id: "id"} */
  columns?: RecordColumns;
}

export const DEFAULT_MAX_DOC_BYTES = 1 << 20;
/** Bytes inspected for NUL to call a file binary. */
const SNIFF_BYTES = 8192;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Stream every document (and every problem) from the given files and directories, in a stable order. */
export async function* readCorpus(paths: string[], opts: ReadCorpusOptions = {}): AsyncGenerator<CorpusItem> {
  const maxBytes = opts.maxDocBytes ?? DEFAULT_MAX_DOC_BYTES;
  const columns = opts.columns ?? {};
  const seen = new Set<string>();
  for (const path of paths) {
    let isDir: boolean;
    try {
      isDir = (await stat(path)).isDirectory();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // A dangling symlink exists (lstat) but cannot be followed: unreadable, not missing.
      const exists = code !== 'ENOENT' || (await lstat(path).then(() => true, () => false));
      yield exists
        ? err('unreadable', path, undefined, `cannot stat: ${message(e)}`)
        : err('missing-path', path, undefined, 'no such file or directory');
      continue;
    }
    if (isDir) {
      for await (const file of walk(path)) {
        if (file.kind === 'error') yield file;
        else yield* readFileItems(file.path, maxBytes, seen, columns);
      }
    } else if (isCorpusFile(path)) {
      yield* readFileItems(path, maxBytes, seen, columns);
    } else {
      yield err('unsupported-extension', path, undefined, `not .jsonl, .jsonl.gz, .jsonl.zst, .parquet or .txt: ${extname(path) || '(none)'}`);
    }
  }
}

function isCorpusFile(path: string): boolean {
  const ext = extname(path).toLowerCase();
  return ext === '.jsonl' || ext === '.txt' || isCorpusFormat(path);
}

/** Corpus files under a directory, recursively, sorted by name at each level. */
async function* walk(dir: string): AsyncGenerator<{ kind: 'file'; path: string } | CorpusError> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    yield err('unreadable', dir, undefined, `cannot list directory: ${message(e)}`);
    return;
  }
  // Code-unit order, not locale order: the same on every machine.
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (isCorpusFile(path)) yield { kind: 'file', path };
  }
}

function readFileItems(path: string, maxBytes: number, seen: Set<string>, columns: RecordColumns): AsyncGenerator<CorpusItem> {
  if (isParquet(path)) return readParquet(path, maxBytes, seen, columns);
  const compression = compressionOf(path);
  if (compression) return readJsonl(path, maxBytes, seen, columns, decompressedChunks(path, compression));
  return extname(path).toLowerCase() === '.jsonl' ? readJsonl(path, maxBytes, seen, columns) : readTxt(path, maxBytes, seen);
}

/** A Parquet file's rows through the same record checks as JSONL lines (row = line, fallback id `<file>:<row>`). */
async function* readParquet(path: string, maxBytes: number, seen: Set<string>, columns: RecordColumns): AsyncGenerator<CorpusItem> {
  const stem = basename(path);
  for await (const item of parquetRecords(path, columns, maxBytes)) {
    if (item.kind === 'error') yield err(item.code, path, item.row, item.reason);
    else yield parseRecord(item.value, path, item.row, `${stem}:${item.row}`, seen);
  }
}

async function* readTxt(path: string, maxBytes: number, seen: Set<string>): AsyncGenerator<CorpusItem> {
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
  yield checkDoc({ id: path, text: stripBom(text), source: path }, path, 1, seen);
}

async function* readJsonl(
  path: string,
  maxBytes: number,
  seen: Set<string>,
  columns: RecordColumns,
  bytes: AsyncIterable<Buffer> = createReadStream(path),
): AsyncGenerator<CorpusItem> {
  const stem = basename(path);
  try {
    for await (const line of jsonlLines(bytes, maxBytes)) {
      if (line.kind === 'binary') {
        yield err('binary', path, undefined, 'NUL bytes in the first 8 KiB: not a text file');
        return;
      }
      if (line.kind === 'too-long') {
        yield err('too-long', path, line.line, `record is ${line.bytes} bytes, over the ${maxBytes}-byte cap`);
        continue;
      }
      const decoded = decode(line.bytes);
      if (decoded === null) {
        yield err('invalid-utf8', path, line.line, 'not valid UTF-8');
        continue;
      }
      const text = line.line === 1 ? stripBom(decoded) : decoded;
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        yield err('malformed-json', path, line.line, message(e));
        continue;
      }
      yield parseRecord(remapColumns(value, columns), path, line.line, `${stem}:${line.line}`, seen);
    }
  } catch (e) {
    yield e instanceof CorruptStreamError ? err('corrupt', path, undefined, e.message) : err('unreadable', path, undefined, message(e));
  }
}

type RawLine =
  | { kind: 'line'; line: number; bytes: Buffer }
  | { kind: 'too-long'; line: number; bytes: number }
  | { kind: 'binary' };

/**
 * Split a file into lines of raw bytes (without "\n" or a trailing "\r"). A line longer than `maxBytes` is counted
 * but not kept: memory stays O(maxBytes + one stream chunk) whatever the file holds.
 */
async function* jsonlLines(bytes: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<RawLine> {
  let parts: Buffer[] = [];
  let size = 0; // bytes of the current line so far (kept or not)
  let line = 1;
  let first = true;
  const finish = (): RawLine => {
    const out: RawLine =
      size > maxBytes
        ? { kind: 'too-long', line, bytes: size }
        : { kind: 'line', line, bytes: trimCr(Buffer.concat(parts, size)) };
    parts = [];
    size = 0;
    line++;
    return out;
  };
  for await (const chunk of bytes) {
    if (first) {
      first = false;
      if (chunk.subarray(0, SNIFF_BYTES).includes(0)) {
        yield { kind: 'binary' };
        return;
      }
    }
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(10, pos);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(pos, end);
      if (size + piece.length <= maxBytes) parts.push(piece);
      else parts = []; // over the cap: drop what we held, keep counting
      size += piece.length;
      if (nl === -1) break;
      yield finish();
      pos = nl + 1;
    }
  }
  if (size > 0) yield finish();
}

function trimCr(b: Buffer): Buffer {
  return b.length > 0 && b[b.length - 1] === 13 ? b.subarray(0, b.length - 1) : b;
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

/** Validate one parsed JSONL value as a Doc. */
function parseRecord(value: unknown, file: string, line: number, fallbackId: string, seen: Set<string>): CorpusItem {
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
  if (typeof date === 'string' && !isValidDate(date)) {
    return err('wrong-type', file, line, `"date" is ${JSON.stringify(date.slice(0, 40))}, expected YYYY-MM-DD or YYYY`);
  }
  if (rec.text === null) return err('wrong-type', file, line, '"text" is null, expected a string');
  const id = typeof rec.id === 'string' && rec.id !== '' ? rec.id : fallbackId;
  const doc: Doc = { id, text: rec.text as string, source: typeof rec.source === 'string' ? rec.source : file };
  if (typeof date === 'string') doc.date = date;
  return checkDoc(doc, file, line, seen);
}

/** The checks shared by .jsonl records and .txt files: non-empty text, unique id. */
function checkDoc(doc: Doc, file: string, line: number, seen: Set<string>): CorpusItem {
  if (doc.text.trim() === '') return err('empty-text', file, line, `document ${JSON.stringify(doc.id)} has no text`);
  if (seen.has(doc.id)) return err('duplicate-id', file, line, `id ${JSON.stringify(doc.id)} already seen; first kept`);
  seen.add(doc.id);
  return { kind: 'doc', doc, file, line };
}

/** A real calendar day in YYYY-MM-DD ("2023-02-30" is rejected). */
function isValidDate(s: string): boolean {
  if (/^\d{4}$/.test(s)) return true; // only the year is known (ISO 8601 reduced precision)
  if (!DATE.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

function err(code: CorpusErrorCode, file: string, line: number | undefined, reason: string): CorpusError {
  const short = reason.length > 200 ? `${reason.slice(0, 197)}...` : reason;
  return line === undefined ? { kind: 'error', code, file, reason: short } : { kind: 'error', code, file, line, reason: short };
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
