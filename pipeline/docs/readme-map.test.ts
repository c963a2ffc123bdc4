/**
 * The READMEs stay maps (issue 27 item 8): README.md at most 160 lines with its code map in the first half (the lab
 * report lives in pipeline/eval/README.md), and pipeline/core/README.md, the core in one page, names every folder
 * of pipeline/core — a new folder in the core comes with its line there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const lines = (file: string) => readFileSync(join(ROOT, file), 'utf8').trimEnd().split('\n');

describe('the READMEs are maps', () => {
  it('README.md: at most 160 lines, the code map starting in the first half', () => {
    const readme = lines('README.md');
    expect(readme.length).toBeLessThanOrEqual(160);
    const codeMap = readme.findIndex((l) => /^## Code map/.test(l));
    expect(codeMap).toBeGreaterThan(0);
    expect(codeMap + 1).toBeLessThanOrEqual(readme.length / 2);
  });

  it('pipeline/core/README.md: one page (≤ 80 lines) that names every folder of the core', () => {
    const core = lines('pipeline/core/README.md');
    expect(core.length).toBeLessThanOrEqual(80);
    const folders = readdirSync(join(ROOT, 'pipeline/core'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.length).toBeGreaterThan(5);
    const text = core.join('\n');
    expect(folders.filter((f) => !text.includes(`\`${f}/`))).toEqual([]);
  });
});
