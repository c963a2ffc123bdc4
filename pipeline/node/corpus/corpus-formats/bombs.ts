/**
 * Hostile compressed corpus files made on the fly (issue 32), for the tests and `npm run measure:bombs`: nothing of
 * them is committed. zstd frames are written by hand (RFC 8878: a frame header, then blocks), so a 1 GiB run of one
 * byte is 8,192 RLE blocks of 4 bytes each (32 KiB on disk); gzip is streamed through node:zlib.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createGzip, gzipSync } from 'node:zlib';
import { parquetWriteFile } from 'hyparquet-writer';

const KIB128 = 128 * 1024;

/**
 * A frame header without checksum, dictionary or content size; the window is 2^(10 + exponent) plus mantissa/8 of
 * that (the window descriptor byte: exponent << 3 | mantissa).
 */
export function zstdFrameHeader(exponent: number, mantissa = 0): Buffer {
  return Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (exponent << 3) | mantissa]);
}

/** An RLE block: `size` (≤ 128 KiB) copies of `byte`. */
export function rleBlock(byte: number, size: number, last = false): Buffer {
  const header = (last ? 1 : 0) | (1 << 1) | (size << 3);
  return Buffer.from([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff, byte]);
}

/** A raw block holding `bytes` (≤ 128 KiB) as they are. */
export function rawBlock(bytes: Buffer, last = false): Buffer {
  const header = (last ? 1 : 0) | (bytes.length << 3);
  return Buffer.concat([Buffer.from([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff]), bytes]);
}

/** The probe's window bomb: a 4 KB frame declaring a 1.875 GiB window, 1,000 RLE blocks of 128 KiB "a" (one 128 MB line). */
export function zstdWindowBomb(): Buffer {
  const blocks = Array.from({ length: 1000 }, (_, i) => rleBlock(0x61, KIB128, i === 999));
  return Buffer.concat([zstdFrameHeader(20, 7), ...blocks]);
}

/**
 * One zstd frame (1 MiB window): `before`, then `runBytes` copies of `byte` (a multiple of 128 KiB), then `after`.
 * A newline bomb is `zstdRun('', 10, 1 GiB, '')`; the sandwich is `zstdRun(record + '\n', 0x61, 1 GiB, '\n' + record)`.
 */
export function zstdRun(before: string, byte: number, runBytes: number, after: string): Buffer {
  const blocks: Buffer[] = [zstdFrameHeader(10)];
  if (before) blocks.push(rawBlock(Buffer.from(before)));
  for (let n = 0; n < runBytes; n += KIB128) blocks.push(rleBlock(byte, Math.min(KIB128, runBytes - n)));
  blocks.push(rawBlock(Buffer.from(after), true));
  return Buffer.concat(blocks);
}

/** The same as `zstdRun`, gzip-compressed, streamed to `path` (1 GiB of one byte is about 1 MB of gzip). */
export async function writeGzipRun(path: string, before: string, byte: number, runBytes: number, after: string): Promise<void> {
  const gzip = createGzip({ level: 1 });
  const done = once(gzip.pipe(createWriteStream(path)), 'finish');
  const piece = Buffer.alloc(1 << 20, byte);
  gzip.write(before);
  for (let n = 0; n < runBytes; n += piece.length) {
    if (!gzip.write(piece.subarray(0, Math.min(piece.length, runBytes - n)))) await once(gzip, 'drain');
  }
  gzip.end(after);
  await done;
}

/**
 * The Parquet page bomb (issue 46): one row group whose `columns` (text first, then e.g. id, source, date) each hold
 * `cells` distinct cells of 1 MiB in ONE GZIP page (gzip -1 shrinks each page ~250×), then a last row `last` in a
 * second row group (its other columns null). 256 cells × 4 columns is a 4.7 MB file that decodes to 1 GiB.
 */
export function writeParquetPageBomb(path: string, cells: number, last: string, columns: readonly string[] = ['text']): void {
  const MiB = 1 << 20;
  const bomb = Array.from({ length: cells }, (_, i) => `${i} `.padEnd(MiB, 'x'));
  parquetWriteFile({
    filename: path,
    // The last row: `last` as its text, the other columns empty (null).
    columnData: columns.map((name, i) => ({ name, data: [...bomb, i === 0 ? last : null], type: 'STRING' as const })),
    rowGroupSize: cells, pageSize: 1 << 30, codec: 'GZIP',
    compressors: { GZIP: (b: Uint8Array) => new Uint8Array(gzipSync(b, { level: 1 })) },
  });
}
