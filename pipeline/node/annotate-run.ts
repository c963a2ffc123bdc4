import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Candidate } from '../core/candidates.ts';
import type { AnnotateConfig } from '../core/config.ts';
import type { Doc } from '../core/document.ts';
import { inlineCalls } from '../core/stages/inline.ts';
import type { Losses } from '../core/scoring/losses.ts';
import { type DocWork, type PipelineParts, annotate, callText } from '../core/stages/stages.ts';
import { type RunStats, addDoc, emptyStats } from '../core/stats.ts';
import { digestInputs } from './input-digest.ts';
import { type CorpusError, readCorpus, withSkippedInputs } from './read-corpus.ts';
import { RunFiles } from './run-files.ts';

/**
 * One annotate run: corpus → stages → out/<run>/{train,calls,errors}.jsonl, config.json, stats.json.
 * Crash-safe (see run-files.ts) and deterministic: no wall times or absolute paths in the files.
 */
export interface RunOptions {
  inputs: string[];
  outDir: string;
  /** Recorded in config.json (model, versions, …) beside the AnnotateConfig. */
  meta: Record<string, unknown>;
  config: AnnotateConfig;
  maxDocs?: number;
  resume?: boolean;
  /** Called after each document. */
  onDoc?: (done: { docs: number; stats: RunStats; work?: DocWork }) => void;
}

/** Losses and usefulness are written rounded to 1e-4 nats: runs agree across batch sizes (float rounding). */
const round = (x: number | undefined) => (x === undefined ? undefined : Math.round(x * 1e4) / 1e4);
const roundLosses = (l: Losses | undefined) =>
  l && { noCall: round(l.noCall), callOnly: round(l.callOnly), withResult: round(l.withResult) };

/** `server`: the MCP server the tool came from (`--mcp`), absent for the project's own tools. */
export function callRecord(c: Candidate, server: string | undefined) {
  return {
    docId: c.docId,
    tool: c.tool,
    server,
    positionTool: c.positionTool === c.tool ? undefined : c.positionTool,
    input: c.input,
    at: c.at,
    proposer: c.proposer,
    positionP: round(c.positionP),
    raw: c.raw,
    result: c.result,
    error: c.error,
    losses: roundLosses(c.losses),
    usefulness: round(c.usefulness),
    control: c.control,
    kept: c.kept,
    reason: c.reason,
  };
}

/** The train.jsonl record of a judged document: its text with the kept calls inlined; null when none was kept. */
export function trainRecord(parts: Pick<PipelineParts, 'registry'>, work: DocWork) {
  const kept = work.candidates.filter((c) => c.kept);
  if (kept.length === 0) return null;
  const inlined = inlineCalls(work.doc.text, kept, (c) => callText(parts, c, c.result));
  return {
    id: work.doc.id,
    text: inlined.text,
    source: work.doc.source,
    date: work.doc.date,
    calls: inlined.calls.map((c) => ({ ...c, losses: roundLosses(c.losses), usefulness: round(c.usefulness) })),
  };
}

/** The errors.jsonl record of a bad input record or file. */
export const errorRecord = (item: CorpusError) => ({ file: item.file, line: item.line ?? null, code: item.code, reason: item.reason });

/**
 * A resume must use the settings of the run it continues, or its files would mix two runs. Batch size and tool
 * concurrency do not change the output and --max-docs may grow; everything else is compared with config.json.
 */
