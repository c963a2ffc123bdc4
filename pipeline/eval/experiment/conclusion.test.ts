/**
 * The conclusion's words (conclusion.ts reading) for each verdict the two levers can take — the committed runs show
 * only one combination, so the others are read here on hand-made rows: no sentence is left with an empty list, and
 * a lever that lowers a result is never said to be unmeasured or to raise it.
 */
import { describe, expect, it } from 'vitest';
import { FACTORS, points, reading, type FactorRow, type Verdict } from './conclusion.ts';
import { SEEDS } from './plan.ts';

const MEASURED = { x: 0.02, y: 0.01, d: 0.01, lo: -0.01, hi: 0.03 };
/** One row of a factor with a verdict; "not measured yet" has no result, as conclusionSection writes it. */
function row(factor: FactorRow['factor'], verdict: Verdict, x = '(a) with tools', seeds: number[] = [...SEEDS]): FactorRow {
  const ran = verdict !== 'not measured yet';
  return { factor, x, y: '(a) with tools', prompts: 'p', seeds: [ran ? seeds : [], [...SEEDS]], verdict, ...(ran ? { result: MEASURED } : {}) };
}
const implication = (rows: FactorRow[]) => {
  const line = reading(rows).find((l) => l.startsWith('- What it implies'));
  if (!line) throw new Error('no implication line');
  return line;
};

describe('the conclusion in words', () => {
  it('states the pretraining lever as not measured while its runs are missing', () => {
    const text = implication([row(FACTORS.data, 'no measurable effect'), row(FACTORS.pretraining, 'not measured yet')]);
    expect(text).toContain('More annotated finetuning data does not move the results.');
    expect(text).toContain('Whether a longer-pretrained base moves the results is not measured yet');
  });

  it('names a raising lever, and the larger-model reading only when neither raises', () => {
    expect(implication([row(FACTORS.data, 'no measurable effect'), row(FACTORS.pretraining, 'moves it up')]))
      .toContain('A longer-pretrained base raises the results, so the model a user needs is this size trained on more');
    const neither = implication([row(FACTORS.data, 'no measurable effect'), row(FACTORS.pretraining, 'no measurable effect')]);
    expect(neither).toContain('Neither more annotated finetuning data nor a longer-pretrained base raises the results');
    expect(neither).toContain('should expect to need a larger model');
    // "No measurable effect" is not "no effect": the largest gain the intervals leave open is stated.
    expect(neither).toContain(`the largest gain their intervals leave open is ${points(MEASURED.hi)} points`);
  });

  it('a lever measured on some of the planned seeds is not yet read as measured', () => {
    expect(SEEDS.length).toBeGreaterThan(1);
    const rows = [row(FACTORS.data, 'no measurable effect'), row(FACTORS.pretraining, 'no measurable effect', '(a-pt10x) with tools', SEEDS.slice(0, -1))];
    const lines = reading(rows);
    expect(lines[2]).toBe(`- Not measured yet: pretraining length (so far ${SEEDS.length - 1} of ${SEEDS.length} seeds).`);
    expect(implication(rows)).toContain('Whether a longer-pretrained base moves the results is not measured on every seed yet');
    expect(implication(rows)).not.toContain('larger model');
  });

  it('says a lowering lever lowers the results, and never leaves a list empty', () => {
    for (const other of ['not measured yet', 'no measurable effect', 'moves it down'] as Verdict[]) {
      const rows = [row(FACTORS.pretraining, 'moves it down'), row(FACTORS.data, other)];
      const text = implication(rows);
      expect(text).toMatch(other === 'moves it down' ? /More annotated finetuning data and a longer-pretrained base lower the results\./ : /A longer-pretrained base lowers the results\./);
      expect(text).not.toMatch(/[Ww]hether +moves|[Ww]hether a longer-pretrained base/);
      expect(text).not.toContain('raises the results, so');
      expect(text).not.toMatch(/ {2}|\( *\)/);
      expect(reading(rows)[0]).toMatch(/^- Moves the results: .*pretraining length/);
    }
  });

  it('names the arms that answer in their training template', () => {
    const rows = [row(FACTORS.phrasing, 'moves it up', '(e) with tools, positive control'), row(FACTORS.phrasing, 'no measurable effect')];
    expect(implication(rows)).toContain('(e) answers held-out subjects in the template it was finetuned on');
  });
});
