import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { asyncBufferFromFile, parquetMetadataAsync } from 'hyparquet';
import { parquetWriteFile } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { type CorpusItem, readCorpus } from '../read-corpus.ts';
import { decompressedChunks } from './compressed.ts';
import { readJsonlRecords, writeCorpusParquet } from './fixtures.ts';

/**
 * The other corpus formats read as the bundled sample's `.jsonl` reads: the same documents (ids, text, source,
 * date) in the same order, the same bad-record reports, and a broken file reported with what could be read kept.
 */
const root = resolve(import.meta.dirname, '../../../..');
const sample = join(root, 'corpus/sample.jsonl');
const zst = join(import.meta.dirname, 'testdata/sample.jsonl.zst');
const tmp = mkdtempSync(join(tmpdir(), 'corpus-formats-'));
const records = readJsonlRecords(sample);

const items = async (paths: string[], columns?: { text?: string; id?: string }) => {
  const out: CorpusItem[] = [];
  for await (const item of readCorpus(paths, { columns })) out.push(item);
  return out;
};
/** Items without their file (it names the format): what a run makes of them. */
const content = (list: CorpusItem[]) => list.map((i) => (i.kind === 'doc' ? { doc: i.doc, line: i.line } : { code: i.code, line: i.line }));
const docsOf = (list: CorpusItem[]) => list.flatMap((i) => (i.kind === 'doc' ? [i.doc] : []));

describe('Parquet', () => {
  it('reads the sample as the .jsonl reads it, over several row groups', async () => {
    const path = join(tmp, 'sample.parquet');
    writeCorpusParquet(path, records, 7); // 30 rows: groups of 7, 7, 7, 7, 2
    expect((await parquetMetadataAsync(await asyncBufferFromFile(path))).row_groups).toHaveLength(5);
    const jsonl = await items([sample]);
    expect(jsonl).toHaveLength(30);
    expect(content(await items([path]))).toEqual(content(jsonl));
  });

  it('reads a directory of shards in name order, as one stream', async () => {
    const dir = join(tmp, 'shards');
    mkdirSync(dir);
    writeCorpusParquet(join(dir, 'train-00001-of-00002.parquet'), records.slice(15));
    writeCorpusParquet(join(dir, 'train-00000-of-00002.parquet'), records.slice(0, 15));
    writeFileSync(join(dir, 'notes.md'), 'not a corpus file');
    expect(docsOf(await items([dir]))).toEqual(docsOf(await items([sample])));
  });

  it('reports a row group that cannot be decoded and reads the others', async () => {
    const path = join(tmp, 'corrupt.parquet');
    writeCorpusParquet(path, records, 10);
    const metadata = await parquetMetadataAsync(await asyncBufferFromFile(path));
    const text = metadata.row_groups[1].columns.find((c) => c.meta_data!.path_in_schema[0] === 'text')!.meta_data!;
    const bytes = readFileSync(path);
    const middle = Number(text.data_page_offset) + Math.floor(Number(text.total_compressed_size) / 2);
    bytes.fill(0xff, middle, middle + 64); // inside the second row group's text pages
    writeFileSync(path, bytes);

    const got = await items([path]);
    const errors = got.filter((i) => i.kind === 'error');
    expect(errors).toEqual([expect.objectContaining({ code: 'corrupt', file: path, line: 11 })]);
    expect(errors[0].kind === 'error' && errors[0].reason).toMatch(/^row group 2 of 3 \(rows 11–20\) cannot be decoded/);
    expect(docsOf(got).map((d) => d.id)).toEqual([...records.slice(0, 10), ...records.slice(20)].map((r) => r.id));
  });

  it('chooses the text and id columns; an integer id is written in decimal; bad rows are reported by row', async () => {
    const path = join(tmp, 'columns.parquet');
    parquetWriteFile({
      filename: path,
      columnData: [
        { name: 'doc_id', data: [7n, 8n, 9n, 10n], type: 'INT64' },
        { name: 'content', data: ['First document.', null, '   ', 'Fourth, dated.'], type: 'STRING' },
        { name: 'date', data: [null, null, null, '2013-05-18T07:24:47Z'], type: 'STRING' },
      ],
    });
    const got = await items([path], { text: 'content', id: 'doc_id' });
    expect(content(got)).toEqual([
      { doc: { id: '7', text: 'First document.', source: path }, line: 1 },
      { code: 'wrong-type', line: 2 }, // null text
      { code: 'empty-text', line: 3 },
      { doc: { id: '10', text: 'Fourth, dated.', source: path, date: '2013-05-18' }, line: 4 },
    ]);
    // Without --text-column the file has no `text`: one error naming the flag, no rows.
    expect(content(await items([path]))).toEqual([{ code: 'missing-field', line: undefined }]);
    expect((await items([path]))[0]).toMatchObject({ reason: expect.stringContaining('--text-column') });
  });

  it('reads a timestamp date as its UTC day, and ignores a source column that is not a string', async () => {
    const path = join(tmp, 'typed.parquet');
    parquetWriteFile({
      filename: path,
      columnData: [
        { name: 'text', data: ['A dated document.'], type: 'STRING' },
        { name: 'date', data: [new Date('1999-12-31T23:30:00Z')], type: 'TIMESTAMP' },
        { name: 'source', data: [42], type: 'INT32' },
      ],
    });
    expect(docsOf(await items([path]))).toEqual([{ id: 'typed.parquet:1', text: 'A dated document.', source: path, date: '1999-12-31' }]);
  });

  it('a file that is not Parquet is one corrupt error, and the next input is read', async () => {
    const path = join(tmp, 'fake.parquet');
    writeFileSync(path, 'PAR1 this is not a parquet file');
    const got = await items([path, sample]);
    expect(got[0]).toMatchObject({ kind: 'error', code: 'corrupt', file: path });
    expect(docsOf(got)).toHaveLength(30);
  });
});