function assertSameRun(outDir: string, record: { model?: unknown; inputs: string[]; inputsDigest: string; config: AnnotateConfig }): void {
  if (!RunFiles.readCheckpoint(outDir)) return;
  // Without config.json nothing says which inputs and settings the checkpoint's counts belong to.
  if (!existsSync(join(outDir, 'config.json'))) {
    throw new Error(`cannot resume ${outDir}: its config.json is missing, so the run's inputs and settings cannot be checked: start again with --overwrite or another --out`);
  }
  let before: typeof record;
  try {
    before = JSON.parse(readFileSync(join(outDir, 'config.json'), 'utf8'));
  } catch (error) {
    throw new Error(`cannot resume ${outDir}: config.json is not valid JSON (${(error as Error).message}): start again with another --out`);
  }
  const comparable = (r: typeof record) => {
    const { batchSize: _b, toolConcurrency: _c, ...config } = r.config ?? {};
    // A run begun before the search budget existed searched whole documents: `--max-doc-tokens 0` resumes it.
    const maxDocTokens = (config as Partial<AnnotateConfig>).maxDocTokens ?? null;
    return { model: r.model, inputs: r.inputs, inputsDigest: r.inputsDigest, ...config, maxDocTokens };
  };
  const [was, now] = [comparable(before), comparable(record)];
  if (JSON.stringify(was.inputs) === JSON.stringify(now.inputs) && was.inputsDigest !== now.inputsDigest) {
    throw new Error(`cannot resume ${outDir}: the input files changed since the run started (their SHA-256 differs): restore them, or start again with another --out`);
  }
  for (const key of Object.keys(now) as (keyof typeof now)[]) {
    if (JSON.stringify(was[key]) !== JSON.stringify(now[key])) {
      const show = (v: unknown) => JSON.stringify(v)?.slice(0, 60);
      // The flag that gives the first run's value where it is not the flag's own name.
      const hint = key === 'maxDocTokens' && was[key] === null ? ' (--max-doc-tokens 0 for no search budget)' : '';
      throw new Error(`cannot resume ${outDir} with other settings (${key}: ${show(was[key])} then, ${show(now[key])} now): pass the same flags as its first run${hint}, or choose another --out`);
    }
  }
}

/** Start or resume a run in `outDir`: a resume's settings checked, the files opened, config.json written. */
export function openRun(options: Pick<RunOptions, 'inputs' | 'outDir' | 'meta' | 'config' | 'maxDocs' | 'resume'>) {
  const { config, outDir } = options;
  mkdirSync(outDir, { recursive: true });
  const record = { ...options.meta, inputs: options.inputs, inputsDigest: digestInputs(options.inputs), maxDocs: options.maxDocs ?? null, config };
  if (options.resume) assertSameRun(outDir, record);
  const { files, checkpoint } = RunFiles.open<RunStats>(outDir, options.resume ?? false);
  RunFiles.writeJson(outDir, 'config.json', record);
  return { files, checkpoint, stats: checkpoint?.stats ?? emptyStats(config.tools) };
}

export async function runAnnotate(parts: PipelineParts, options: RunOptions): Promise<RunStats> {
  const { config, outDir } = options;
  const { files, checkpoint, stats } = openRun(options);
  let items = 0;
  let docs = checkpoint?.docs ?? 0;
  /** Input item index of each document in flight, to checkpoint the right count. */
  const itemOf = new Map<Doc, number>();

  // Reads the corpus; bad records are queued for errors.jsonl; items done before a resume are skipped.
  async function* documents(): AsyncIterable<Doc> {
    for await (const item of readCorpus(options.inputs, { columns: config.inputColumns })) {
      const index = items;
      if (checkpoint && index < checkpoint.items) {
        items++;
        continue;
      }
      if (item.kind === 'doc' && options.maxDocs !== undefined && docs >= options.maxDocs) break;
      items++;
      if (item.kind === 'error') {
        stats.badRecords++;
        files.push('errors.jsonl', errorRecord(item));
        continue;
      }
      docs++;
      itemOf.set(item.doc, index);
      yield item.doc;
    }
  }

  try {
    for await (const work of annotate(parts, config, documents())) {
      addDoc(stats, work);
      for (const c of work.candidates) files.push('calls.jsonl', callRecord(c, parts.registry.get(c.tool)?.server));
      const train = trainRecord(parts, work);
      if (train) files.push('train.jsonl', train);
      const index = itemOf.get(work.doc)!;
      itemOf.delete(work.doc);
      files.commit(index + 1, docs, stats);
      options.onDoc?.({ docs, stats, work });
    }
    // Bad records after the last document.
    files.commit(items, docs, stats);
  } finally {
    files.close();
  }
  RunFiles.writeJson(outDir, 'stats.json', withSkippedInputs(stats, options.inputs));
  return stats;
}
