/**
 * `.jsonl.gz` and `.jsonl.zst`: the decompressed bytes of a file as a stream of chunks, for the JSONL reader to split
 * into records exactly as it splits a `.jsonl` (same line numbers, same bad-record handling, same ids).
 *
 *   .gz   node:zlib's gunzip (multi-member files, as `cat a.gz b.gz` makes, are read whole), 64 KiB out at a time.
 *   .zst  fzstd's streaming decompressor (Node 20's zlib has no zstd), fed one block at a time by `ZstdFraming`
 *         (zstd-framing.ts), which refuses a frame whose declared window is over the cap before fzstd allocates it.
 *
 * Memory is flat in the decompressed size: one input chunk (64 KiB) and what one push decompresses to (gzip: 64 KiB;
 * zstd: one or a few blocks of at most 128 KiB each, plus the frame's window, at most `maxWindowBytes`). Why zstd is
 * fed block by block: fzstd decodes every complete block of a push before returning, so a 64 KiB chunk of 4-byte RLE
 * blocks would decompress to 2 GiB at once. Why the window is capped: fzstd allocates the declared window and moves
 * it on every block, so a 4 KB frame declaring 1.875 GiB costs 2 GB and hours (the probe's "window bomb").
 * A truncated or corrupt stream throws `CorruptStreamError` after every complete chunk before it was yielded, so the
 * reader keeps the records it could read and reports the rest of the file; a window over the cap throws
 * `WindowTooLargeError` before any of that frame is decoded.
 */
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { Decompress } from 'fzstd';
import { DEFAULT_MAX_ZSTD_WINDOW_BYTES, WindowTooLargeError, ZstdFraming } from './zstd-framing.ts';

export { DEFAULT_MAX_ZSTD_WINDOW_BYTES, WindowTooLargeError };
export type Compression = 'gzip' | 'zstd';

/** File names the compressed JSONL reader takes (lower-cased suffix → compression). */
export const COMPRESSED_JSONL: Readonly<Record<string, Compression>> = { '.jsonl.gz': 'gzip', '.jsonl.zst': 'zstd' };

export function compressionOf(path: string): Compression | null {
  const lower = path.toLowerCase();
  for (const [suffix, kind] of Object.entries(COMPRESSED_JSONL)) if (lower.endsWith(suffix)) return kind;
  return null;
}

/** The stream could not be decompressed to its end: truncated, or not (or no longer) valid gzip/zstd. */
export class CorruptStreamError extends Error {
  constructor(
    readonly compression: Compression,
    /** Bytes decompressed (and handed on) before the failure. */
    readonly decompressedBytes: number,
    cause: string,
  ) {
    super(`${compression} stream is corrupt or truncated after ${decompressedBytes} decompressed bytes (${cause}); the records before it were read`);
  }
}

export interface DecompressLimits {
  /** The largest window a zstd frame may declare, bytes. @default DEFAULT_MAX_ZSTD_WINDOW_BYTES (8 MiB) */
  maxWindowBytes?: number;
}

/** Decompressed output chunk of gunzip, bytes (zlib's default is 16 KiB: more chunks, more per-chunk work). */
const GUNZIP_CHUNK = 64 * 1024;

/** The decompressed bytes of `path`, chunk by chunk. Throws CorruptStreamError at the point the stream breaks. */
export function decompressedChunks(path: string, compression: Compression, limits: DecompressLimits = {}): AsyncIterable<Buffer> {
  return compression === 'gzip' ? gunzipChunks(path) : zstdChunks(path, limits.maxWindowBytes ?? DEFAULT_MAX_ZSTD_WINDOW_BYTES);
}

async function* gunzipChunks(path: string): AsyncGenerator<Buffer> {
  let out = 0;
  const source = createReadStream(path);
  const gunzip = createGunzip({ chunkSize: GUNZIP_CHUNK });
  // pipe() does not forward errors: an open/read error of the file ends the gunzip stream with that error.
  source.on('error', (e) => gunzip.destroy(e));
  source.pipe(gunzip);
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      out += chunk.length;
      yield chunk;
    }
  } catch (e) {
    // zlib's errors carry Z_* codes (Z_BUF_ERROR: truncated, Z_DATA_ERROR: corrupt); a file error (ENOENT, EACCES…)
    // is not a corrupt stream and reaches the reader as `unreadable`.
    if (((e as NodeJS.ErrnoException).code ?? '').startsWith('Z_')) throw new CorruptStreamError('gzip', out, (e as Error).message);
    throw e;
  } finally {
    source.destroy();
  }
}

async function* zstdChunks(path: string, maxWindowBytes: number): AsyncGenerator<Buffer> {
  let out = 0;
  let pending: Buffer[] = [];
  const zstd = new Decompress((data) => {
    if (data.length > 0) pending.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  });
  const framing = new ZstdFraming(maxWindowBytes);
  const fail = (cause: string) => new CorruptStreamError('zstd', out, cause);
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    const { pieces, error } = framing.cut(chunk);
    for (const piece of pieces) {
      let broken: unknown = null;
      try {
        zstd.push(piece, false); // one block: at most 128 KiB out
      } catch (e) {
        broken = e;
      }
      const ready = pending; // what decoded before a bad block still counts
      pending = [];
      for (const b of ready) {
        out += b.length;
        yield b;
      }
      if (broken) throw fail((broken as Error).message);
    }
    if (error) throw error instanceof WindowTooLargeError ? error : fail(error.message);
  }
  const unfinished = framing.unfinished();
  if (unfinished) throw fail(unfinished);
}
