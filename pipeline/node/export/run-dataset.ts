/**
 * A finished annotate run as exportable documents: train.jsonl's records joined, in one streaming pass, with the
 * original texts re-read from the run's inputs (config.json's `inputs`, checked against its `inputsDigest`).
 * Both streams are in input order (a run writes its files in input order), so the join holds one document at a time.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { jsonLinesSync } from '../../io/jsonl.ts';
import type { AnnotateConfig } from '../../core/config.ts';
import { type ExportDoc, type TrainRecord, exportDoc } from '../../core/export/dataset-record.ts';
import type { RunStats } from '../../core/stats.ts';
import type { ToolSpec } from '../../core/tools/spec.ts';
import { digestInputs } from '../corpus/input-digest.ts';
import { readCorpus } from '../corpus/read-corpus.ts';
import { readStateJson } from '../system/safe-paths.ts';
import { checkpointSchema, parseState, runRecordSchema, runStatsSchema } from '../run/state-schemas.ts';
import type { z } from 'zod';

/** config.json as annotate writes it (the fields export reads). */
export interface RunRecord {
  model?: string;
  inputs: string[];
  inputsDigest: string;
  maxDocs: number | null;
  config: AnnotateConfig;
  versions?: Record<string, string>;
}

export interface RunInfo {
  dir: string;
  record: RunRecord;
  stats: RunStats;
}

/** The run in `dir`; throws a one-line error naming the fix when it is not a finished annotate run. */
export function readRun(dir: string): RunInfo {
  for (const name of ['config.json', 'train.jsonl', 'calls.jsonl']) {
    if (!existsSync(join(dir, name))) throw new Error(`${dir} is not an annotate run (no ${name}): pass the --out directory of \`toolformer annotate\``);
  }
  if (!existsSync(join(dir, 'stats.json'))) {
    throw new Error(`${dir}: the run has not finished (no stats.json): finish it with \`toolformer annotate … --out ${dir} --resume\` (or \`toolformer merge ${dir}\`) first`);
  }
  const fix = 'pass the --out directory of a finished `toolformer annotate` run';
  const context = `cannot read the run ${dir}`;
  const record = checkedState(dir, 'config.json', runRecordSchema, '', fix) as unknown as RunRecord;
  const stats = checkedState(dir, 'stats.json', runStatsSchema(record.config.tools), 'stats', fix) as RunStats;
  // train.jsonl as the run left it: the length its checkpoint records (a file grown or swapped since is not exported).
  if (existsSync(join(dir, 'checkpoint.json'))) {
    const recorded = checkedState(dir, 'checkpoint.json', checkpointSchema, '', fix).bytes['train.jsonl'];
    const size = statSync(join(dir, 'train.jsonl')).size;
    if (size !== recorded) {
      throw new Error(`${context}: train.jsonl is ${size} bytes, but its checkpoint records ${recorded}: the file changed after the run; ${fix}`);
    }
  }
  return { dir, record, stats };
}

/** The state file `name` of the run in `dir` as `schema` outputs it, or one line naming the file and its first bad field. */
function checkedState<T extends z.ZodType>(dir: string, name: string, schema: T, root: string, fix: string): z.output<T> {
  const context = `cannot read the run ${dir}`;
  const parsed = parseState(schema, readStateJson(dir, name, context, fix), root);
  if ('problem' in parsed) throw new Error(`${context}: ${name} is damaged (${parsed.problem}): ${fix}`);
  return parsed.value;
}

/** Non-empty lines of a JSONL file as parsed values, streamed (io/jsonl.ts); a bad line is one error naming file:line. */
export async function* jsonLines<T>(path: string): AsyncGenerator<T> {
  for (const item of jsonLinesSync<T>(path)) {
    if ('reason' in item) throw new Error(`${path}:${item.line}: ${item.reason}: the run's file is damaged`);
    yield item.value;
  }
}

/** train.jsonl's documents: the number of records (for shard names), without holding them. */
export async function countTrainRecords(run: RunInfo): Promise<number> {
  let n = 0;
  for await (const _ of jsonLines(join(run.dir, 'train.jsonl'))) n++;
  return n;
}

/** Every train.jsonl record with its original text, in file order. */
export async function* exportDocs(run: RunInfo, specs: readonly ToolSpec[]): AsyncGenerator<ExportDoc> {
  const { inputs, inputsDigest, config } = run.record;
  if (digestInputs(inputs) !== inputsDigest) {
    throw new Error(`the run's inputs (${inputs.join(', ')}) are not the files it read (their SHA-256 differs, or they moved): run export from the directory the run was started in, with its input files unchanged`);
  }
  const bySpec = new Map(specs.map((s) => [s.name, s]));
  const corpus = readCorpus(inputs, { columns: config.inputColumns, limits: config.inputLimits })[Symbol.asyncIterator]();
  for await (const record of jsonLines<TrainRecord>(join(run.dir, 'train.jsonl'))) {
    let original: string | undefined;
    for (let next = await corpus.next(); !next.done; next = await corpus.next()) {
      if (next.value.kind === 'doc' && next.value.doc.id === record.id) {
        original = next.value.doc.text;
        break;
      }
    }
    if (original === undefined) throw new Error(`document ${JSON.stringify(record.id)} of train.jsonl is not in the run's inputs (in order): was the run made from other files?`);
    yield exportDoc(record, original, bySpec);
  }
}
