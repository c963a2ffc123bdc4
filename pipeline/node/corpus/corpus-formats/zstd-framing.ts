/**
 * Cuts a zstd byte stream (RFC 8878) at frame and block boundaries, so that each piece handed to the decoder
 * decompresses to at most one block (≤ 128 KiB), and refuses a frame whose declared window is over a cap before any
 * of it is decoded. It reads headers only; decoding is fzstd's (compressed.ts).
 *
 * Pieces, in stream order: a frame header; one block (its 3-byte header and its payload); a frame's 4-byte checksum.
 * Skippable frames are dropped here (the decoder never sees them). A piece is a view of the input or, when it spans
 * input chunks, a copy of at most one block (128 KiB + 3 bytes): memory is O(one block) whatever the stream holds.
 */

/** The largest window zstd's levels 1–19 use (`zstd -19`: 8 MiB); `--ultra` and `--long` go above it. */
export const DEFAULT_MAX_ZSTD_WINDOW_BYTES = 8 << 20;
/** Block_Maximum_Size: a block never decompresses to more (RFC 8878 §3.1.1.2.3). */
const MAX_BLOCK = 128 * 1024;
const MAGIC = 0xfd2fb528;

/** A frame declares a window over the cap: the file is refused (one line), nothing of the frame decoded. */
export class WindowTooLargeError extends Error {
  constructor(
    readonly frame: number,
    readonly windowBytes: number,
    readonly maxWindowBytes: number,
  ) {
    super(
      `zstd frame ${frame} declares a ${formatBytes(windowBytes)} window, over the ${formatBytes(maxWindowBytes)} cap ` +
        `(--max-zstd-window): file not read; recompress without --long/--ultra or raise the cap`,
    );
  }
}

type State =
  | { kind: 'frame' } // at a frame's start (or the stream's end)
  | { kind: 'blocks'; window: number; checksum: boolean }
  | { kind: 'checksum' }
  | { kind: 'skip'; left: number }; // inside a skippable frame

export class ZstdFraming {
  private held: Buffer = Buffer.alloc(0); // input not yet cut into pieces
  private state: State = { kind: 'frame' };
  private frames = 0;

  constructor(private readonly maxWindowBytes: number) {}

  /**
   * The complete pieces `chunk` (after what was held) makes, and the problem that stopped the cutting, if any (to
   * be raised after the pieces before it are decoded). A problem is final: later calls report it again.
   */
  cut(chunk: Buffer): { pieces: Buffer[]; error?: Error } {
    const buf = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
    const pieces: Buffer[] = [];
    let at = 0;
    try {
      for (;;) {
        const size = this.next(buf, at);
        if (size === null) break; // need more input
        if (size.piece) pieces.push(buf.subarray(at, at + size.bytes));
        at += size.bytes;
      }
    } catch (e) {
      this.held = Buffer.alloc(0);
      return { pieces, error: e as Error };
    }
    // Copy what is held, so the caller's chunk (and the rest of `buf`) can be freed.
    this.held = Buffer.from(buf.subarray(at));
    return { pieces };
  }

  /** Why the stream cannot end here ("" when it ends between frames). */
  unfinished(): string {
    if (this.state.kind === 'frame' && this.held.length === 0) return '';
    return `the stream ends inside frame ${Math.max(this.frames, 1)}`;
  }

  /** The next piece at `at`: its length, and whether the decoder gets it; null when `buf` holds too little. */
  private next(buf: Buffer, at: number): { bytes: number; piece: boolean } | null {
    const left = buf.length - at;
    const s = this.state;
    if (s.kind === 'skip') {
      if (left === 0) return null;
      const n = Math.min(left, s.left);
      s.left -= n;
      if (s.left === 0) this.state = { kind: 'frame' };
      return { bytes: n, piece: false };
    }
    if (s.kind === 'checksum') {
      if (left < 4) return null;
      this.state = { kind: 'frame' };
      return { bytes: 4, piece: true };
    }
    if (s.kind === 'blocks') {
      if (left < 3) return null;
      const header = buf[at] | (buf[at + 1] << 8) | (buf[at + 2] << 16);
      const last = header & 1;
      const type = (header >> 1) & 3;
      const size = header >>> 3;
      if (type === 3) throw new Error(`frame ${this.frames}: reserved block type`);
      // Raw and RLE blocks regenerate `size` bytes; a compressed block's `size` is its compressed length.
      if (size > Math.min(MAX_BLOCK, s.window)) throw new Error(`frame ${this.frames}: a block of ${size} bytes, over the block size limit`);
      const bytes = 3 + (type === 1 ? 1 : size);
      if (left < bytes) return null;
      if (last) this.state = s.checksum ? { kind: 'checksum' } : { kind: 'frame' };
      return { bytes, piece: true };
    }
    // A frame's start: a skippable frame (magic 0x184D2A5?, u32 length) or a zstd frame header.
    if (left < 8) return null;
    if ((buf[at] & 0xf0) === 0x50 && buf[at + 1] === 0x2a && buf[at + 2] === 0x4d && buf[at + 3] === 0x18) {
      this.state = { kind: 'skip', left: buf.readUInt32LE(at + 4) };
      return { bytes: 8, piece: false };
    }
    if (buf.readUInt32LE(at) !== MAGIC) throw new Error(`not a zstd frame at frame ${this.frames + 1} (bad magic number)`);
    const descriptor = buf[at + 4];
    const singleSegment = (descriptor >> 5) & 1;
    const checksum = ((descriptor >> 2) & 1) === 1;
    const dictBytes = [0, 1, 2, 4][descriptor & 3];
    const fcsField = descriptor >> 6;
    const fcsBytes = fcsField === 0 ? singleSegment : 1 << fcsField;
    if (descriptor & 8) throw new Error(`frame ${this.frames + 1}: reserved bit set in the frame header`);
    const headerBytes = 5 + (singleSegment ? 0 : 1) + dictBytes + fcsBytes;
    if (left < headerBytes) return null;
    let window: number;
    if (singleSegment) {
      const fcsAt = at + 5 + dictBytes;
      const fcs = fcsBytes === 1 ? buf[fcsAt] : fcsBytes === 2 ? buf.readUInt16LE(fcsAt) + 256 : fcsBytes === 4 ? buf.readUInt32LE(fcsAt) : Number(buf.readBigUInt64LE(fcsAt));
      window = fcs; // a single-segment frame's window is its content size
    } else {
      const wd = buf[at + 5];
      const base = 2 ** (10 + (wd >> 3));
      window = base + (base / 8) * (wd & 7);
    }
    this.frames++;
    if (window > this.maxWindowBytes) throw new WindowTooLargeError(this.frames, window, this.maxWindowBytes);
    this.state = { kind: 'blocks', window: Math.max(window, 1), checksum };
    return { bytes: headerBytes, piece: true };
  }
}

/** "1.875 GiB", "8 MiB", "512 KiB", "100 bytes". */
export function formatBytes(n: number): string {
  for (const [unit, size] of [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]] as const) {
    if (n >= size) return `${+(n / size).toFixed(3)} ${unit}`;
  }
  return `${n} bytes`;
}
