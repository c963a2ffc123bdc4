import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import type { InputLimits } from '../../../core/config.ts';
import { type CorpusItem, readCorpus } from '../read-corpus.ts';
import { rawBlock, rleBlock, writeGzipRun, zstdFrameHeader, zstdRun, zstdWindowBomb } from './bombs.ts';
import { decompressedChunks } from './compressed.ts';
import { ZstdFraming } from './zstd-framing.ts';

/**
 * The reader's byte budgets (issue 32): hostile compressed and Parquet inputs, made here at a small scale with the
 * caps lowered through `inputLimits` (the measured full-size runs: pipeline/node/README.md, Reliability).
 */
const tmp = mkdtempSync(join(tmpdir(), 'budgets-'));
const sample = resolve(import.meta.dirname, '../../../../corpus/sample.jsonl');
const MiB = 1 << 20;
const record = (id: string) => JSON.stringify({ id, text: `Record ${id}: 3 + 4 = 7.` });

const items = async (paths: string[], limits?: InputLimits) => {
  const out: CorpusItem[] = [];
  for await (const item of readCorpus(paths, { limits })) out.push(item);
  return out;
};
/** "doc <id>@<line>" and "<code>@<line>": what a run makes of the items. */
const summary = (list: CorpusItem[]) => list.map((i) => (i.kind === 'doc' ? `doc ${i.doc.id}@${i.line}` : `${i.code}@${i.line ?? '-'}`));
const file = (name: string, bytes: Buffer) => {
  const path = join(tmp, name);
  writeFileSync(path, bytes);
  return path;
};

describe('.zst: decoded a block at a time, the window capped', () => {
  it('the window bomb (a 4 KB frame declaring 1.875 GiB) is refused in one line before any of it is decoded; the next input is read', async () => {
    const bomb = file('window-bomb.jsonl.zst', zstdWindowBomb());
    expect(bomb.length).toBeGreaterThan(0);
    const got = await items([bomb, sample]);
    expect(got[0]).toMatchObject({ kind: 'error', code: 'over-budget', file: bomb });
    expect(got[0].kind === 'error' && got[0].reason).toMatch(/^zstd frame 1 declares a 1\.875 GiB window, over the 8 MiB cap \(--max-zstd-window\)/);
    expect(got.slice(1).filter((i) => i.kind === 'doc')).toHaveLength(30);
  });

  it('the cap is the config value: a 2 MiB window passes the default and is refused under a 1 MiB cap', async () => {
    const path = file('two-mib-window.jsonl.zst', Buffer.concat([zstdFrameHeader(11), rawBlock(Buffer.from(`${record('w')}\n`), true)]));
    expect(summary(await items([path]))).toEqual(['doc w@1']);
    expect(summary(await items([path], { maxZstdWindowBytes: MiB }))).toEqual(['over-budget@-']);
  });

  it('the decoder gets one block per push, however many RLE blocks one read of the file holds', async () => {
    const bomb = zstdRun('', 10, 64 * MiB, ''); // 512 RLE blocks of 4 bytes: 2 KiB on disk, 64 MiB decoded
    const { pieces, error } = new ZstdFraming(8 * MiB).cut(bomb);
    expect(error).toBeUndefined();
    // The frame header, 512 blocks of 128 KiB each, the last (empty raw) block: each pushed alone, decoded alone.
    expect(pieces.map((p) => p.length)).toEqual([6, ...Array(512).fill(4), 3]);
    let total = 0;
    let largest = 0;
    for await (const chunk of decompressedChunks(file('rle-blocks.jsonl.zst', bomb), 'zstd')) {
      total += chunk.length;
      largest = Math.max(largest, chunk.length);
    }
    expect([total, largest]).toEqual([64 * MiB, 128 * 1024]);
  });

  it('the sandwich (record / a 16 MiB line of "a" / record): both records read, the long line one too-long error with its size', async () => {
    const path = file('sandwich.jsonl.zst', zstdRun(`${record('first')}\n`, 0x61, 16 * MiB, `\n${record('last')}\n`));
    const got = await items([path], { maxRecordBytes: MiB });
    expect(summary(got)).toEqual(['doc first@1', 'too-long@2', 'doc last@3']);
    expect(got[1].kind === 'error' && got[1].reason).toBe(`record is ${16 * MiB} bytes, over the ${MiB}-byte cap`);
  });

  it('the newline bomb: 64 MiB of blank lines are no record, and the line after them keeps its number', async () => {
    const path = file('newlines.jsonl.zst', zstdRun('', 10, 64 * MiB, record('after')));
    expect(summary(await items([path]))).toEqual([`doc after@${64 * MiB + 1}`]);
  });

  it('skippable frames, checksums and single-segment frames read as zstd writes them', async () => {
    const skippable = Buffer.concat([Buffer.from([0x50, 0x2a, 0x4d, 0x18, 5, 0, 0, 0]), Buffer.from('junk!')]);
    const text = Buffer.from(`${record('s')}\n`);
    // Single segment (0x20), 1-byte content size, checksum flag (0x04): the window is the content size.
    const single = Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x24, text.length]), rawBlock(text, true), Buffer.from([1, 2, 3, 4])]);
    const path = file('frames.jsonl.zst', Buffer.concat([skippable, single, zstdFrameHeader(10), rleBlock(10, 3), rawBlock(Buffer.from(record('t')), true)]));
    expect(summary(await items([path]))).toEqual(['doc s@1', 'doc t@5']);
  });

  it('a stream cut inside a frame keeps what decoded and reports the break', async () => {
    const whole = zstdRun(`${record('kept')}\n`, 0x61, MiB, `\n${record('lost')}\n`);
    const got = await items([file('cut.jsonl.zst', whole.subarray(0, whole.length - 10))]);
    expect(summary(got)).toEqual(['doc kept@1', 'corrupt@-']);
    expect(got[1].kind === 'error' && got[1].reason).toMatch(/the stream ends inside frame 1/);
  });
});

