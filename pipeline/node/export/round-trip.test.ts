import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { defaultConfig } from '../../core/default-config.ts';
import type { PipelineParts } from '../../core/stages/stages.ts';
import { runAnnotate } from '../run/annotate-run.ts';
import { readJsonlRecords, writeCorpusParquet } from '../corpus/corpus-formats/fixtures.ts';
import { loadModel } from '../model/load-model.ts';
import { createNodeParts } from '../tools/parts.ts';
import { exportFormats } from '../commands/annotate-command.ts';
import { exportRun } from './export-command.ts';

/**
 * Corpus formats in, dataset formats out, on real data: the committed tiny-random model annotates the first four
 * documents of the bundled sample from its .jsonl, a Parquet copy and the committed .jsonl.zst — the same
 * calls.jsonl byte for byte — and the .jsonl run is exported in every format and read back by independent readers
 * (DuckDB for Parquet and JSONL, Ajv for the chat records' arguments), every kept call checked against calls.jsonl.
 * Random weights keep few calls on merit, so τ_f is low enough that some are kept (as in annotate-run.test.ts).
 */
const root = resolve(import.meta.dirname, '../../..');
const tmp = mkdtempSync(join(tmpdir(), 'export-'));
const sample = join(root, 'corpus/sample.jsonl');
const records = readJsonlRecords(sample);
const DOCS = 4;
const inputs = {
  jsonl: join(tmp, 'sample.jsonl'),
  parquet: join(tmp, 'sample.parquet'),
  zst: join(tmp, 'sample.jsonl.zst'),
};
copyFileSync(sample, inputs.jsonl);
writeCorpusParquet(inputs.parquet, records, 3); // several row groups within the first four documents
copyFileSync(join(root, 'pipeline/node/corpus/corpus-formats/testdata/sample.jsonl.zst'), inputs.zst);

const config = defaultConfig({ tools: ['Calculator', 'QA', 'Calendar'], seed: 7, controlMargin: null });
for (const t of Object.values(config.thresholds)) Object.assign(t, { k: 3, m: 2, tauF: 0.05 });

let parts: PipelineParts;
const run = (input: string, name: string, maxDocs = DOCS, resume = false) =>
  runAnnotate(parts, { inputs: [input], outDir: join(tmp, name), meta: { model: 'models/tiny-random' }, config, maxDocs, resume });
const read = (name: string, file: string) => readFileSync(join(tmp, name, file), 'utf8');
const jsonl = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l));

let db: DuckDBConnection;
const query = async (sql: string) => (await db.runAndReadAll(sql)).getRowObjectsJson() as Record<string, any>[];

beforeAll(async () => {
  const lm = await loadModel(join(root, 'models/tiny-random'));
  parts = (await createNodeParts(lm, config)).parts;
  await run(inputs.jsonl, 'jsonl');
  db = await (await DuckDBInstance.create(':memory:')).connect();
}, 300_000);

interface KeptCall {
  docId: string;
  tool: string;
  input: string;
  at: number;
  result: string;
  losses: { noCall: number; callOnly: number; withResult: number };
  usefulness: number;
}
const keptCalls = (): KeptCall[] => jsonl(read('jsonl', 'calls.jsonl')).filter((c) => c.kept);
const originals = new Map(records.map((r) => [r.id!, r.text]));

/**
 * The exported calls of each document must be exactly its kept calls, one per position — the most useful there,
 * the first proposed on a tie (core/inline.ts) — with calls.jsonl's tool, input, result, offset and losses.
 */
function expectedCalls(): Map<string, KeptCall[]> {
  const byDoc = new Map<string, Map<number, KeptCall>>();
  for (const c of keptCalls()) {
    const at = byDoc.get(c.docId) ?? new Map<number, KeptCall>();
    byDoc.set(c.docId, at);
    const prev = at.get(c.at);
    if (!prev || c.usefulness > prev.usefulness) at.set(c.at, c);
  }
  return new Map([...byDoc].map(([id, at]) => [id, [...at.values()].sort((a, b) => a.at - b.at)]));
}

