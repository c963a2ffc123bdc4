/**
 * `toolformer export <run> --format parquet|chat|text [--out dir]`: a finished annotate run as a dataset directory
 * that `datasets.load_dataset(<dir>)` loads (its README.md is a Hub dataset card naming the data files). The formats
 * and their writers are the registry in formats.ts:
 *
 *   parquet  <out>/data/train-XXXXX-of-YYYYY.parquet   fixed schema (parquet-dataset.ts)
 *   chat     <out>/data/train.jsonl                    {id, messages, tools} (core/export/chat.ts)
 *   text     <out>/data/train.jsonl                    train.jsonl, byte for byte
 *
 * Written into a temporary sibling directory and renamed into place, so a killed export leaves no half dataset.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { datasetCard } from '../../core/export/card.ts';
import type { ExportDoc } from '../../core/export/dataset-record.ts';
import { TOOL_SPECS } from '../../core/tools/registry.ts';
import type { ToolSpec } from '../../core/tools/spec.ts';
import { realPlace } from '../run/run-files.ts';
import { type ExportFormatSpec, exportFormat } from './formats.ts';
import { type RunInfo, countTrainRecords, exportDocs, readRun } from './run-dataset.ts';

/** A format's name, one of formats.ts's EXPORT_FORMATS. */
export type ExportFormat = string;

export interface ExportOptions {
  format: ExportFormat;
  /** @default <run>/export/<format> */
  out?: string;
  overwrite?: boolean;
  /** Hub license id for the card. @default "other" (the corpus's own licence applies) */
  license?: string;
  /** The Hub id of the corpus, for `source_datasets: extended|<id>`. */
  sourceDataset?: string;
  /** Parquet: documents per shard. @default 100_000 */
  shardDocs?: number;
  /** Parquet: documents per row group. @default 1_000 */
  rowGroupDocs?: number;
  /** Chat: the system message; null: none. @default CHAT_SYSTEM_PROMPT */
  system?: string | null;
}

export interface ExportResult {
  out: string;
  documents: number;
  calls: number;
  files: string[];
}

/** Counts the exported calls per tool while the documents stream past. */
function counting(docs: AsyncIterable<ExportDoc>, counts: { documents: number; calls: Record<string, number> }): AsyncIterable<ExportDoc> {
  return (async function* () {
    for await (const doc of docs) {
      counts.documents++;
      for (const c of doc.calls) counts.calls[c.tool] = (counts.calls[c.tool] ?? 0) + 1;
      yield doc;
    }
  })();
}

