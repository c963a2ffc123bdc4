/**
 * `export --format parquet`: the documents as Parquet shards `data/train-XXXXX-of-YYYYY.parquet` with one fixed
 * schema, written by hyparquet-writer a row group at a time (memory: one row group of documents).
 *
 *   id, text (calls inlined, train.jsonl's), original_text, source?, date?,
 *   calls: list<struct<tool, arguments (JSON object as a string), input, result, offset, inlined_offset,
 *                      loss_no_call, loss_call_only, loss_with_result, usefulness>>
 *
 * Offsets are in Unicode code points (Python `str` and DuckDB `substring` indices) — calls.jsonl's `at` is in UTF-16
 * code units, the same number for text without characters outside the BMP.
 */
import type { SchemaElement } from 'hyparquet';
import { ParquetWriter, fileWriter } from 'hyparquet-writer';
import type { Field } from '../../core/export/card.ts';
import { type ExportDoc, codePointOffset } from '../../core/export/dataset-record.ts';

const string = (name: string, required = true): SchemaElement => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: required ? 'REQUIRED' : 'OPTIONAL' });
const int32 = (name: string): SchemaElement => ({ name, type: 'INT32', repetition_type: 'REQUIRED' });
const double = (name: string): SchemaElement => ({ name, type: 'DOUBLE', repetition_type: 'REQUIRED' });

const CALL_FIELDS: SchemaElement[] = [
  string('tool'), string('arguments'), string('input'), string('result'), int32('offset'), int32('inlined_offset'),
  double('loss_no_call'), double('loss_call_only'), double('loss_with_result'), double('usefulness'),
];

/** The Parquet schema of every shard (a flat list, as Parquet's footer stores it). */
export const PARQUET_SCHEMA: SchemaElement[] = [
  { name: 'root', num_children: 6 },
  string('id'), string('text'), string('original_text'), string('source', false), string('date', false),
  { name: 'calls', repetition_type: 'REQUIRED', converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  { name: 'element', repetition_type: 'REQUIRED', num_children: CALL_FIELDS.length },
  ...CALL_FIELDS,
];

/** The same schema as the dataset card's `features`. */
export const PARQUET_FEATURES: Field[] = [
  ...['id', 'text', 'original_text', 'source', 'date'].map((name) => ({ name, type: { dtype: 'string' } })),
  { name: 'calls', type: { list: CALL_FIELDS.map((f) => ({ name: f.name, type: { dtype: f.type === 'INT32' ? 'int32' : f.type === 'DOUBLE' ? 'float64' : 'string' } })) } },
];

/** One Parquet row of a document. */
export function parquetRow(doc: ExportDoc) {
  return {
    id: doc.id,
    text: doc.inlined,
    original_text: doc.original,
    source: doc.source ?? null,
    date: doc.date ?? null,
    calls: doc.calls.map((c) => ({
      tool: c.tool,
      arguments: JSON.stringify(c.arguments),
      input: c.input,
      result: c.result,
      offset: codePointOffset(doc.original, c.at),
      inlined_offset: codePointOffset(doc.inlined, c.inlinedAt),
      loss_no_call: c.losses.noCall,
      loss_call_only: c.losses.callOnly,
      loss_with_result: c.losses.withResult,
      usefulness: c.usefulness,
    })),
  };
}

type Row = ReturnType<typeof parquetRow>;
const COLUMNS = ['id', 'text', 'original_text', 'source', 'date', 'calls'] as const;

export const shardName = (index: number, count: number) => `train-${String(index).padStart(5, '0')}-of-${String(count).padStart(5, '0')}.parquet`;

/**
 * Write `total` documents into ⌈total / shardDocs⌉ shards under `dataDir` (at least one, empty when total is 0),
 * `rowGroupDocs` documents per row group. Returns the shard file names.
 */
export async function writeParquetShards(docs: AsyncIterable<ExportDoc>, dataDir: string, total: number, shardDocs: number, rowGroupDocs: number): Promise<string[]> {
  const count = Math.max(1, Math.ceil(total / shardDocs));
  const names: string[] = [];
  let writer: ParquetWriter | null = null;
  let inShard = 0;
  let group: Row[] = [];
  const flush = async () => {
    if (!writer || group.length === 0) return;
    const columnData = COLUMNS.map((name) => ({ name, data: group.map((r) => r[name]) }));
    await writer.write({ columnData, rowGroupSize: group.length });
    group = [];
  };
  const open = () => {
    const name = shardName(names.length, count);
    names.push(name);
    writer = new ParquetWriter({ writer: fileWriter(`${dataDir}/${name}`), schema: PARQUET_SCHEMA, createdBy: 'toolformer-ts export' });
    inShard = 0;
  };
  const close = async () => {
    await flush();
    await writer?.finish();
    writer = null;
  };
  open();
  for await (const doc of docs) {
    if (inShard === shardDocs) {
      await close();
      open();
    }
    group.push(parquetRow(doc));
    inShard++;
    if (group.length === rowGroupDocs) await flush();
  }
  await close();
  if (names.length !== count) throw new Error(`train.jsonl changed while exporting (${total} records counted, ${names.length} of ${count} shards written)`);
  return names;
}