describe('corpus formats in', () => {
  it('annotate on a Parquet copy and on the .jsonl.zst writes the same calls.jsonl as on the .jsonl', async () => {
    expect(keptCalls().length).toBeGreaterThan(0);
    await run(inputs.parquet, 'parquet');
    await run(inputs.zst, 'zst');
    for (const file of ['calls.jsonl', 'train.jsonl', 'errors.jsonl', 'stats.json']) {
      expect(read('parquet', file)).toBe(read('jsonl', file));
      expect(read('zst', file)).toBe(read('jsonl', file));
    }
  });

  it('a stopped Parquet run resumes without losing or duplicating lines', async () => {
    await run(inputs.parquet, 'parquet-resumed', 2);
    await run(inputs.parquet, 'parquet-resumed', DOCS, true);
    for (const file of ['calls.jsonl', 'train.jsonl', 'errors.jsonl', 'stats.json']) expect(read('parquet-resumed', file)).toBe(read('jsonl', file));
  });
});

describe('dataset formats out, read back by DuckDB', () => {
  it('parquet: one row per train.jsonl document; every kept call, offset and loss as in calls.jsonl', async () => {
    const out = join(tmp, 'export-parquet');
    const done = await exportRun(join(tmp, 'jsonl'), { format: 'parquet', out, rowGroupDocs: 1 });
    const expected = expectedCalls();
    expect(done.documents).toBe(expected.size);
    const rows = await query(`select id, text, original_text, source, date, to_json(calls) as calls from read_parquet('${out}/data/*.parquet') order by id`);
    expect(rows.map((r) => r.id).sort()).toEqual([...expected.keys()].sort());
    for (const row of rows) {
      expect(row.original_text).toBe(originals.get(row.id));
      const calls = JSON.parse(row.calls);
      expect(calls.map((c: any) => ({ tool: c.tool, input: c.input, result: c.result, offset: c.offset, losses: [c.loss_no_call, c.loss_call_only, c.loss_with_result], usefulness: c.usefulness })))
        .toEqual(expected.get(row.id)!.map((c) => ({
          tool: c.tool, input: c.input, result: c.result,
          offset: Array.from(originals.get(row.id)!.slice(0, c.at)).length, // code points
          losses: [c.losses.noCall, c.losses.callOnly, c.losses.withResult], usefulness: c.usefulness,
        })));
      for (const c of calls) {
        // inlined_offset points at the call's " [" in the inlined text, and the call text names its input.
        expect(Array.from(row.text).slice(c.inlined_offset, c.inlined_offset + 2 + c.tool.length).join('')).toBe(` [${c.tool}`);
        expect(JSON.parse(c.arguments)).toEqual(c.tool === 'Calendar' ? {} : { [c.tool === 'QA' ? 'question' : 'expression']: c.input });
      }
    }
    // The card's YAML parses, names the data files, and lists the columns DuckDB sees.
    const card = readFileSync(join(out, 'README.md'), 'utf8');
    const header = parseYaml(card.split('---\n')[1]);
    expect(header.configs[0].data_files[0]).toEqual({ split: 'train', path: 'data/train-*.parquet' });
    expect(readdirSync(join(out, 'data'))).toEqual(['train-00000-of-00001.parquet']);
    const columns = await query(`select column_name from (describe select * from read_parquet('${out}/data/*.parquet'))`);
    expect(header.dataset_info.features.map((f: any) => f.name)).toEqual(columns.map((c) => c.column_name));
    expect(header.dataset_info.splits[0].num_examples).toBe(expected.size);
    expect(header).toMatchObject({ license: 'other', task_categories: ['text-generation'], size_categories: ['n<1K'], source_datasets: ['extended'] });
    expect(card).toContain('| Calculator | 0 | 0.05 | 3 | 2 | off |');
  });

  it('parquet: shards of --shard-docs documents, read as one dataset', async () => {
    const out = join(tmp, 'export-shards');
    const done = await exportRun(join(tmp, 'jsonl'), { format: 'parquet', out, shardDocs: 1 });
    expect(readdirSync(join(out, 'data'))).toHaveLength(done.documents);
    const [{ n }] = await query(`select count(*)::int as n from read_parquet('${out}/data/train-*-of-*.parquet')`);
    expect(n).toBe(done.documents);
  });

  it('chat: messages whose assistant turns are the document, calls as tool_calls valid for the tools column\'s schemas', async () => {
    const out = join(tmp, 'export-chat');
    await exportRun(join(tmp, 'jsonl'), { format: 'chat', out });
    const expected = expectedCalls();
    // `tools` read as JSON: inferred as a struct, DuckDB (like Arrow) would unify the tools' different parameter
    // schemas into one, adding null properties to each (README: Loading).
    const rows = await query(`select id, to_json(messages) as messages, tools from read_json('${out}/data/train.jsonl', format = 'newline_delimited', columns = {id: 'VARCHAR', messages: 'STRUCT(role VARCHAR, content VARCHAR, tool_calls STRUCT(id VARCHAR, type VARCHAR, function STRUCT(name VARCHAR, arguments VARCHAR))[], tool_call_id VARCHAR)[]', tools: 'JSON'})`);
    expect(rows.map((r) => r.id).sort()).toEqual([...expected.keys()].sort());
    for (const row of rows) {
      const messages = JSON.parse(row.messages);
      const tools = JSON.parse(row.tools);
      expect(tools.map((t: any) => t.function.name)).toEqual(config.tools);
      expect(tools).toEqual(JSON.parse(readFileSync(join(out, 'tools.json'), 'utf8')));
      const ajv = new Ajv({ strict: true });
      const validators = new Map(tools.map((t: any) => [t.function.name, ajv.compile(t.function.parameters)]));
      expect(messages[0].role).toBe('system');
      const assistant = messages.filter((m: any) => m.role === 'assistant');
      expect(assistant.map((m: any) => m.content).join('')).toBe(originals.get(row.id));
      const calls = assistant.flatMap((m: any) => m.tool_calls ?? []);
      const results = messages.filter((m: any) => m.role === 'tool');
      expect(results.map((m: any) => m.tool_call_id)).toEqual(calls.map((c: any) => c.id));
      const want = expected.get(row.id)!;
      expect(calls.map((c: any) => c.function.name)).toEqual(want.map((c) => c.tool));
      expect(results.map((m: any) => m.content)).toEqual(want.map((c) => c.result));
      // Each call sits where calls.jsonl put it: its message's text ends at the call's offset.
      let at = 0;
      for (const m of assistant) {
        at += m.content.length;
        if (m.tool_calls) expect(want.some((c) => c.at === at && c.tool === m.tool_calls[0].function.name)).toBe(true);
      }
      for (const c of calls) {
        expect(c.type).toBe('function');
        const args = JSON.parse(c.function.arguments);
        const validate = validators.get(c.function.name) as any;
        expect(validate(args), JSON.stringify(validate.errors)).toBe(true);
      }
    }
  });

  it('text: train.jsonl byte for byte, and DuckDB reads the same calls', async () => {
    const out = join(tmp, 'export-text');
    await exportRun(join(tmp, 'jsonl'), { format: 'text', out });
    expect(readFileSync(join(out, 'data/train.jsonl'), 'utf8')).toBe(read('jsonl', 'train.jsonl'));
    const rows = await query(`select id, to_json(calls) as calls from read_json('${out}/data/train.jsonl', format = 'newline_delimited')`);
    const expected = expectedCalls();
    expect(rows).toHaveLength(expected.size);
    for (const row of rows) {
      expect(JSON.parse(row.calls).map((c: any) => [c.tool, c.input, c.at, c.losses.withResult])).toEqual(expected.get(row.id)!.map((c) => [c.tool, c.input, c.at, c.losses.withResult]));
    }
    expect(parseYaml(readFileSync(join(out, 'README.md'), 'utf8').split('---\n')[1]).configs[0].data_files[0].path).toBe('data/train.jsonl');
  });

  it('a directory that is not a finished run, an --out that exists, a bad --export list: one-line errors naming the fix', async () => {
    await expect(exportRun(tmp, { format: 'parquet' })).rejects.toThrow(/is not an annotate run \(no config.json\): pass the --out directory/);
    await expect(exportRun(join(tmp, 'jsonl'), { format: 'parquet', out: join(tmp, 'export-parquet') })).rejects.toThrow(/already exists: pass --overwrite/);
    expect(() => exportFormats('parquet,json')).toThrow(/--export takes parquet, chat and text \(got "json"\)/);
    expect(exportFormats('parquet, chat')).toEqual(['parquet', 'chat']);
  });

  it('refuses to export when the corpus changed since the run, and leaves nothing behind', async () => {
    const copy = join(tmp, 'changed.jsonl');
    writeFileSync(copy, readFileSync(sample));
    await runAnnotate(parts, { inputs: [copy], outDir: join(tmp, 'changed'), meta: {}, config, maxDocs: 1 });
    writeFileSync(copy, readFileSync(sample, 'utf8').replace('Fellow-Citizens', 'Fellow citizens'));
    const out = join(tmp, 'export-changed');
    await expect(exportRun(join(tmp, 'changed'), { format: 'parquet', out })).rejects.toThrow(/inputs .* are not the files it read/);
    expect(existsSync(out)).toBe(false);
  });
});