export async function exportRun(runDir: string, options: ExportOptions, specs: readonly ToolSpec[] = TOOL_SPECS): Promise<ExportResult> {
  const format = exportFormat(options.format);
  const run = readRun(runDir);
  const out = resolve(options.out ?? join(runDir, 'export', format.name));
  assertNotRunOrAbove(out, runDir);
  if (existsSync(out) && !options.overwrite) throw new Error(`${out} already exists: pass --overwrite to replace it, or choose another --out`);
  assertReplaceable(out);
  const tmp = join(dirname(out), `.${basename(out)}.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, 'data'), { recursive: true });
  const total = await countTrainRecords(run);
  const counts = { documents: 0, calls: {} as Record<string, number> };
  const runTools = specs.filter((s) => run.record.config.tools.includes(s.name));
  try {
    const { files, dataFiles, features } = await format.write({
      run, runDir, dir: tmp, total, runTools,
      docs: () => counting(exportDocs(run, specs), counts),
      shardDocs: options.shardDocs, rowGroupDocs: options.rowGroupDocs, system: options.system,
    });
    const card = datasetCard({
      prettyName: `Toolformer calls: ${run.record.inputs.join(', ')} (${format.name})`,
      license: options.license ?? 'other',
      dataFiles,
      features,
      examples: counts.documents,
      sourceDataset: options.sourceDataset,
      body: cardBody(run, options, format, counts, files),
    });
    writeFileSync(join(tmp, 'README.md'), card);
    writeFileSync(join(tmp, EXPORT_MARKER), `${JSON.stringify({ run: resolve(runDir), format: format.name })}\n`);
    if (existsSync(out)) rmSync(out, { recursive: true });
    mkdirSync(dirname(out), { recursive: true });
    renameSync(tmp, out);
    return { out, documents: counts.documents, calls: Object.values(counts.calls).reduce((a, b) => a + b, 0), files };
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

/**
 * The file every export writes into its folder: `--overwrite` replaces only a folder that holds it (an earlier
 * export) or an empty one, never a folder of the user's own files (hidden, so `load_dataset(<dir>)` ignores it).
 */
export const EXPORT_MARKER = '.toolformer-export.json';

/** `--overwrite` onto an existing `out`: only an earlier export (its marker file) or an empty folder is replaced. */
function assertReplaceable(out: string): void {
  if (!existsSync(out)) return;
  if (!lstatSync(out).isDirectory()) throw new Error(`--out ${out} is a file, not an earlier export: --overwrite replaces only a folder an export made; pass another --out`);
  const names = readdirSync(out);
  if (names.length > 0 && !names.includes(EXPORT_MARKER)) {
    throw new Error(`--out ${out} holds files no export made (no ${EXPORT_MARKER}; ${names.length} entries, e.g. ${names.slice(0, 3).join(', ')}): --overwrite replaces only an earlier export; pass another --out`);
  }
}

/**
 * `--out` replaces its folder (with --overwrite): the run itself, or a folder holding it, would be deleted with the
 * data it is exported from. Refused whether or not --overwrite is given; links are resolved first.
 */
function assertNotRunOrAbove(out: string, runDir: string): void {
  const [target, run] = [realPlace(out).real, realPlace(runDir).real];
  if (target === run) throw new Error(`--out ${out} is the run ${runDir} itself: exporting there would replace the run's files; pass another --out (default <run>/export/<format>)`);
  if (run.startsWith(target.endsWith(sep) ? target : target + sep)) {
    throw new Error(`--out ${out} holds the run ${runDir}: exporting there would replace the run's files; pass another --out (default <run>/export/<format>)`);
  }
}

function cardBody(run: RunInfo, options: ExportOptions, format: ExportFormatSpec, counts: { documents: number; calls: Record<string, number> }, files: string[]): string {
  const { record, stats } = run;
  const config = record.config;
  const rows = config.tools.map((tool) => {
    const t = config.thresholds[tool];
    const s = stats.tools[tool];
    const margin = config.controlMargin === null ? 'off' : String(t.controlMargin ?? config.controlMargin);
    return `| ${tool} | ${t.tauS} | ${t.tauF} | ${t.k} | ${t.m} | ${margin} | ${s?.scored ?? 0} | ${s?.kept ?? 0} | ${counts.calls[tool] ?? 0} |`;
  });
  const control = config.controlMargin === null
    ? 'off (`--no-control`): a call was kept when its usefulness reached τ_f.'
    : `on: a call that reached τ_f was kept only if its result lowered the loss by at least the margin (nats) more than a distractor result of the same tool did (default margin ${config.controlMargin}).`;
  return [
    `# Toolformer calls (${format.name})`,
    '',
    `Made by toolformer-ts \`toolformer annotate\` (Schick et al., 2023, "Toolformer: Language Models Can Teach Themselves to Use Tools"): API calls were proposed at positions in each document, executed, and kept only where the result lowered the language model's loss on the next tokens by at least τ_f nats (usefulness = min(L_a, L_b) − L_c). ${counts.documents} documents with at least one kept call, ${Object.values(counts.calls).reduce((a, b) => a + b, 0)} calls.`,
    '',
    '## Files',
    '',
    ...files.map((f) => `- \`${f}\``),
    '',
    format.card,
    '',
    '## How it was made',
    '',
    `- Model: \`${record.model ?? 'unknown'}\`; seed ${config.seed}; LM proposals ${config.lmProposals ? 'on' : 'off'}.`,
    `- Inputs: ${record.inputs.map((i) => `\`${i}\``).join(', ')} (SHA-256 \`${record.inputsDigest.slice(0, 16)}…\`)${record.maxDocs === null ? '' : `, first ${record.maxDocs} documents`}: ${stats.docsRead} documents read, ${stats.badRecords} bad records, ${stats.docsWithKeptCall} with a kept call.`,
    `- Counterfactual control: ${control}`,
    '- Per tool (τ_s: least probability of " [" at an LM-chosen position; τ_f: least usefulness, nats; k positions and m samples per document; scored and kept calls from the run; exported: one call per position, the most useful):',
    '',
    '| tool | τ_s | τ_f | k | m | control margin | scored | kept | exported |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    '## Licence',
    '',
    `The texts keep the licence of their source corpus (card licence: \`${options.license ?? 'other'}\`); the annotations are machine-generated.`,
  ].join('\n');
}
