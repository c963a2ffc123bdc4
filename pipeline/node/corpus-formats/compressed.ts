/**
 * `.jsonl.gz` and `.jsonl.zst`: the decompressed bytes of a file as a stream of chunks, for the JSONL reader to split
 * into records exactly as it splits a `.jsonl` (same line numbers, same bad-record handling, same ids).
 *
 *   .gz   node:zlib's gunzip (multi-member files, as `cat a.gz b.gz` makes, are read whole).
 *   .zst  fzstd's streaming decompressor (Node 20's zlib has no zstd); multi-frame files are read whole.
 *
 * Memory: one input chunk (64 KiB) and what it decompresses to (a zstd block is at most 128 KiB), never the file.
 * A truncated or corrupt stream throws `CorruptStreamError` after every complete chunk before it was yielded, so
 * the reader keeps the records it could read and reports the rest of the file.
 */
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { Decompress } from 'fzstd';

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

/** The decompressed bytes of `path`, chunk by chunk. Throws CorruptStreamError at the point the stream breaks. */
export function decompressedChunks(path: string, compression: Compression): AsyncIterable<Buffer> {
  return compression === 'gzip' ? gunzipChunks(path) : zstdChunks(path);
}

async function* gunzipChunks(path: string): AsyncGenerator<Buffer> {
  let out = 0;
  const source = createReadStream(path);
  const gunzip = createGunzip();
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

async function* zstdChunks(path: string): AsyncGenerator<Buffer> {
  let out = 0;
  let pending: Buffer[] = [];
  let ended = false;
  const zstd = new Decompress((data, final) => {
    pending.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    if (final) ended = true;
  });
  const push = (chunk: Uint8Array, final: boolean) => {
    try {
      zstd.push(chunk, final);
    } catch (e) {
      throw new CorruptStreamError('zstd', out + pending.reduce((n, b) => n + b.length, 0), (e as Error).message);
    }
  };
  const drain = function* () {
    const ready = pending;
    pending = [];
    for (const b of ready) {
      out += b.length;
      yield b;
    }
  };
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    try {
      push(chunk, false);
    } catch (e) {
      yield* drain(); // what decoded before the bad block still counts
      throw e;
    }
    yield* drain();
  }
  try {
    push(new Uint8Array(0), true);
  } catch (e) {
    yield* drain();
    throw e;
  }
  yield* drain();
  if (!ended && out > 0) throw new CorruptStreamError('zstd', out, 'the last frame never ended');
}
