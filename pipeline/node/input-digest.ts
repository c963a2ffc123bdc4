import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { listInputs } from './read-corpus.ts';

/** Bytes read at a time: the fingerprint never holds a whole file. */
const CHUNK = 1 << 20;

/**
 * A SHA-256 over the inputs the reader reads, so a --resume can tell that the corpus it skips items of is the one
 * the run started on. It hashes exactly the reader's list (corpus-files.ts: sorted, links followed with loop
 * detection, regular files of corpus kinds only, each once): every listed file's path and contents, streamed; every
 * skipped path and error by name and reason. Content-based: the same files give the same digest on any machine, so
 * config.json stays identical across runs.
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
        const fd = openSync(item.path, 'r');
        try {
          for (let read; (read = readSync(fd, buffer, 0, CHUNK, null)) > 0; ) hash.update(buffer.subarray(0, read));
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
