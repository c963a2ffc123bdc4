// The toolkens comparison is a pure function of committed files: remade without out/toolkens (TOOLKENS_OUT pointing
// at an empty folder), it equals the committed results/toolkens.json, toolkens.md and toolkens-verdict.md. Its one
// scoring (scoring.ts) on exact small cases.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inlineResults, pickAnswers, splitOf } from './scoring.ts';

describe('toolkens comparison', () => {
  it('results/toolkens.json, .md and the verdict are remade from the committed outcomes alone', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'toolkens-out-'));
    process.env.TOOLKENS_OUT = empty;
    try {
      const { buildReport } = await import('./build-report.ts');
      const { markdown, verdict } = await import('./markdown.ts');
      const results = join(import.meta.dirname, '../results');
      const r = buildReport();
      expect(JSON.parse(JSON.stringify(r))).toEqual(JSON.parse(readFileSync(join(results, 'toolkens.json'), 'utf8')));
      expect(markdown(r)).toBe(readFileSync(join(results, 'toolkens.md'), 'utf8'));
      expect(verdict(r)).toBe(readFileSync(join(results, 'toolkens-verdict.md'), 'utf8'));
      expect(r.rows.find((x) => x.name === 'toolkens-free')?.seeds).toHaveLength(3);
      // The no-model rows are there, and the bias was chosen among the biases run with three seeds.
      expect(r.rows.map((x) => x.name)).toEqual(expect.arrayContaining(['rule-first', 'rule-random', 'oracle']));
      expect(r.rows.find((x) => x.name === 'rule-random')?.seeds).toHaveLength(20);
      expect(r.biasChoice.map((b) => b.bias)).toContain(r.chosenBias);
      expect(r.split.dev + r.split.test).toBe(r.prompts);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('scoring: a call is replaced by its result; the split keeps a subject on one side; the picks', () => {
    expect(inlineResults(' 15%\nPopulation: [QA("What is the capital of Anguilla?") -> The Valley] V')).toBe(' 15%\nPopulation:  The Valley  V');
    expect(inlineResults(' [QA("What is x?") -> ] It was')).toBe('    It was');
    expect(inlineResults(' [Calculator(2 + 3)')).toBe(' '); // an unclosed call has no result
    expect(inlineResults('[Calculator(\\[1\\] + 2) -> 3] ok')).toBe(' 3  ok');
    expect(splitOf({ id: 'capitals/seat/1', subject: 'Algeria' })).toBe(splitOf({ id: 'capitals/label/7', subject: 'Algeria' }));
    expect(pickAnswers('01', 'first', 'p')).toBe(false);
    expect(pickAnswers('01', 'oracle', 'p')).toBe(true);
    expect(pickAnswers('', 'oracle', 'p')).toBe(false);
    const draws = Array.from({ length: 200 }, (_, d) => pickAnswers('01', 'random', 'p', d));
    expect(draws.filter(Boolean).length).toBeGreaterThan(70);
    expect(draws.filter(Boolean).length).toBeLessThan(130);
    expect(pickAnswers('01', 'random', 'p', 3)).toBe(pickAnswers('01', 'random', 'p', 3)); // seeded
  });
});
