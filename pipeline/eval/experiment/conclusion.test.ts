/**
 * The conclusion's words (conclusion.ts reading) for each verdict the levers can take — the committed runs show only
 * one combination, so the others are read here on hand-made rows: no sentence is left with an empty list, a lever
 * that lowers a result is never said to be unmeasured or to raise it, and the model's size is never called the factor
 * left. Then the cuts: a result planted on a cut no code names is read (conclusionSection finds the cuts itself).
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TrialRecord } from '../metrics.ts';
import type { EvalPrompt } from '../tasks.ts';
import { trialsByArm, type ReportPaths } from './cells.ts';
import { conclusionSection, FACTORS, points, reading, type FactorRow, type Verdict } from './conclusion.ts';
import { paths } from './paths.ts';
import { reportedRuns, runName, SEEDS, type Run } from './plan.ts';

const MEASURED = { x: 0.02, y: 0.01, d: 0.01, lo: -0.01, hi: 0.03 };
/** One row of a factor with a verdict; "not measured yet" has no result, as conclusionSection writes it. */
function row(factor: FactorRow['factor'], verdict: Verdict, x = '(a) with tools', seeds: number[] = [...SEEDS], cut = 'p'): FactorRow {
  const ran = verdict !== 'not measured yet' && verdict !== 'not in the plan';
  return { factor, x, y: '(a) with tools', prompts: cut, promptCount: 0, seeds: [ran ? seeds : [], [...SEEDS]], verdict, ...(ran ? { result: MEASURED } : {}) };
}
const implication = (rows: FactorRow[]) => {
  const line = reading(rows).find((l) => l.startsWith('- What it implies'));
  if (!line) throw new Error('no implication line');
  return line;
};

describe('the conclusion in words', () => {
  it('states the pretraining lever as not measured while its runs are missing', () => {
    const text = implication([row(FACTORS.data, 'no measurable effect'), row(FACTORS.pretraining, 'not measured yet')]);
    expect(text).toContain('More annotated finetuning data does not move the results on any cut.');
    expect(text).toContain('Whether a longer-pretrained base moves the results is not measured yet');
  });

  it('names a raising lever with the cuts it raises, and says the model size was never varied, never that it is "the factor left"', () => {
    const raised = implication([row(FACTORS.data, 'no measurable effect'), row(FACTORS.pretraining, 'moves it up', '(a-pt10x) with tools', [...SEEDS], 'cut Q'),
      row(FACTORS.pretraining, 'no measurable effect', '(a-pt10x) with tools', [...SEEDS], 'cut R')]);
    expect(raised).toContain('A longer-pretrained base raises the results on cut Q, with no measurable effect on the other cuts measured.');
    const neither = implication([row(FACTORS.data, 'no measurable effect'), row(FACTORS.pretraining, 'no measurable effect')]);
    expect(neither).toContain('Neither more annotated finetuning data nor a longer-pretrained base raises the results on any cut');
    // "No measurable effect" is not "no effect": the largest gain the intervals leave open is stated.
    expect(neither).toContain(`the largest gain their intervals leave open is ${points(MEASURED.hi)} points`);
    for (const text of [raised, neither]) {
      expect(text).toContain('The model\'s own size was not varied in these runs, so what a larger model would do is not measured.');
      expect(text).not.toMatch(/factor left|expect to need a larger model|real text/);
    }
  });

  it('a lever measured on some of the planned seeds is not yet read as measured', () => {
    expect(SEEDS.length).toBeGreaterThan(1);
    const rows = [row(FACTORS.data, 'no measurable effect'), row(FACTORS.pretraining, 'no measurable effect', '(a-pt10x) with tools', SEEDS.slice(0, -1))];
    const lines = reading(rows);
    expect(lines[2]).toBe(`- Not measured yet: pretraining length, (a-pt10x) with tools on p (so far ${SEEDS.length - 1} of ${SEEDS.length} seeds).`);
    expect(implication(rows)).toContain('Whether a longer-pretrained base moves the results is not measured on every cut and seed yet');
  });

  it('a cut one side is never planned to get is listed as not in the plan, and is neither pending nor measured', () => {
    const unplanned = row(FACTORS.data, 'not in the plan', '(f) with tools', [...SEEDS], 'fresh set');
    const rows = [row(FACTORS.data, 'no measurable effect'), unplanned, row(FACTORS.pretraining, 'no measurable effect', '(a-pt10x) with tools')];
    const lines = reading(rows);
    expect(lines[2]).toBe('- Not measured yet: none.');
    expect(lines[3]).toBe('- Not in the plan (no run of one side gets the cut, so it is not read): finetuning data volume, (f) with tools − (a) with tools on fresh set.');
    expect(implication(rows)).toContain('Neither more annotated finetuning data nor a longer-pretrained base raises the results on any cut');
    // Read as pending instead, the same row holds the data lever back.
    const pending = implication([rows[0], { ...unplanned, verdict: 'not measured yet' }, rows[2]]);
    expect(pending).toContain('Whether more annotated finetuning data moves the results is not measured on every cut and seed yet');
  });

  it('says a lowering lever lowers the results, and never leaves a list empty', () => {
    for (const other of ['not measured yet', 'no measurable effect', 'moves it down'] as Verdict[]) {
      const rows = [row(FACTORS.pretraining, 'moves it down'), row(FACTORS.data, other)];
      const text = implication(rows);
      expect(text).toMatch(other === 'moves it down' ? /More annotated finetuning data and a longer-pretrained base lower the results on p\./ : /A longer-pretrained base lowers the results on p\./);
      expect(text).not.toMatch(/[Ww]hether +moves|[Ww]hether a longer-pretrained base/);
      expect(text).not.toContain('raises the results');
      expect(text).not.toMatch(/ {2}|\( *\)/);
      expect(reading(rows)[0]).toMatch(/^- Moves the results: .*pretraining length/);
    }
  });

  it('names the arms that answer in their training template, and says new phrasings and formats fail, not "real text"', () => {
    const rows = [row(FACTORS.phrasing, 'moves it up', '(e) with tools, positive control'), row(FACTORS.phrasing, 'no measurable effect')];
    expect(implication(rows)).toContain('(e) answers held-out subjects in the template it was finetuned on');
    expect(implication(rows)).toContain('what fails is carrying them to phrasings and formats the finetuning did not show');
  });
});

