// The toolkens comparison is a pure function of committed files: remade without out/toolkens (TOOLKENS_OUT pointing
// at an empty folder), it equals the committed results/toolkens.json and toolkens.md.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it('results/toolkens.json and .md are remade from the committed outcomes alone', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'toolkens-out-'));
  process.env.TOOLKENS_OUT = empty;
  try {
    const { buildReport, markdown } = await import('./report.ts');
    const results = join(import.meta.dirname, '../results');
    const r = buildReport();
    expect(JSON.parse(JSON.stringify(r))).toEqual(JSON.parse(readFileSync(join(results, 'toolkens.json'), 'utf8')));
    expect(markdown(r)).toBe(readFileSync(join(results, 'toolkens.md'), 'utf8'));
    expect(r.rows.find((x) => x.name === 'toolkens-free')?.seeds).toHaveLength(3);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});