describe('compressed JSONL', () => {
  it('the committed .zst fixture is the sample, byte for byte', async () => {
    const parts: Buffer[] = [];
    for await (const chunk of decompressedChunks(zst, 'zstd')) parts.push(chunk);
    expect(Buffer.concat(parts).equals(readFileSync(sample))).toBe(true);
  });

  it('.jsonl.zst and .jsonl.gz read as the .jsonl', async () => {
    const gz = join(tmp, 'sample.jsonl.gz');
    writeFileSync(gz, gzipSync(readFileSync(sample)));
    const jsonl = content(await items([sample]));
    expect(content(await items([zst]))).toEqual(jsonl);
    expect(content(await items([gz]))).toEqual(jsonl);
  });

  it('a bad line inside a compressed file is reported by line, as in a .jsonl', async () => {
    const lines = readFileSync(sample, 'utf8').split('\n');
    lines.splice(2, 0, '{"id": "broken", "text": ');
    const gz = join(tmp, 'bad-line.jsonl.gz');
    writeFileSync(gz, gzipSync(lines.join('\n')));
    const got = await items([gz]);
    expect(got.filter((i) => i.kind === 'error')).toEqual([expect.objectContaining({ code: 'malformed-json', file: gz, line: 3 })]);
    expect(docsOf(got)).toHaveLength(30);
  });

  it('a truncated .zst keeps the records of its complete frames and reports the break', async () => {
    const cut = join(tmp, 'cut.jsonl.zst');
    const bytes = readFileSync(zst);
    writeFileSync(cut, bytes.subarray(0, bytes.length - 2000)); // inside the third of three 10-record frames
    const got = await items([cut, sample]);
    const firstFile = got.filter((i) => i.file === cut);
    expect(docsOf(firstFile).map((d) => d.id)).toEqual(records.slice(0, 20).map((r) => r.id));
    expect(firstFile.at(-1)).toMatchObject({ kind: 'error', code: 'corrupt', reason: expect.stringMatching(/^zstd stream is corrupt or truncated/) });
    // The run goes on: the next input is read whole; the ids the first file already used are made distinct.
    const second = docsOf(got.filter((i) => i.file === sample));
    // (`<the file's path under the inputs' common root>:<id>`; the root here is where the temp folder and the repo meet)
    const distinct = (id: string) => id.replace(/^(.*\/)?sample\.jsonl:/, 'sample.jsonl:');
    expect(second.map((d) => distinct(d.id))).toEqual(records.map((r, i) => (i < 20 ? `sample.jsonl:${r.id}` : r.id)));
  });

  it('a truncated .gz is reported the same way', async () => {
    const cut = join(tmp, 'cut.jsonl.gz');
    const bytes = gzipSync(readFileSync(sample));
    writeFileSync(cut, bytes.subarray(0, bytes.length - 100));
    const got = await items([cut]);
    expect(got.at(-1)).toMatchObject({ kind: 'error', code: 'corrupt', reason: expect.stringMatching(/^gzip stream is corrupt or truncated/) });
    expect(docsOf(got).length).toBeGreaterThan(0);
    expect(docsOf(got).length).toBeLessThan(30);
  });

  it('--text-column and --id-column apply to JSONL records too', async () => {
    const path = join(tmp, 'renamed.jsonl.gz');
    const renamed = records.slice(0, 3).map(({ id, text, ...rest }) => JSON.stringify({ ...rest, key: id, content: text }));
    writeFileSync(path, gzipSync(renamed.join('\n')));
    expect(docsOf(await items([path], { text: 'content', id: 'key' }))).toEqual(docsOf(await items([sample])).slice(0, 3));
  });
});
