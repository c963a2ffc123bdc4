/**
 * No function in pipeline/node is over 80 lines (issue 27): every function-like node with a body (declarations,
 * methods, arrows, function expressions, accessors), counted from its first line to its last by the TypeScript
 * compiler's parser. Test files are left out (a describe block is a list of cases, not a function to split).
 * annotate-command.ts itself stays ≤ 200 lines (issue 27).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 80;
const NODE_DIR = join(import.meta.dirname);
const ROOT = join(NODE_DIR, '../..');

/** Every function in `source` longer than `max` lines: "name (first line): n lines". */
function longFunctions(fileName: string, source: string, max: number): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      const name = (node as ts.FunctionLikeDeclaration).name?.getText(file) ?? `<${ts.SyntaxKind[node.kind]}>`;
      if (last - first + 1 > max) found.push(`${fileName}: ${name} (line ${first}): ${last - first + 1} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const sources = (readdirSync(NODE_DIR, { recursive: true, encoding: 'utf8' }) as string[])
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => join(NODE_DIR, f));

describe('function length in pipeline/node', () => {
  it(`finds the functions over the limit in planted source (a method, an arrow, a declaration)`, () => {
    const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const planted = [
      `export function ok() {\n${body(MAX_LINES)}\n}`,
      `export function tooLong() {\n${body(MAX_LINES + 1)}\n}`,
      `class C {\n  method() {\n${body(MAX_LINES + 1)}\n  }\n}`,
      `const arrow = () => {\n${body(MAX_LINES + 1)}\n};`,
    ].join('\n');
    const found = longFunctions('planted.ts', planted, MAX_LINES);
    expect(found.map((f) => f.replace(/ \(line \d+\)/, ''))).toEqual([
      `planted.ts: tooLong: ${MAX_LINES + 1} lines`,
      `planted.ts: method: ${MAX_LINES + 1} lines`,
      `planted.ts: <ArrowFunction>: ${MAX_LINES + 1} lines`,
    ]);
  });

  it(`has none over ${MAX_LINES} lines`, () => {
    expect(sources.length).toBeGreaterThan(50);
    const found = sources.flatMap((path) => longFunctions(relative(ROOT, path), readFileSync(path, 'utf8'), MAX_LINES));
    expect(found).toEqual([]);
  });

  it('annotate-command.ts, the flags-to-plan-to-loop wiring, stays ≤ 200 lines (the executors live in run-execution.ts)', () => {
    const lines = readFileSync(join(NODE_DIR, 'annotate-command.ts'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(200);
  });
});
