/**
 * The repository's generated README blocks (blocks.ts) against the committed result files they name.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fillBlocks, findBlocks } from './blocks.ts';
import { HAND_TYPED_ALLOWED, HAND_TYPED_PENDING, unallowedNumbers } from './measured.ts';
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

/** The READMEs held to the rule: the top one, web/'s, models/' and every README.md under pipeline/. */
const CHECKED_READMES = /^(?:README\.md|web\/README\.md|models\/README\.md|pipeline\/(?:.+\/)?README\.md)$/;

/** A README and its measured numbers typed by hand (measured.ts). */
export interface HandTypedReport extends ReturnType<typeof unallowedNumbers> {
  file: string;
  /** Why the file is not held to the rule yet (HAND_TYPED_PENDING), or undefined. */
  pending?: string;
}

/**
 * Every checked README (CHECKED_READMES) under `root` with its hand-typed measured numbers. The check fails on a file that is not
 * pending and has any, on an allowed phrase that matches none, and on a pending file that has none left.
 */
export function handTypedReadmes(root: string, allowed = HAND_TYPED_ALLOWED, pending = HAND_TYPED_PENDING): HandTypedReport[] {
  const files = markdownFiles(root).filter((f) => CHECKED_READMES.test(f));
  for (const f of [...allowed.map((a) => a.file), ...Object.keys(pending)])
    if (!files.includes(f)) throw new Error(`pipeline/docs/measured.ts names ${f}, which is not a checked README`);
  return files.map((file) => ({ file, pending: pending[file], ...unallowedNumbers(file, readFileSync(join(root, file), 'utf8'), allowed) }));
}

/** The check's complaints, one line each (empty: clean). */
export function handTypedProblems(reports: HandTypedReport[]): string[] {
  return reports.flatMap((r) => [
    ...(r.pending ? [] : r.numbers.map((n) => `${r.file}:${n.line}: "${n.text}" is a measured number typed by hand: generate it from its result file, or remove it`)),
    ...r.staleAllowed.map((a) => `${r.file}: the allowed phrase "${a.phrase}" matches no number: remove it from pipeline/docs/measured.ts`),
    ...(r.pending && !r.numbers.length ? [`${r.file}: no hand-typed number left: remove it from HAND_TYPED_PENDING (pipeline/docs/measured.ts)`] : []),
  ]);
}
