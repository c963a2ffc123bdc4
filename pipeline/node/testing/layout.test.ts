/**
 * pipeline/node's layout (issue 48): its README's Layout table (top-level entries, ≤ 15; files and tests per folder)
 * matches the folder, and no module of the product (pipeline/node, core, onnx, onnx-export, gguf, io, random,
 * web/src) is unused: every source file is reached from an entry point —
 * a test file anywhere in the repository, or a file package.json names (its bin, the files its scripts run) — through
 * the references one file makes to another: import and export specifiers, dynamic import(), new URL('…',
 * import.meta.url), file names joined to import.meta.dirname (fork and BullMQ entry files such as pool-child.mjs) and
 * repository-relative paths (children started as `tsx pipeline/…`, loader hooks). A workspace's package.json bin is an
 * entry too (npx-bin).
 * A .d.mts counts as used with its .mjs. The graph walk is proved on a planted folder first.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const SOURCE = /\.(ts|mts|mjs|js|tsx|cjs)$/;
const SKIP = new Set(['node_modules', '.git', 'out', 'results', 'dist']);

/** Every source file under `dir` (repository-relative paths from `root`). */
function sourcesUnder(root: string, dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(join(root, at), { withFileTypes: true })) {
      if (SKIP.has(entry.name)) continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && SOURCE.test(entry.name)) found.push(path);
    }
  };
  walk(dir);
  return found;
}

