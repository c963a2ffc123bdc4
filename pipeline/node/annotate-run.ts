import { mkdirSync } from 'node:fs';
import { type Candidate, isKept, reasonText } from '../core/candidates.ts';
import type { AnnotateConfig } from '../core/config.ts';
import type { Doc } from '../core/document.ts';
import { inlineCalls } from '../core/stages/inline.ts';
import type { Losses } from '../core/scoring/losses.ts';
import { type DocWork, type PipelineParts, annotate, callText } from '../core/stages/stages.ts';
import { type RunStats, addDoc, emptyStats } from '../core/stats.ts';
import { digestInputs } from './input-digest.ts';
import { type CorpusError, readCorpus, withSkippedInputs } from './read-corpus.ts';
import { assertSameRun, resumableCheckpoint } from './resume-checks.ts';
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
    kept: isKept(c),
    reason: reasonText(c.outcome),
  };
}

/** The train.jsonl record of a judged document: its text with the kept calls inlined; null when none was kept. */
export function trainRecord(parts: Pick<PipelineParts, 'registry'>, work: DocWork) {
  const kept = work.candidates.filter(isKept);
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

/** Start or resume a run in `outDir`: a resume's settings checked, the files opened, config.json written. */
export function openRun(options: Pick<RunOptions, 'inputs' | 'outDir' | 'meta' | 'config' | 'maxDocs' | 'resume'>) {
  const { config, outDir } = options;
  mkdirSync(outDir, { recursive: true });
  const record = { ...options.meta, inputs: options.inputs, inputsDigest: digestInputs(options.inputs), maxDocs: options.maxDocs ?? null, config };
  // Checked before anything changes: a refused resume leaves every file as it was, and a resume never rewrites the
  // settings the run was made with (config.json changes only for a raised --max-docs).
  const resuming = options.resume === true && resumableCheckpoint(outDir, config.tools) !== null;
  const raised = resuming ? assertSameRun(outDir, record) : null;
  const { files, checkpoint } = RunFiles.open<RunStats>(outDir, options.resume ?? false);
  if (!resuming || raised) RunFiles.writeJson(outDir, 'config.json', raised ?? record);
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
    for await (const item of readCorpus(options.inputs, { columns: config.inputColumns, limits: config.inputLimits })) {
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