describe('.gz: the same line cap on the decompressed stream', () => {
  it('the sandwich and the newline bomb, gzip-compressed', async () => {
    const sandwich = join(tmp, 'sandwich.jsonl.gz');
    await writeGzipRun(sandwich, `${record('first')}\n`, 0x61, 16 * MiB, `\n${record('last')}\n`);
    expect(summary(await items([sandwich], { maxRecordBytes: MiB }))).toEqual(['doc first@1', 'too-long@2', 'doc last@3']);
    const newlines = join(tmp, 'newlines.jsonl.gz');
    await writeGzipRun(newlines, `${record('before')}\n`, 10, 16 * MiB, record('after'));
    expect(summary(await items([newlines]))).toEqual(['doc before@1', `doc after@${16 * MiB + 2}`]);
  });
});

describe('Parquet: cells and reads within the budget', () => {
  const texts = (n: number, bytes: number) => Array.from({ length: n }, (_, i) => `${i} `.padEnd(bytes, 'x'));

  it('a row group over the read budget is read in slices: every row, no error', async () => {
    const path = join(tmp, 'big-group.parquet');
    // 40 rows of 10 KB in one row group of 400 KB, pages of ~16 KB; a budget of 100 KB cannot hold it whole.
    parquetWriteFile({ filename: path, columnData: [{ name: 'text', data: texts(40, 10_000), type: 'STRING' }], pageSize: 16_000 });
    const got = await items([path], { maxRowGroupBytes: 100_000 });
    expect(summary(got)).toEqual(Array.from({ length: 40 }, (_, i) => `doc big-group.parquet:${i + 1}@${i + 1}`));
  });

  it('a page over the read budget: one over-budget line for the rest of its row group, the other row groups read', async () => {
    const path = join(tmp, 'big-page.parquet');
    // Row groups of 2 rows; the second holds one 300 KB cell (its own page) against a budget of 100 KB.
    const data = ['one', 'two', 'three', 'y'.repeat(300_000), 'five', 'six'];
    parquetWriteFile({ filename: path, columnData: [{ name: 'text', data, type: 'STRING' }], rowGroupSize: 2 });
    const got = await items([path], { maxRowGroupBytes: 100_000 });
    expect(summary(got)).toEqual(['doc big-page.parquet:1@1', 'doc big-page.parquet:2@2', 'over-budget@3', 'doc big-page.parquet:5@5', 'doc big-page.parquet:6@6']);
    expect(got[2].kind === 'error' && got[2].reason).toMatch(/^row group 2 of 3 \(rows 3–4\): a page declares 3000\d\d bytes decompressed, over the 100000-byte budget \(--max-row-group-bytes\), skipped$/);
  });

  it.each(['GZIP', 'ZSTD', 'UNCOMPRESSED'] as const)('a %s page over the budget: one over-budget record; a compressed one refused from its header, before it is decompressed (issue 46)', async (codec) => {
    const path = join(tmp, `bomb-${codec}.parquet`);
    // One page of 16 cells of 64 KB (1 MB decompressed; 8 KB of GZIP) against a budget of 100 KB.
    const compress = { GZIP: (b: Uint8Array) => new Uint8Array(gzipSync(b)), ZSTD: (b: Uint8Array) => new Uint8Array(execFileSync('zstd', ['-c', '-q'], { input: b })), UNCOMPRESSED: undefined }[codec];
    parquetWriteFile({ filename: path, columnData: [{ name: 'text', data: texts(16, 65_536), type: 'STRING' }], pageSize: 1 << 24, codec, compressors: compress ? { [codec]: compress } : {} });
    const got = await items([path], { maxRowGroupBytes: 100_000 });
    expect(summary(got)).toEqual(['over-budget@1']);
    // A compressed page is refused by its declared size; an uncompressed one (read as it is on disk) by the strings made.
    const reason = codec === 'UNCOMPRESSED' ? /a page decodes to over the 100000-byte budget/ : /a page declares 10\d{5} bytes decompressed, over the 100000-byte budget/;
    expect(got[0].kind === 'error' && got[0].reason).toMatch(reason);
  });

  it('a cell over the record cap is a too-long bad record (never a string); the rows around it are read', async () => {
    const path = join(tmp, 'huge-cell.parquet');
    parquetWriteFile({ filename: path, columnData: [{ name: 'text', data: ['before', 'z'.repeat(50_000), 'after'], type: 'STRING' }] });
    const got = await items([path], { maxRecordBytes: 10_000 });
    expect(summary(got)).toEqual(['doc huge-cell.parquet:1@1', 'too-long@2', 'doc huge-cell.parquet:3@3']);
    expect(got[1].kind === 'error' && got[1].reason).toBe('record is 50000 bytes, over the 10000-byte cap');
  });

  it('invalid UTF-8 in a text cell is reported as invalid-utf8, as in JSONL (not turned into U+FFFD)', async () => {
    const path = join(tmp, 'bad-utf8.parquet');
    const cells = [Buffer.from('fine'), Buffer.from([0x41, 0xff, 0xfe, 0x42]), Buffer.from('also fine')];
    parquetWriteFile({ filename: path, columnData: [{ name: 'text', data: cells, type: 'BYTE_ARRAY' }] });
    const got = await items([path]);
    expect(summary(got)).toEqual(['doc bad-utf8.parquet:1@1', 'invalid-utf8@2', 'doc bad-utf8.parquet:3@3']);
    expect(got[1].kind === 'error' && got[1].reason).toBe('column "text" is not valid UTF-8 (4 bytes)');
  });

  it('two train-00000.parquet shards whose integer ids are the row index: 20 documents, ids made distinct, no bad record', async () => {
    for (const shard of ['a', 'b']) {
      mkdirSync(join(tmp, 'shards', shard), { recursive: true });
      parquetWriteFile({
        filename: join(tmp, 'shards', shard, 'train-00000.parquet'),
        columnData: [
          { name: 'id', data: Array.from({ length: 10 }, (_, i) => BigInt(i)), type: 'INT64' },
          { name: 'text', data: Array.from({ length: 10 }, (_, i) => `Shard ${shard}, row ${i}.`), type: 'STRING' },
        ],
      });
    }
    const got = await items([join(tmp, 'shards')]);
    expect(got.filter((i) => i.kind === 'error')).toEqual([]);
    const ids = got.flatMap((i) => (i.kind === 'doc' ? [i.doc.id] : []));
    expect(ids).toEqual([...Array.from({ length: 10 }, (_, i) => `${i}`), ...Array.from({ length: 10 }, (_, i) => `b/train-00000.parquet:${i}`)]);
  });
});
