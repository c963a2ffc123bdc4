/**
 * Explicit schemas of a run's state files (zod): the checkpoint (checkpoint.json), the stats it carries and
 * stats.json, and config.json's fields a resume or export reads. Objects are strict (a key the writer never writes,
 * `constructor` included, is refused); maps keyed by data (tools, reasons, pre-filter drops, skipped inputs) refuse
 * keys that name a member of Object.prototype and come out as null-prototype objects, so a later `total[key] += n`
 * can neither reach nor replace a prototype. A value that fails is one phrase naming the first bad field
 * (`stats.tools.Calculator.reasons.kept is not a count`), for the caller's one-line refusal.
 */
import { z } from 'zod';
import { TAU_F_GRID } from '../../core/stats.ts';
import type { RunStats } from '../../core/stats.ts';

/** A count: a finite integer ≥ 0 (JSON's 1e999 parses to Infinity and is refused, as are -1, 0.5 and "3"). */
const count = z.number().int().nonnegative();
/** A rate or other non-negative measure: finite, ≥ 0. */
const measure = z.number().nonnegative();

/** A key that is data, not a member of Object.prototype (`__proto__`, `constructor`, `toString`, …). */
const dataKey = z.string().refine((key) => !(key in Object.prototype), { error: 'is a key named like a member of Object.prototype' });

/** A map keyed by data: prototype-named keys refused, the result without a prototype. */
const dataMap = <T extends z.ZodType>(value: T) =>
  z.record(dataKey, value).transform((map) => Object.assign(Object.create(null) as Record<string, z.output<T>>, map));

const hallucination = z.strictObject({ lmCalls: count, unknownTool: count, schemaError: count, rate: measure });

const toolStats = z.strictObject({
  docs: count,
  prefilterDrops: dataMap(count),
  hallucination,
  lmSampling: z.strictObject({ samples: count, parsed: count, parseRate: measure }),
  positions: z.strictObject({ lm: count, heuristic: count, total: count }),
  candidates: count,
  byProposer: z.strictObject({ lm: count, programmatic: count }),
  reasons: dataMap(count),
  scored: count,
  kept: count,
  inlined: count,
  reachTauF: z.array(z.strictObject({ tauF: z.number(), calls: count, undecided: count })).length(TAU_F_GRID.length),
});

/** RunStats for a run of `tools`: each of them present, no other. */
export function runStatsSchema(tools: readonly string[]) {
  return z.strictObject({
    docsRead: count,
    badRecords: count,
    skippedInputs: dataMap(z.strictObject({ count, first: z.array(z.string()) })).optional(),
    docsWithKeptCall: count,
    tokensScored: count.optional(),
    searchBudget: z.strictObject({ docs: count, charsNotSearched: count, first: z.array(z.string()) }).optional(),
    hallucination,
    tools: z.strictObject(Object.fromEntries(tools.map((tool) => [tool, toolStats]))),
  });
}

const outputBytes = z.strictObject({ 'train.jsonl': count, 'calls.jsonl': count, 'errors.jsonl': count });

/** checkpoint.json: its stats are checked apart (runStatsSchema, for the run's tools), here only an object. */
export const checkpointSchema = z.strictObject({
  items: count,
  docs: count,
  bytes: outputBytes,
  stats: z.record(z.string(), z.unknown()),
  lastItem: z.string().optional(),
});

/**
 * config.json's fields a resume and export read. `config` (AnnotateConfig) is only checked to be an object naming its
 * tools: a resume compares it key by key with the run's own settings, so a changed value is refused there.
 */
export const runRecordSchema = z.looseObject({
  model: z.unknown().optional(),
  inputs: z.array(z.string()),
  inputsDigest: z.string(),
  maxDocs: count.nullable(),
  config: z.looseObject({ tools: z.array(z.string()) }),
});

/** The value as `schema` outputs it, or the phrase naming its first bad field under `root` ('' for the file's top). */
export function parseState<T extends z.ZodType>(schema: T, value: unknown, root: string): { value: z.output<T> } | { problem: string } {
  const result = schema.safeParse(value, { reportInput: true });
  return result.success ? { value: result.data } : { problem: issuePhrase(result.error.issues[0], root) };
}

/** RunStats checked for `tools`: the stats themselves, or the phrase naming the first bad field. */
export function parseRunStats(value: unknown, tools: readonly string[]): { value: RunStats } | { problem: string } {
  return parseState(runStatsSchema(tools), value, 'stats') as { value: RunStats } | { problem: string };
}

/** `stats.tools.Calculator.reachTauF[2].calls`, or `"items"` at the top of a file (root ''). */
function fieldName(root: string, path: readonly PropertyKey[]): string {
  const tail = path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p).slice(0, 40)}`)).join('');
  return root ? `${root}${tail}` : `"${tail.replace(/^\./, '')}"`;
}

function issuePhrase(issue: z.core.$ZodIssue, root: string): string {
  const field = fieldName(root, issue.path);
  const input = (issue as { input?: unknown }).input;
  const received = (issue as { received?: string }).received;
  switch (issue.code) {
    case 'unrecognized_keys':
      return `${fieldName(root, [...issue.path, issue.keys[0]])} is not a field of this file`;
    case 'custom':
      return `${field} ${issue.message}`;
    case 'invalid_key':
      return `${field} ${issue.issues[0]?.message ?? 'has a key that is not allowed'}`;
    case 'too_small':
    case 'too_big':
      return issue.origin === 'array' ? `${field} is not a list of ${String(issue.code === 'too_small' ? issue.minimum : issue.maximum)}` : `${field} is not a count`;
    case 'invalid_type':
      if (input === undefined && received === undefined) return `${field} is missing`;
      if (issue.expected === 'number' || issue.expected === 'int') return `${field} is not a count`;
      if (issue.expected === 'string') return `${field} is not a string`;
      if (issue.expected === 'array') return `${field} is not a list`;
      if (issue.expected === 'object' || issue.expected === 'record') {
        return `${field} is ${input === null ? 'null' : Array.isArray(input) ? 'a list' : typeof input}, not an object`;
      }
      return `${field} is not ${issue.expected}`;
    default:
      return `${field} is not valid (${issue.message})`;
  }
}