/** A quoted relative path ('./x.ts', '../y/z.mjs'), or a bare file name joined to import.meta.dirname. */
const RELATIVE = /['"`](\.{1,2}\/[^'"`$\n]+)['"`]/g;
const DIRNAME_JOIN = /import\.meta\.dirname,\s*['"`]([\w.-]+\.m?[jt]s)['"`]/g;
/** A repository-relative path (a child started as `tsx pipeline/…/x.ts`, a loader hook passed by path). */
const ROOTED = /['"`]((?:pipeline|web|corpus)\/[\w./-]+\.(?:m?[jt]s|tsx))['"`]/g;

/** The files `file` refers to, repository-relative. */
function references(root: string, file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const out: string[] = [];
  for (const re of [RELATIVE, DIRNAME_JOIN, ROOTED]) {
    for (const m of text.matchAll(re)) {
      const target = re === ROOTED ? m[1] : join(dirname(file), m[1]);
      if (existsSync(join(root, target)) && statSync(join(root, target)).isFile()) out.push(target);
    }
  }
  return out;
}

/** The source files under `dir` (tests aside) that no root reaches through references. */
function unreached(root: string, dir: string, roots: string[]): string[] {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (SOURCE.test(file) || file.endsWith('.html')) queue.push(...references(root, file));
  }
  return sourcesUnder(root, dir)
    .filter((f) => !seen.has(f) && !f.endsWith('.test.ts'))
    .filter((f) => !(f.endsWith('.d.mts') && seen.has(f.replace(/\.d\.mts$/, '.mjs'))));
}

/** The entry points: every test file, the files package.json names (bin, `tsx <file>` in its scripts), workspaces' bins. */
function entryPoints(root: string): string[] {
  const tests = ['pipeline', 'web', 'corpus'].flatMap((d) => sourcesUnder(root, d)).filter((f) => /\.test\.tsx?$/.test(f));
  const pkg = readFileSync(join(root, 'package.json'), 'utf8');
  const named = [...pkg.matchAll(/"((?:pipeline|web|corpus)\/[\w./-]+\.(?:ts|mts|mjs|js))"|tsx ((?:pipeline|web|corpus)\/[\w./-]+\.ts)/g)].map((m) => m[1] ?? m[2]);
  const workspaces = (JSON.parse(pkg) as { workspaces?: string[] }).workspaces ?? [];
  const bins = workspaces.flatMap((w) => {
    const { bin } = JSON.parse(readFileSync(join(root, w, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
    return Object.values(bin ?? {}).map((b) => join(w, b));
  });
  return [...tests, ...named, ...bins, 'web/index.html', 'web/vite.config.ts'].filter((f) => existsSync(join(root, f)));
}

/** The product's folders: what ships (the lab's scripts under bench/, eval/, train/, data/ are entry points themselves). */
const PRODUCT = ['pipeline/node', 'pipeline/core', 'pipeline/onnx', 'pipeline/onnx-export', 'pipeline/gguf', 'pipeline/io', 'pipeline/random', 'web/src'];

describe('every module of the product is used', () => {
  it('finds the module nothing reaches in a planted folder (imports, dynamic imports, URLs, dirname joins)', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'unimported-'));
    try {
      const files: Record<string, string> = {
        'package.json': '{"bin": {"x": "src/bin.mjs"}}',
        'src/bin.mjs': "await import('./cli.ts');\n",
        'src/cli.ts': "import { a } from './lib/a.ts';\nconst w = new URL('./worker.mjs', import.meta.url);\n",
        'src/lib/a.ts': "export const a = join(import.meta.dirname, 'child.mjs');\n",
        'src/lib/child.mjs': '',
        'src/worker.mjs': '',
        'src/worker.d.mts': '',
        'src/lib/only-a-test.ts': '',
        'src/lib/only-a-test.test.ts': "import './only-a-test.ts';\n",
        'src/lib/orphan.ts': "import { a } from './a.ts';\n",
        'src/lib/orphan.d.mts': '',
      };
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(tmp, path)), { recursive: true });
        writeFileSync(join(tmp, path), text);
      }
      const roots = ['src/bin.mjs', 'src/lib/only-a-test.test.ts'];
      expect(unreached(tmp, 'src', roots).sort()).toEqual(['src/lib/orphan.d.mts', 'src/lib/orphan.ts']);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it.each(PRODUCT)('has no source file under %s that no test or package.json entry reaches', (dir) => {
    const roots = entryPoints(ROOT);
    expect(roots).toContain('pipeline/node/bin.mjs');
    expect(sourcesUnder(ROOT, dir).length).toBeGreaterThan(0);
    expect(unreached(ROOT, dir, roots).map((f) => relative(ROOT, join(ROOT, f)))).toEqual([]);
  });
});

/** Every file under `dir`, and how many are tests. */
function fileCounts(dir: string): { files: number; tests: number } {
  const all = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  return { files: all.length, tests: all.filter((e) => e.name.endsWith('.test.ts')).length };
}

/** The README's layout table: entry → files, tests. */
function layoutTable(readme: string): Map<string, { files: number; tests: number }> {
  const rows = [...readme.matchAll(/^\| `([^`]+)` \| (\d+) \| (\d+) \|/gm)];
  return new Map(rows.map((m) => [m[1], { files: Number(m[2]), tests: Number(m[3]) }]));
}

describe("pipeline/node's layout, as its README counts it", () => {
  const NODE = join(ROOT, 'pipeline/node');

  it('reads a planted table, and a count off by one differs', () => {
    const table = layoutTable('| Entry | Files | Tests | What |\n|---|---:|---:|---|\n| `run/` | 41 | 13 | a run |\n| `bin.mjs` | 1 | 0 | entry |\n');
    expect([...table]).toEqual([['run/', { files: 41, tests: 13 }], ['bin.mjs', { files: 1, tests: 0 }]]);
    expect(table.get('run/')).not.toEqual({ files: 40, tests: 13 });
  });

  it('has at most 15 top-level entries, each in the table with its files and tests', () => {
    const entries = readdirSync(NODE, { withFileTypes: true }).map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
    expect(entries.length).toBeLessThanOrEqual(15);
    const actual = Object.fromEntries(entries.map((e) => [e, e.endsWith('/') ? fileCounts(join(NODE, e)) : { files: 1, tests: e.endsWith('.test.ts') ? 1 : 0 }]));
    const table = Object.fromEntries(layoutTable(readFileSync(join(NODE, 'README.md'), 'utf8')));
    // On a difference: the README's Layout table should read as `actual` does.
    expect(table).toEqual(actual);
  });
});
