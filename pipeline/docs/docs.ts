/**
 * The repository's generated README blocks (blocks.ts) against the committed result files they name.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fillBlocks, findBlocks } from './blocks.ts';
import { renderBlock } from './renderers.ts';

const SKIP = new Set(['node_modules', 'out', '.git', '.cache', 'dist']);

/** Markdown files of the tree under `root`, relative paths, sorted. */
export function markdownFiles(root: string, dir = root): string[] {
  const found: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) found.push(...markdownFiles(root, path));
    else if (e.isFile() && e.name.endsWith('.md')) found.push(relative(root, path));
  }
  return found.sort();
}

export interface DocsFile {
  file: string;
  /** Sources of its blocks. */
  sources: string[];
  current: string;
  /** The text with every block regenerated. */
  generated: string;
}

/** Every Markdown file with at least one generated block; a missing source is an error naming it. */
export function generateDocs(root: string): DocsFile[] {
  const out: DocsFile[] = [];
  for (const file of markdownFiles(root)) {
    const current = readFileSync(join(root, file), 'utf8');
    const blocks = findBlocks(current, file);
    if (!blocks.length) continue;
    const generated = fillBlocks(current, (b) => {
      let source: string;
      try {
        source = readFileSync(join(root, b.source), 'utf8');
      } catch {
        throw new Error(`${file}: the block's source ${b.source} does not exist (run what produces it, or fix the marker)`);
      }
      return renderBlock(b, source);
    }, file);
    out.push({ file, sources: blocks.map((b) => b.source + (b.view ? `#${b.view}` : '')), current, generated });
  }
  return out;
}

/** Regenerate every stale file in place; returns the files written. */
export function writeDocs(root: string): string[] {
  const stale = generateDocs(root).filter((d) => d.generated !== d.current);
  for (const d of stale) writeFileSync(join(root, d.file), d.generated);
  return stale.map((d) => d.file);
}
