/**
 * No function in pipeline/ or web/src is over 80 lines (issues 27, 48): every function-like node with a body
 * (declarations, methods, arrows, function expressions, accessors), counted from its first line to its last by the
 * TypeScript compiler's parser. Test files are left out (a describe block is a list of cases, not a function to split).
 * The 14 functions over it when the rule widened to pipeline/ and web/src were split by concept (issue 48), so no
 * function is excepted. annotate-command.ts itself stays ≤ 200 lines (issue 27).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 80;
/** "path: name" of a found long function (its line and length dropped). */
const nameOf = (found: string) => found.replace(/ \(line \d+\): \d+ lines$/, '');
const NODE_DIR = join(import.meta.dirname, '..');
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

/** The folders the rule covers, under the repository root. */
const COVERED = ['pipeline', 'web/src'];

/** Every function over `max` lines in the non-test .ts files under `root`'s COVERED folders, named by path from `root`. */
function longFunctionsUnder(root: string, max: number): { files: number; found: string[] } {
  const paths = COVERED.flatMap((dir) =>
    (readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.split('/').includes('node_modules'))
      .map((f) => join(root, dir, f)),
  );
  return { files: paths.length, found: paths.flatMap((path) => longFunctions(relative(root, path), readFileSync(path, 'utf8'), max)) };
}


describe('function length in pipeline/ and web/src', () => {
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

  it('walks pipeline/core and web/src: a long function planted in each is found, a test file and a short one are not', () => {
    const root = mkdtempSync(join(tmpdir(), 'function-length-'));
    try {
      const body = Array.from({ length: MAX_LINES }, (_, i) => `  const v${i} = ${i};`).join('\n');
      const plant = (path: string, text: string) => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      };
      plant('pipeline/core/generate/planted.ts', `export function coreLong() {\n${body}\n}\nexport const short = () => 1;\n`);
      plant('web/src/ui/planted.ts', `export const webLong = function () {\n${body}\n};\n`);
      plant('web/src/ui/planted.test.ts', `export function inATest() {\n${body}\n}\n`);
      const { files, found } = longFunctionsUnder(root, MAX_LINES);
      expect(files).toBe(2);
      expect(found.map(nameOf)).toEqual(['pipeline/core/generate/planted.ts: coreLong', 'web/src/ui/planted.ts: <FunctionExpression>']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it(`has none over ${MAX_LINES} lines`, () => {
    const { files, found } = longFunctionsUnder(ROOT, MAX_LINES);
    expect(files).toBeGreaterThan(300);
    expect(found).toEqual([]);
  });

  it('annotate-command.ts, the flags-to-plan-to-loop wiring, stays ≤ 200 lines (the executors live in run/executors/registry.ts)', () => {
    const lines = readFileSync(join(NODE_DIR, 'commands/annotate-command.ts'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(200);
  });
});
