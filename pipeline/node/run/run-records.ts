/**
 * The lines of a run's files, one function each: calls.jsonl (every candidate with its outcome), train.jsonl (a
 * judged document with its kept calls inlined), errors.jsonl (a bad input record or file).
 */
import { type Candidate, isKept, reasonText, type StoredLosses } from '../../core/candidates.ts';
import { inlineCalls, inlinedAtEachPosition } from '../../core/stages/inline.ts';
import type { RankedTool } from '../../core/retrieval/retriever.ts';
import { type DocWork, type PipelineParts, callText } from '../../core/stages/stages.ts';
import type { CorpusError } from '../corpus/read-corpus.ts';

/** Losses and usefulness are written rounded to 1e-4 nats: runs agree across batch sizes (float rounding). */
const round = (x: number | undefined) => (x === undefined ? undefined : Math.round(x * 1e4) / 1e4);
const roundLosses = (l: StoredLosses | undefined) =>
  l && { noCall: round(l.noCall), callOnly: round(l.callOnly), withResult: round(l.withResult) };

/**
 * The calls.jsonl records of a judged document, in candidate order. A kept call says whether it is the one inlined
 * into train.jsonl at its position (stages/inline.ts inlinedAtEachPosition: the most useful there).
 */
export function callRecords(parts: Pick<PipelineParts, 'registry'>, work: DocWork) {
  const inlined = new Set(inlinedAtEachPosition(work.candidates.filter(isKept)));
  return work.candidates.map((c) => callRecord(c, parts.registry.get(c.tool)?.server, isKept(c) ? inlined.has(c) : undefined, work.retrieved));
}

/**
 * `server`: the MCP server the tool came from (`--mcp`), absent for the project's own tools. `retrieved`: the
 * document's retrieved tools (--tool-retrieval), best first: the record gets its tool's rank (from 1) and score.
 */
export function callRecord(c: Candidate, server: string | undefined, inlined?: boolean, retrieved?: readonly RankedTool[]) {
  const rank = retrieved ? retrieved.findIndex((r) => r.name === c.tool) : -1;
  return {
    docId: c.docId,
    tool: c.tool,
    server,
    retrieval: rank < 0 ? undefined : { rank: rank + 1, score: round((retrieved as readonly RankedTool[])[rank].score) },
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
    // Only when L_b was skipped (two-pass scoring): losses then have no callOnly, and usefulness ≤ this.
    usefulnessAtMost: round(c.usefulnessAtMost),
    control: c.control,
    kept: isKept(c),
    inlined,
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
