import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { hashRest } from '../system/file-hash.ts';
import { listInputs } from './read-corpus.ts';

/** Bytes read at a time: the fingerprint never holds a whole file. */
const CHUNK = 1 << 20;
/** Files up to this size are hashed whole; a bigger one by its size and SAMPLES chunks spread over it (first and last included). */
const WHOLE_BYTES = 64 << 20;
const SAMPLES = 64;

/**
 * A SHA-256 over the inputs the reader reads, so a --resume can tell that the corpus it skips items of is the one
 * the run started on. It hashes exactly the reader's list (corpus-files.ts: sorted, links followed with loop
 * detection, regular files of corpus kinds only, each once): every listed file's path and contents, streamed; every
 * skipped path and error by name and reason. Content-based: the same files give the same digest on any machine, so
 * config.json stays identical across runs. Bounded: a file over 64 MiB is hashed by its size and 64 chunks of 1 MiB
 * spread over it (a 100 GB sparse file named as an input took 630 s to hash whole), so an edit that keeps the size
 * and misses every sampled chunk of such a file goes unseen.
 */
export function digestInputs(paths: readonly string[]): string {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(CHUNK);
  for (const item of listInputs(paths)) {
    hash.update(`${item.path}\0`);
    if (item.kind === 'skipped') hash.update(`skipped ${item.reason}\0`);
    else if (item.kind === 'error') hash.update(`error ${item.code}\0`);
    else {
      try {
        const fd = openSync(item.path, constants.O_RDONLY | constants.O_NONBLOCK); // a FIFO swapped in cannot block
        try {
          hashContent(hash, fd, fstatSync(fd).size, buffer);
        } finally {
          closeSync(fd);
        }
      } catch {
        hash.update('unreadable\0');
      }
    }
  }
  return hash.digest('hex');
}

/** A file's bytes into `hash`: whole up to WHOLE_BYTES, else its size and SAMPLES chunks at evenly spaced offsets. */
function hashContent(hash: ReturnType<typeof createHash>, fd: number, size: number, buffer: Buffer): void {
  if (size <= WHOLE_BYTES) return hashRest(hash, fd, buffer);
  hash.update(`sampled ${size}\0`);
  for (let i = 0; i < SAMPLES; i++) {
    const at = Math.floor(((size - CHUNK) * i) / (SAMPLES - 1));
    hash.update(buffer.subarray(0, readSync(fd, buffer, 0, CHUNK, at)));
  }
}
