/**
 * The export formats, as a registry: one small object per format — its name, a one-line description (the CLI's help),
 * the dataset card's paragraph about the files, and a writer that fills a dataset directory. `toolformer export`,
 * `annotate --export` and their help and checks all read this list; adding a format is one entry here.
 * (Shape from datatrove's writers: one small class per output format behind one `write`.)
 *
 * Light to import (the CLI reads the names and descriptions): a writer loads its heavy modules when it runs.
 */
import { copyFileSync, createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Field } from '../../core/export/card.ts';
import type { ExportDoc } from '../../core/export/dataset-record.ts';
import type { ToolSpec } from '../../core/tools/spec.ts';
import type { RunInfo } from './run-dataset.ts';

/** What a writer gets. `docs()` streams the run's documents (each may be read once; they are counted for the card). */
export interface ExportContext {
  run: RunInfo;
  runDir: string;
  /** The dataset directory being written (a temporary one; `data/` exists). */
  dir: string;
  docs: () => AsyncIterable<ExportDoc>;
  /** Documents in train.jsonl (for shard counts). */
  total: number;
  /** The run's tools' specs. */
  runTools: ToolSpec[];
  /** Parquet: documents per shard and per row group. Chat: the system message (null: none; undefined: the default). */
  shardDocs?: number;
  rowGroupDocs?: number;
  system?: string | null;
}

/** What a writer wrote, relative to the dataset directory, and what the card says about it. */
export interface WrittenDataset {
  files: string[];
  /** The card's `data_files` pattern. */
  dataFiles: string;
  /** The card's `features` (a fixed schema); absent for JSON Lines. */
  features?: Field[];
}

export interface ExportFormatSpec {
  name: string;
  /** One line, for --help. */
  description: string;
  /** The dataset card's paragraph about the files. */
  card: string;
  write(context: ExportContext): Promise<WrittenDataset>;
}

const text: ExportFormatSpec = {
  name: 'text',
  description: 'train.jsonl unchanged',
  card: 'JSON Lines exactly as the run wrote `train.jsonl`: `text` has the kept calls inlined as `[Tool(input) -> result]` (square brackets of the original text became parentheses); `calls` gives each call\'s offsets (UTF-16 code units) and losses.',
  async write({ runDir, dir, docs }) {
    // Unchanged bytes; the documents are still read (and checked against the corpus) for the card's counts.
    copyFileSync(join(runDir, 'train.jsonl'), join(dir, 'data', 'train.jsonl'));
    for await (const _ of docs());
    return { files: ['data/train.jsonl'], dataFiles: 'data/train.jsonl' };
  },
};

const chat: ExportFormatSpec = {
  name: 'chat',
  description: '{messages, tools} JSONL (TRL, OpenAI)',
  card: 'JSON Lines, one conversation per document (`id`, `messages`, `tools`): the text before each call is an assistant message carrying the call as an OpenAI-style `tool_calls` entry (`arguments` a JSON string that validates against the tool\'s JSON Schema in `tools`), the result is a `tool` message with its `tool_call_id`, then the rest of the text. No user turn: the document is the model\'s own text. The first message is a system message.',
  async write({ dir, docs, runTools, system }) {
    const [{ CHAT_SYSTEM_PROMPT, chatRecord }, { openAiTools }] = await Promise.all([import('../../core/export/chat.ts'), import('../../core/tools/definitions.ts')]);
    const tools = openAiTools(runTools);
    const message = system === undefined ? CHAT_SYSTEM_PROMPT : system;
    const stream = createWriteStream(join(dir, 'data', 'train.jsonl'));
    for await (const doc of docs()) {
      if (!stream.write(JSON.stringify(chatRecord(doc, tools, message)) + '\n')) await new Promise<void>((r) => stream.once('drain', () => r()));
    }
    stream.end();
    await finished(stream);
    // The same definitions once, for trainers that take the tools as one JSON value (README: Loading).
    writeFileSync(join(dir, 'tools.json'), JSON.stringify(tools, null, 2) + '\n');
    return { files: ['data/train.jsonl', 'tools.json'], dataFiles: 'data/train.jsonl' };
  },
};

const parquet: ExportFormatSpec = {
  name: 'parquet',
  description: 'shards of a fixed schema',
  card: 'Parquet shards, one row per document: `text` (the document with its kept calls inlined as `[Tool(input) -> result]`), `original_text`, `source`, `date`, and `calls`, a list of `{tool, arguments (JSON object, as a string), input, result, offset, inlined_offset, loss_no_call, loss_call_only, loss_with_result, usefulness}`. Offsets are Unicode code points (Python `str` indices) into `original_text` and `text`.',
  async write({ dir, docs, total, shardDocs, rowGroupDocs }) {
    const { PARQUET_FEATURES, writeParquetShards } = await import('./parquet-dataset.ts');
    const names = await writeParquetShards(docs(), join(dir, 'data'), total, shardDocs ?? 100_000, rowGroupDocs ?? 1_000);
    return { files: names.map((n) => `data/${n}`), dataFiles: 'data/train-*.parquet', features: PARQUET_FEATURES };
  },
};

/** Every export format, in the order the help lists them. */
export const EXPORT_FORMATS: readonly ExportFormatSpec[] = [parquet, chat, text];
export const EXPORT_FORMAT_NAMES = EXPORT_FORMATS.map((f) => f.name);
/**
 * `toolformer export <run>` without --format: Parquet, what the Hub stores and `datasets.load_dataset` reads fastest,
 * and the one format that keeps every field of the run (source, date, each call's losses) in a typed schema.
 */
export const DEFAULT_EXPORT_FORMAT = parquet.name;

/** "a, b and c". */
const spoken = (names: readonly string[]) => (names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names.join(''));

/** The format named `name`; anything else is a one-line error naming the choices. */
export function exportFormat(name: string): ExportFormatSpec {
  const format = EXPORT_FORMATS.find((f) => f.name === name);
  if (!format) throw new Error(`--format must be one of ${EXPORT_FORMAT_NAMES.join(', ')} (got ${JSON.stringify(name)})`);
  return format;
}

/** `--export parquet,chat`: checked before the run starts, so a typo does not cost a run. */
export function exportFormatList(list: string): string[] {
  const names = list.split(',').map((f) => f.trim()).filter(Boolean);
  for (const f of names) {
    if (!EXPORT_FORMAT_NAMES.includes(f)) throw new Error(`--export takes ${spoken(EXPORT_FORMAT_NAMES)} (got ${JSON.stringify(f)}): pass e.g. --export ${EXPORT_FORMAT_NAMES.slice(0, 2).join(',')}`);
  }
  return names;
}

/** The formats for --help: `parquet: shards of a fixed schema; chat: …`. */
export const exportFormatHelp = () => EXPORT_FORMATS.map((f) => `${f.name}: ${f.description}`).join('; ');
