import type { Hash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';

/**
 * Bytes read at a time when hashing: a file goes through the hash in pieces, never whole (a model's ONNX file or its
 * external data can be gigabytes; readFileSync refuses files over 2 GiB).
 */
export const HASH_PIECE = 4 << 20;

/** The rest of an open file, from its current offset, into `hash`, one `buffer` at a time. */
export function hashRest(hash: Hash, fd: number, buffer: Buffer = Buffer.alloc(HASH_PIECE)): void {
  for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0; ) hash.update(buffer.subarray(0, n));
}

/** A file's bytes into `hash`, streamed (hashRest). */
export function hashFile(hash: Hash, path: string, buffer?: Buffer): void {
  const fd = openSync(path, 'r');
  try {
    hashRest(hash, fd, buffer);
  } finally {
    closeSync(fd);
  }
}
