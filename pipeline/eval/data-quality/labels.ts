/**
 * The hand-labelled set: passages.jsonl (the texts, picked by select-passages.ts) and labels.jsonl (one line per
 * passage: every position where a call is correct and useful, or none). Loading checks both files line by line;
 * the first problem is thrown as one line naming the file and line ("labels.jsonl:12: …").
 */
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { TOOL_NAMES } from '../../core/tools/registry.ts';

/** The tools a label may name: the registry's. */
export const TOOLS = TOOL_NAMES;
export type ToolName = string;
export type Split = 'dev' | 'test';

export interface Label {
  tool: ToolName;
  /** Character offset of the text the call's result predicts (the call goes right before it). */
  at: number;
  /** The passage's text at `at`, a check that the offset is the one meant. */
  anchor: string;
  /** One acceptable call, e.g. `QA("What is the capital of Ghana?")`. */
  call: string;
  /** The correct result. */
  result: string;
  /** Other results that are also correct (another wording of a translation, say). */
  accept?: string[];
  why: string;
}

export interface Passage {
  id: string;
  /** The corpus document it was cut from. */
  from: string;
  text: string;
  source: string;
  date?: string;
  stratum: string;
  split: Split;
  labels: Label[];
}

export const DATA_DIR = import.meta.dirname;

/** Thrown for a malformed line: the message is one line, `<file>:<line>: <what>`. */
export class LabelFileError extends Error {}

export function loadLabelledSet(passagesFile = resolve(DATA_DIR, 'passages.jsonl'), labelsFile = resolve(DATA_DIR, 'labels.jsonl')): Passage[] {
  const passages = readLines(passagesFile, (value, fail) => parsePassage(value, fail));
  const byId = new Map<string, Passage>();
  for (const { value: p, line } of passages) {
    if (byId.has(p.id)) throw new LabelFileError(`${basename(passagesFile)}:${line}: duplicate id ${p.id}`);
    byId.set(p.id, p);
  }
  const labelled = new Set<string>();
  for (const { value, line } of readLines(labelsFile, (v, fail) => parseLabelLine(v, fail))) {
    const where = `${basename(labelsFile)}:${line}`;
    const p = byId.get(value.id);
    if (!p) throw new LabelFileError(`${where}: id ${value.id} is not in ${basename(passagesFile)}`);
    if (labelled.has(value.id)) throw new LabelFileError(`${where}: a second line for ${value.id}`);
    labelled.add(value.id);
    for (const l of value.labels) {
      if (l.at + l.anchor.length > p.text.length || !p.text.startsWith(l.anchor, l.at)) {
        throw new LabelFileError(`${where}: ${l.tool} label at ${l.at}: the text there is ${JSON.stringify(p.text.slice(l.at, l.at + l.anchor.length))}, not the anchor ${JSON.stringify(l.anchor)}`);
      }
    }
    p.labels = value.labels;
  }
  const missing = [...byId.keys()].filter((id) => !labelled.has(id));
  if (missing.length > 0) throw new LabelFileError(`${basename(labelsFile)}: no line for ${missing.length} passage(s), first ${missing[0]} (a passage with no call has "labels": [])`);
  return [...byId.values()];
}

type Fail = (what: string) => never;

function readLines<T>(file: string, parse: (value: unknown, fail: Fail) => T): Array<{ value: T; line: number }> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new LabelFileError(`${basename(file)}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  const out: Array<{ value: T; line: number }> = [];
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    const fail: Fail = (what) => {
      throw new LabelFileError(`${basename(file)}:${line}: ${what}`);
    };
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      fail(`not JSON (${(e as Error).message.split('\n')[0]})`);
    }
    out.push({ value: parse(value, fail), line });
  });
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function str(rec: Record<string, unknown>, key: string, fail: Fail, optional = false): string {
  const v = rec[key];
  if (v === undefined && optional) return '';
  if (typeof v !== 'string' || v === '') fail(`"${key}" must be a non-empty string`);
  return v as string;
}

function parsePassage(value: unknown, fail: Fail): Passage {
  if (!isObject(value)) fail('expected a JSON object');
  const rec = value as Record<string, unknown>;
  const split = str(rec, 'split', fail);
  if (split !== 'dev' && split !== 'test') fail(`"split" must be "dev" or "test", got ${JSON.stringify(split)}`);
  const date = str(rec, 'date', fail, true);
  if (date && !/^\d{4}(-\d{2}-\d{2})?$/.test(date)) fail(`"date" must be YYYY or YYYY-MM-DD, got ${JSON.stringify(date)}`);
  return {
    id: str(rec, 'id', fail),
    from: str(rec, 'from', fail),
    text: str(rec, 'text', fail),
    source: str(rec, 'source', fail),
    ...(date ? { date } : {}),
    stratum: str(rec, 'stratum', fail),
    split,
    labels: [],
  };
}

function parseLabelLine(value: unknown, fail: Fail): { id: string; labels: Label[] } {
  if (!isObject(value)) fail('expected a JSON object');
  const rec = value as Record<string, unknown>;
  const id = str(rec, 'id', fail);
  if (!Array.isArray(rec.labels)) fail('"labels" must be an array (empty when no call fits)');
  const labels = (rec.labels as unknown[]).map((l, i): Label => {
    const failAt: Fail = (what) => fail(`label ${i + 1}: ${what}`);
    if (!isObject(l)) failAt('expected an object');
    const o = l as Record<string, unknown>;
    const tool = str(o, 'tool', failAt);
    if (!TOOLS.includes(tool)) failAt(`"tool" must be one of ${TOOLS.join(', ')}, got ${JSON.stringify(tool)}`);
    if (typeof o.at !== 'number' || !Number.isInteger(o.at) || o.at < 0) failAt('"at" must be a character offset (integer ≥ 0)');
    const accept = o.accept;
    if (accept !== undefined && (!Array.isArray(accept) || !accept.every((a) => typeof a === 'string' && a !== ''))) failAt('"accept" must be an array of strings');
    const call = str(o, 'call', failAt);
    if (!call.startsWith(`${tool}(`) || !call.endsWith(')')) failAt(`"call" must read ${tool}(…), got ${JSON.stringify(call)}`);
    return {
      tool,
      at: o.at as number,
      anchor: str(o, 'anchor', failAt),
      call,
      result: str(o, 'result', failAt),
      ...(accept ? { accept: accept as string[] } : {}),
      why: str(o, 'why', failAt),
    };
  });
  return { id, labels };
}
