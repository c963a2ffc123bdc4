/**
 * The dose–response section (dose.ts) on planted runs: the two columns the pre-registration asks for are counted
 * apart, and the decision rule reads "not decided yet", "supported" or "not supported" as the runs say.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TrialRecord } from '../metrics.ts';
import type { EvalPrompt } from '../tasks.ts';
import type { ReportPaths } from './cells.ts';
import { FRESH_FILE, readJsonl } from './corpus-files.ts';
import { doseSection } from './dose.ts';
import { paths } from './paths.ts';
import { runName, SEEDS, type BaseId, type Run } from './plan.ts';

const prompts = readJsonl<EvalPrompt>(FRESH_FILE).slice(0, 40);
/** How a planted run answers: per prompt index, with tools (call result right?, answer copied?) and without tools. */
type Plan = (i: number) => { right: boolean; copied: boolean; without: boolean };

function trials(plan: Plan): TrialRecord[] {
  return prompts.flatMap((q, i) => {
    const { right, copied, without } = plan(i);
    const call = { tool: 'QA', input: `What is the population of ${q.subject}?`, result: right ? q.answers[0] : 'nothing' };
    return [
      { id: q.id, family: q.family, tools: true, correct: copied, text: copied ? q.answers[0] : 'no', calls: [call] },
      { id: q.id, family: q.family, tools: false, correct: without, text: without ? q.answers[0] : 'no', calls: [] },
    ];
  });
}

/** A results folder with fresh-trials.jsonl for (a) and (d) on the given bases (undefined: models/default), every seed. */
function planted(runs: { base?: BaseId; a: Plan; d: Plan }[]): { p: ReportPaths; root: string } {
  const root = mkdtempSync(join(tmpdir(), 'tf-dose-'));
  const p: ReportPaths = { ...paths, eval: () => join(root, 'none'), committed: (r) => join(root, 'runs', runName(r)), baseCommitted: (id) => join(root, `base-${id}`) };
  for (const { base, a, d } of runs) {
    for (const seed of SEEDS) {
      for (const [arm, plan] of [['a', a], ['d', d]] as const) {
        const r: Run = { arm, seed, ...(base ? { base } : {}) };
        mkdirSync(p.committed(r), { recursive: true });
        writeFileSync(join(p.committed(r), 'fresh-trials.jsonl'), trials(plan).map((t) => JSON.stringify(t)).join('\n') + '\n');
      }
    }
  }
  return { p, root };
}

const read = (runs: Parameters<typeof planted>[0]) => {
  const { p, root } = planted(runs);
  try {
    return doseSection(p);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
};
const never: Plan = () => ({ right: false, copied: false, without: false });
/**
 * The tool's result is right on the first `right` prompts and copied on the first `copied` of them; the last `memory`
 * prompts are answered right with a wrong result (scored correct, not copied).
 */
const calls = (right: number, copied: number, memory = 0): Plan => (i) => ({ right: i < right, copied: i < copied || i >= prompts.length - memory, without: false });
const row = (lines: string[], start: string) => lines.find((l) => l.startsWith(start))!.split(' | ');

describe('the dose–response section', () => {
  it('counts "the tool\'s result was right" and "the model copied the answer" apart', () => {
    const { lines } = read([{ a: calls(20, 10, 5), d: never }]);
    // | dose | base | arm | seeds | with tools | without tools | tool's result right | model copied it | calls |
    const a = row(lines, '| 1× | models/default (1×) | (a)');
    expect(a[3]).toBe(`${SEEDS.length} of ${SEEDS.length}`);
    expect([a[4], a[6], a[7]].map((c) => c.split(' ')[0])).toEqual(['37.5', '50.0', '25.0']);
    expect(a[8].split(' ')[0]).toBe('100.0');
  });

  it('reads the pre-registered rule: undecided while a dose lacks runs, supported on a large monotone effect, not supported on a flat one', () => {
    expect(read([{ a: calls(20, 10), d: never }]).rows.outcome).toMatch(/^not decided yet: 3×, 10× lack/);
    const all = (a1: Plan, a3: Plan, a10: Plan) => read([{ a: a1, d: never }, { base: 'pt3x', a: a3, d: never }, { base: 'pt10x', a: a10, d: never }, { base: 'pt10x-p2', a: a10, d: never }]);
    expect(all(calls(0, 0), calls(8, 6), calls(30, 24)).rows.outcome).toBe('supported');
    const flat = all(calls(4, 2), calls(4, 2), calls(4, 2)).rows.outcome as string;
    expect(flat).toMatch(/^not supported \(effect: at 10×, .* needs ≥ 20 with the lower bound > 0; trend: /);
    // A jump between 3× and 10× is still non-decreasing; a dip at 3× fails the trend alone.
    const jump = all(calls(0, 0), calls(0, 0), calls(30, 24)).rows.outcome as string;
    expect(jump).toBe('supported');
    const dip = all(calls(12, 12), calls(0, 0), calls(30, 24)).rows.outcome as string;
    expect(dip).toMatch(/^not supported \(trend: 1× \+30\.0 ≤ 3× \+0\.0 ≤ 10× \+60\.0/);
  });
});
