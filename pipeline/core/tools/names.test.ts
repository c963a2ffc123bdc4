import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOL_NAMES } from './registry.ts';

/**
 * The registry is the only list of tools: outside pipeline/core/tools/ and test code (*.test.ts, testing/ fixtures,
 * web/e2e/), no source names a tool — code reads names from the specs. Comments may name tools; data files
 * (.jsonl, labels) may too.
 */
const root = resolve(import.meta.dirname, '../../..');
// The toolkens report prints its tables per tool by name.
const EXCLUDED = ['pipeline/core/tools/', 'web/e2e/', 'web/dist/', 'pipeline/eval/toolkens/'];

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'testing' ? [] : sources(path);
    return /\.(ts|mjs)$/.test(e.name) && !e.name.endsWith('.test.ts') ? [path] : [];
  }).filter((p) => !EXCLUDED.some((x) => p.startsWith(x)));
}

/** The code of a file without its comments (block comments, and line comments not inside a URL). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:\\])\/\/.*$/gm, '$1');

describe('tool names', () => {
  it('appear in no source outside the tools’ folders and tests', () => {
    const files = ['pipeline', 'web', 'corpus'].flatMap(sources);
    expect(files.length).toBeGreaterThan(50);
    const named = files.flatMap((file) => {
      const text = code(readFileSync(join(root, file), 'utf8'));
      return TOOL_NAMES.filter((name) => new RegExp(`\\b${name}\\b`).test(text)).map((name) => `${relative('.', file)}: ${name}`);
    });
    expect(named).toEqual([]);
  });
});
