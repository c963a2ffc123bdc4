/**
 * `tsx pipeline/eval/round2.ts <run dir>…`: the paper's "round 2" check — of the calls the LM itself sampled
 * (calls.jsonl, proposer "lm"), the share that parse, that name a known tool with a valid argument and run
 * (no unknown_tool / call_too_long / tool_error), and that the filter keeps. One Markdown row per run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonl } from '../io/jsonl.ts';

export interface Round2Row {
  run: string;
  model: string;
  docs: number;
  sampled: number;
  parsed: number;
  valid: number;
  kept: number;
  /** Reasons of the LM samples, counted (reasons cut at ":"). */
  reasons: Record<string, number>;
}

export function round2(dir: string): Round2Row {
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { model?: unknown; lm?: unknown };
  const stats = JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8')) as { docsRead: number };
  const rows = readJsonl<{ proposer: string; reason: string }>(join(dir, 'calls.jsonl'));
  const lm = rows.filter((r) => r.proposer === 'lm');
  const reasons: Record<string, number> = {};
  for (const r of lm) {
    const k = r.reason.split(':')[0];
    reasons[k] = (reasons[k] ?? 0) + 1;
  }
  const unparsed = (r: string) => r.startsWith('unclosed_call') || r.startsWith('parse_error');
  const invalid = (r: string) => unparsed(r) || r.startsWith('unknown_tool') || r.startsWith('call_too_long') || r.startsWith('tool_error');
  const model = typeof config.model === 'string' ? config.model : JSON.stringify(config.model ?? config.lm ?? '?');
  return {
    run: dir, model, docs: stats.docsRead, sampled: lm.length,
    parsed: lm.filter((r) => !unparsed(r.reason)).length,
    valid: lm.filter((r) => !invalid(r.reason)).length,
    kept: lm.filter((r) => r.reason === 'kept').length,
    reasons,
  };
}

const pct = (a: number, b: number) => (b === 0 ? '–' : `${((100 * a) / b).toFixed(1)} %`);

export function round2Table(rows: Round2Row[]): string {
  return [
    '| model | docs | LM-sampled calls | parse | valid (known tool, argument ok, runs) | kept |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.model} | ${r.docs} | ${r.sampled} | ${r.parsed} (${pct(r.parsed, r.sampled)}) | ${r.valid} (${pct(r.valid, r.sampled)}) | ${r.kept} (${pct(r.kept, r.sampled)}) |`),
  ].join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const rows = process.argv.slice(2).map(round2);
  console.log(round2Table(rows));
  for (const r of rows) console.log(`${r.model}: ${Object.entries(r.reasons).map(([k, v]) => `${k} ${v}`).join(', ')}`);
}
