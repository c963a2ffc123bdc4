import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { oldVsNewLines, type OldVsNew } from './old-vs-new-format.ts';

const RESULTS = join(import.meta.dirname, 'results');
const committed = (name: string) => ({
  json: JSON.parse(readFileSync(join(RESULTS, `old-vs-new-${name}.json`), 'utf8')) as OldVsNew,
  md: readFileSync(join(RESULTS, `old-vs-new-${name}.md`), 'utf8'),
});

describe('oldVsNewLines', () => {
  it('renders a committed result as its committed Markdown (a result without the loss counts has no rows for them)', () => {
    const { json, md } = committed('start-135m-no-prepack');
    expect(json.runs[0].new.callOnlyScored).toBeUndefined();
    expect(oldVsNewLines(json).join('\n') + '\n').toBe(md);
  });

  it('counts the sequences each side scored: one L_a per position, one L_c per call, one L_b per call that got one', () => {
    const { json } = committed('start-135m-no-prepack');
    const run = json.runs[0];
    // The run's own counts (its calls.jsonl files: 567 tool positions, 3,476 calls; every call got an L_b in the old
    // pipeline, 1,982 in the new), added to the result written before the counts existed.
    run.old = { ...run.old, positionsScored: 567, callOnlyScored: 3476 };
    run.new = { ...run.new, positionsScored: 567, callOnlyScored: 1982 };
    const lines = oldVsNewLines(json);
    expect(lines).toContain('| calls with an L_b | 3476 | 1982 | |');
    expect(lines).toContain(`| sequences scored (L_a per position, L_b, L_c) | 7519 | 6025 | ${(7519 / 6025).toFixed(2)}× |`);
  });
});
