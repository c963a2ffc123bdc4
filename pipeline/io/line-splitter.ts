/**
 * Bytes → lines, in bounded memory: the one splitter behind the corpus reader (node/corpus/read-corpus.ts) and the JSONL
 * reader of the project's own files (bounded-read.ts). Fed chunk by chunk; a line longer than `maxBytes` is counted
 * but not kept, so memory stays O(maxBytes + one chunk) whatever the input holds. Runs of blank lines are skipped in
 * bulk (a newline bomb is 1 GiB of them); a run of NULs inside an over-long line ends the input (a 100 GB tail of
 * NULs was scanned for minutes).
 */

export type RawLine =
  /** `bytes` without "\n" or a trailing "\r"; `line` 1-based. */
  | { kind: 'line'; line: number; bytes: Buffer }
  | { kind: 'too-long'; line: number; bytes: number }
  /** NUL bytes only, NUL_RUN_BYTES of them, in a line already over the cap: nothing more is split. */
  | { kind: 'nul-run'; line: number };

/** A run of NULs this long inside an over-long line ends the input. */
export const NUL_RUN_BYTES = 1 << 20;
const ZEROS = Buffer.alloc(4096);
const NEWLINES = Buffer.alloc(4096, 10);

export class LineSplitter {
  private parts: Buffer[] = [];
  /** Bytes of the current line so far (kept or not). */
  private size = 0;
  /** NUL bytes ending the current line, counted by whole chunks. */
  private nulRun = 0;
  private line = 1;
  private stopped = false;

  constructor(private readonly maxBytes: number) {}

  /** The lines `chunk` completes (the chunk is kept by reference until its line ends: do not reuse it). */
  *push(chunk: Buffer): Generator<RawLine> {
    let pos = 0;
    while (!this.stopped && pos < chunk.length) {
      if (this.size === 0 && chunk[pos] === 10) {
        const end = endOfNewlines(chunk, pos);
        this.line += end - pos;
        pos = end;
        continue;
      }
      const nl = chunk.indexOf(10, pos);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(pos, end);
      if (this.size + piece.length <= this.maxBytes) this.parts.push(piece);
      else this.parts = []; // over the cap: drop what we held, keep counting
      this.size += piece.length;
      this.nulRun = allNul(piece) ? this.nulRun + piece.length : 0;
      if (this.size > this.maxBytes && this.nulRun >= NUL_RUN_BYTES) {
        this.stopped = true;
        yield { kind: 'nul-run', line: this.line };
        return;
      }
      if (nl === -1) break;
      yield this.finish();
      pos = nl + 1;
    }
  }

  /** The last line, when the input does not end with "\n". */
  *end(): Generator<RawLine> {
    if (!this.stopped && this.size > 0) yield this.finish();
  }

  private finish(): RawLine {
    const out: RawLine =
      this.size > this.maxBytes
        ? { kind: 'too-long', line: this.line, bytes: this.size }
        : { kind: 'line', line: this.line, bytes: trimCr(Buffer.concat(this.parts, this.size)) };
    this.parts = [];
    this.size = 0;
    this.nulRun = 0;
    this.line++;
    return out;
  }
}

/** The index of the first byte at or after `pos` that is not "\n" (memcmp over 4 KiB runs, then byte by byte). */
function endOfNewlines(chunk: Buffer, pos: number): number {
  while (pos + NEWLINES.length <= chunk.length && chunk.compare(NEWLINES, 0, NEWLINES.length, pos, pos + NEWLINES.length) === 0) pos += NEWLINES.length;
  while (pos < chunk.length && chunk[pos] === 10) pos++;
  return pos;
}

/** Whether `piece` is NUL bytes only (memcmp over 4 KiB blocks: a text piece fails at its first block). */
function allNul(piece: Buffer): boolean {
  for (let at = 0; at < piece.length; at += ZEROS.length) {
    const end = Math.min(piece.length, at + ZEROS.length);
    if (piece.compare(ZEROS, 0, end - at, at, end) !== 0) return false;
  }
  return true;
}

function trimCr(b: Buffer): Buffer {
  return b.length > 0 && b[b.length - 1] === 13 ? b.subarray(0, b.length - 1) : b;
}
