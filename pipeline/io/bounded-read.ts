/**
 * The one reader for files a command opens (issue 46): the file's type is checked on the open descriptor first, then
 * it is read whole under a per-kind size cap (`readBoundedFile`: state JSON, locks, toolkens, caches) or streamed as
 * lines under a per-line cap (`readLinesSync`: JSONL inputs), and every refusal is one line naming the file.
 *
 *   a FIFO, socket or device   opened non-blocking (opening a FIFO does not wait for a writer), refused on fstat
 *   a folder                   refused ("is a directory")
 *   over the cap               a whole-file read is refused before a byte is read; a line over its cap is counted,
 *                              never held (LineSplitter), and a run of NUL bytes ends the file
 *
 * pipeline/architecture.test.ts fails when product code under pipeline/ calls readFileSync, createReadStream or
 * readline outside this folder's readers, but for the exceptions it names.
 */
import { type Stats, closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { LineSplitter, type RawLine } from './line-splitter.ts';

/** "a FIFO", "a socket", "a character device"… for a path that is not a regular file or directory; null otherwise. */
export function specialKind(st: Stats): string | null {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return null;
}

/** A descriptor of `path`, opened non-blocking and checked to be a regular file, with its size; one line otherwise. */
function openRegular(path: string, what: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `${what} is missing` : `${what} cannot be read (${code ?? (e as Error).message})`);
  }
  const st = fstatSync(fd);
  const kind = st.isDirectory() ? 'a directory' : (specialKind(st) ?? (st.isFile() ? null : 'not a regular file'));
  if (kind) {
    closeSync(fd);
    throw new Error(`${what} is ${kind}, not a regular file: not read`);
  }
  return { fd, size: st.size };
}

/**
 * A whole regular file of at most `maxBytes`, or a one-line error (`what` names it: "--set x.jsonl", "checkpoint.json
 * of out/run"). Read no further than `maxBytes` + 1, so a file growing while read is caught too.
 */
export function readBoundedFile(path: string, what: string, maxBytes: number): Buffer {
  const { fd, size } = openRegular(path, what);
  try {
    if (size > maxBytes) throw new Error(`${what} is ${size} bytes, over the ${maxBytes}-byte cap: not read`);
    const buffer = Buffer.alloc(Math.min(size, maxBytes) + 1);
    let length = 0;
    for (let n; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, null)) > 0; ) length += n;
    if (length > maxBytes) throw new Error(`${what} grew past the ${maxBytes}-byte cap while read: not read`);
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/** Caps of whole-file reads by kind: bytes. */
export const READ_CAPS = {
  /** A run's or trainer's own JSON state (config.json, checkpoint.json, stats.json, train-record.json): written by us, small. */
  state: 64 << 20,
  /** A model's JSON (config.json, tokenizer.json: a 150k-token vocabulary with merges is ~10 MB). */
  modelJson: 256 << 20,
  /** One ONNX protobuf (protobuf's own limit; larger models keep their weights as external data). */
  onnx: 2 ** 31,
  /** A training checkpoint (weights and Adam moments: 1.2 GB at 100M parameters; Node's Buffer limit). */
  trainingCheckpoint: 2 ** 32 - 2,
  /** A small text file naming something (a Hugging Face cache's refs/main). */
  ref: 4 << 10,
} as const;

/** A JSON file read under `maxBytes` and parsed; one line naming it (`what`) when it is not a regular file or not JSON. */
export function readBoundedJson(path: string, what: string, maxBytes: number): unknown {
  const text = readBoundedFile(path, what, maxBytes).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${what} is not valid JSON (${(error as Error).message})`);
  }
}

/** Bytes read at a time by readLinesSync. */
const BLOCK_BYTES = 1 << 20;

/**
 * The lines of a regular file as raw bytes (LineSplitter: blank lines skipped, a line over `maxLineBytes` a
 * `too-long` item, a NUL run the last item), read 1 MiB at a time: memory O(maxLineBytes + 1 MiB) whatever the file.
 */
export function* readLinesSync(path: string, what: string, maxLineBytes: number): Generator<RawLine> {
  const { fd } = openRegular(path, what);
  const split = new LineSplitter(maxLineBytes);
  try {
    for (;;) {
      // A fresh block per read: the splitter keeps pieces of a line that spans blocks.
      const block = Buffer.allocUnsafe(BLOCK_BYTES);
      const n = readSync(fd, block, 0, BLOCK_BYTES, null);
      if (n === 0) break;
      for (const line of split.push(block.subarray(0, n))) {
        yield line;
        if (line.kind === 'nul-run') return;
      }
    }
    yield* split.end();
  } finally {
    closeSync(fd);
  }
}

/** The one-line reason for a line the reader could not give (too long, or a NUL run), for a bad-line report. */
export function unreadLineReason(line: Exclude<RawLine, { kind: 'line' }>, maxLineBytes: number): string {
  return line.kind === 'too-long'
    ? `line is ${line.bytes} bytes, over the ${maxLineBytes}-byte cap`
    : `a run of NUL bytes from this line on: the rest of the file is not text, not read`;
}
