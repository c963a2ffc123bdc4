/**
 * Corpus files in the other formats, made from JSONL records with the project's own dependencies, for tests and the
 * benchmark (a `.jsonl.zst` cannot be written this way: fzstd only decompresses; see testdata/README.md).
 */
import { readFileSync } from 'node:fs';
import { parquetWriteFile } from 'hyparquet-writer';

export interface CorpusRecord {
  id?: string;
  text: string;
  source?: string;
  date?: string;
}

export const readJsonlRecords = (path: string): CorpusRecord[] =>
  readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as CorpusRecord);

/** A Parquet file of the records, `rowGroupRows` rows per row group (snappy pages, as hyparquet-writer writes). */
export function writeCorpusParquet(path: string, records: readonly CorpusRecord[], rowGroupRows = 1000): void {
  const column = (key: keyof CorpusRecord) => records.map((r) => r[key] ?? null);
  parquetWriteFile({
    filename: path,
    columnData: [
      { name: 'id', data: column('id'), type: 'STRING' },
      { name: 'text', data: column('text'), type: 'STRING' },
      { name: 'source', data: column('source'), type: 'STRING' },
      { name: 'date', data: column('date'), type: 'STRING' },
    ],
    rowGroupSize: rowGroupRows,
  });
}
