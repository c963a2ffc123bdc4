import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { isCorpusFormat } from './corpus-formats/index.ts';

/**
 * An upper bound on the documents in the inputs, for the progress bar's ETA: line breaks of .jsonl files (counted
 * in 1 MiB chunks, never holding a file in memory), one per .txt file; unknown (Infinity) for directories and for
 * compressed or Parquet files, and for a .jsonl over 256 MiB.
 */
const MAX_COUNTED_BYTES = 256 << 20;

export function countRecords(inputs: readonly string[]): number {
  let n = 0;
  const chunk = Buffer.alloc(1 << 20);
  for (const input of inputs) {
    try {
      const st = statSync(input);
      if (st.isDirectory()) return Infinity;
      if (!st.isFile()) continue; // a FIFO or device: the reader reports it, and reading it here could block
      if (input.endsWith('.txt')) {
        n++;
        continue;
      }
      // Compressed JSONL and Parquet: no cheap count from the bytes (unknown, as for a directory).
      if (isCorpusFormat(input)) return Infinity;
      // Over this size the count would cost a full read before the run starts (a 100 GB sparse file took 630 s).
      if (st.size > MAX_COUNTED_BYTES) return Infinity;
      const fd = openSync(input, 'r');
      try {
        let last = 0x0a;
        for (let read; (read = readSync(fd, chunk, 0, chunk.length, null)) > 0; ) {
          for (let i = 0; i < read; i++) if (chunk[i] === 0x0a) n++;
          last = chunk[read - 1];
        }
        if (last !== 0x0a) n++; // a last line without a break
      } finally {
        closeSync(fd);
      }
    } catch {
      // A missing or unreadable input is reported by the reader as an error record.
    }
  }
  return n;
}