describe('the conclusion reads every cut the runs have', () => {
  const capital = (i: number): EvalPrompt => ({ id: `capitals/t/${i}`, family: 'capitals', prompt: `P${i}`, answers: ['X'], tool: 'QA', date: '2020-06-15' });
  const prompts = Array.from({ length: 20 }, (_, i) => capital(i));
  const trial = (id: string, family: string, tools: boolean, correct: boolean): TrialRecord => ({ id, family, tools, correct, text: '', calls: [] });
  /** Runs of (a), (f) and (a-pt10x), every seed: the eval set all wrong; optionally a planted set (a-pt10x right on it). */
  function results(planted: boolean): { p: ReportPaths; root: string } {
    const root = mkdtempSync(join(tmpdir(), 'tf-concl-'));
    const p: ReportPaths = { ...paths, out: join(root, 'out'), eval: () => join(root, 'none'), loss: () => join(root, 'none'), model: () => join(root, 'none'), committed: (r) => join(root, 'runs', runName(r)) };
    const runs: Run[] = SEEDS.flatMap((seed) => [{ arm: 'a', seed }, { arm: 'f', seed }, { arm: 'a', seed, base: 'pt10x' }]);
    for (const r of runs) {
      const dir = p.committed(r);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'trials.jsonl'), prompts.map((q) => JSON.stringify(trial(q.id, q.family, true, false))).join('\n') + '\n');
      if (planted) {
        const right = r.base === 'pt10x';
        const rows = Array.from({ length: 30 }, (_, i) => trial(`planted/${i}`, 'planted-family', true, right));
        writeFileSync(join(dir, 'planted-set-trials.jsonl'), rows.map((t) => JSON.stringify(t)).join('\n') + '\n');
      }
    }
    return { p, root };
  }
  const read = (planted: boolean) => {
    const { p, root } = results(planted);
    try {
      return conclusionSection(p, trialsByArm(p, reportedRuns()), prompts);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  };

  it('a result planted on a set no code names becomes a row and moves the reading; without it nothing moves', () => {
    const quiet = read(false);
    expect(quiet.lines.find((l) => l.startsWith('- Moves the results:'))).toBe('- Moves the results: none.');
    expect(quiet.factors.some((f) => f.prompts.includes('planted'))).toBe(false);
    const loud = read(true);
    const planted = loud.factors.filter((f) => f.prompts.includes('planted-set-trials.jsonl'));
    // Both levers are read on the planted cut: pretraining moves it, the data volume does not.
    expect(planted.map((f) => [f.factor, f.x, f.verdict])).toEqual([
      [FACTORS.data, '(f) with tools', 'no measurable effect'],
      [FACTORS.pretraining, '(a-pt10x) with tools', 'moves it up'],
    ]);
    expect(planted[1].promptCount).toBe(30);
    const moves = loud.lines.find((l) => l.startsWith('- Moves the results:'))!;
    expect(moves).toContain('pretraining length, (a-pt10x) with tools − (a) with tools on planted-family, templates (planted-set-trials.jsonl)');
    expect(loud.lines.find((l) => l.startsWith('- What it implies'))).toContain('A longer-pretrained base raises the results on planted-family, templates (planted-set-trials.jsonl)');
  });
});
