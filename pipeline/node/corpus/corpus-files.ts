/**
 * The one list of corpus files: which paths the reader reads (read-corpus.ts) and the input fingerprint hashes
 * (input-digest.ts), in the same order, so the two can never disagree.
 *
 * Inputs are walked in order; a directory recursively, entries sorted by code unit at each level. Symbolic links are
 * followed — to files and to directories — with loop detection: a directory whose real path is already on the walk
 * (an ancestor) is a `symlink-loop`, one already walked elsewhere is `already-listed`, and so is a file reached a
 * second time (same device and inode), so every file is read once. Only regular files are listed: a FIFO, socket or
 * device (a link to /dev/zero named x.jsonl) would hang or never end — skipped and reported, named or walked. Inside a directory, hidden entries and names
 * of no corpus kind are skipped; every skip is reported with its reason, so nothing disappears without a record. A
 * path named as an input that cannot be read is an error instead (the user asked for it).
 *
 * Each file carries `idBase`: its path relative to the inputs' common root ("a/part.jsonl" for shards/a/part.jsonl
 * with the input `shards`, or with the inputs shards/a/part.jsonl shards/b/part.jsonl), `/`-separated — the base of
 * the ids of records without one, distinct for distinct files and the same on every run with the same inputs.
 */
import { type Stats, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export type SkipReason =
  | 'hidden' // a name starting with "." inside a directory
  | 'other-kind' // a name of no corpus kind inside a directory
  | 'not-a-regular-file' // a FIFO, socket or device, named as an input or found inside a directory
  | 'symlink-loop' // a link to a directory that is being walked (an ancestor)
  | 'already-listed'; // a file or directory reached a second time (another link, or named twice)

export type ListErrorCode = 'missing-path' | 'unreadable' | 'unsupported-extension';

export type Listed =
  | { kind: 'file'; path: string; suffix: string; idBase: string }
  | { kind: 'skipped'; path: string; reason: SkipReason }
  | { kind: 'error'; path: string; code: ListErrorCode; reason: string };

/**
 * Every file, skip and error for `inputs`, in reading order. `suffixes`: the corpus file kinds by name ending
 * (".jsonl", ".txt"; matched case-insensitively, the longest first, so ".jsonl.gz" can sit beside ".jsonl").
 */
export function* listCorpusFiles(inputs: readonly string[], suffixes: readonly string[]): Generator<Listed> {
  const walk = new CorpusWalk(suffixes, commonRoot(inputs));
  for (const input of inputs) yield* walk.input(input);
}

/** One listing's walk: the corpus kinds, the common root for ids, and what was listed already (loops, repeats). */
class CorpusWalk {
  private readonly bySuffix: string[];
  private readonly kindList: string;
  /** Files (device:inode) and directories (real paths) listed so far. */
  private readonly seenFiles = new Set<string>();
  private readonly seenDirs = new Set<string>();

  constructor(suffixes: readonly string[], private readonly root: string) {
    this.bySuffix = [...suffixes].sort((a, b) => b.length - a.length);
    this.kindList = suffixes.length > 1 ? `${suffixes.slice(0, -1).join(', ')} or ${suffixes.at(-1)}` : suffixes.join('');
  }

  private kindOf(name: string): string | undefined {
    return this.bySuffix.find((s) => name.toLowerCase().endsWith(s));
  }

  /** A path named as an input: a directory walked, a file listed, an error when it cannot be read. */
  *input(input: string): Generator<Listed> {
    let st: Stats;
    try {
      st = statSync(input);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // A dangling symlink exists (lstat would see it) but cannot be followed: unreadable, not missing.
      const dangling = code === 'ENOENT' && existsAsLink(input);
      yield code === 'ENOENT' && !dangling
        ? { kind: 'error', path: input, code: 'missing-path', reason: 'no such file or directory' }
        : { kind: 'error', path: input, code: 'unreadable', reason: `cannot stat: ${message(e)}` };
      return;
    }
    if (st.isDirectory()) yield* this.enterDir(input, new Set());
    else yield* this.fileEntry(input, st, true);
  }

  private *walk(dir: string, ancestors: Set<string>): Generator<Listed> {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (e) {
      yield { kind: 'error', path: dir, code: 'unreadable', reason: `cannot list directory: ${message(e)}` };
      return;
    }
    names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)); // code-unit order, not locale order: the same everywhere
    for (const name of names) {
      const path = join(dir, name);
      if (name.startsWith('.')) {
        yield { kind: 'skipped', path, reason: 'hidden' };
        continue;
      }
      let st: Stats;
      try {
        st = statSync(path); // follows links
      } catch (e) {
        // A dangling link, or a file gone or unreadable since the listing: the reader would have failed on it.
        if (this.kindOf(name)) yield { kind: 'error', path, code: 'unreadable', reason: `cannot stat: ${message(e)}` };
        else yield { kind: 'skipped', path, reason: 'other-kind' };
        continue;
      }
      if (st.isDirectory()) yield* this.enterDir(path, ancestors);
      else yield* this.fileEntry(path, st, false);
    }
  }

  private *enterDir(dir: string, ancestors: Set<string>): Generator<Listed> {
    let real: string;
    try {
      real = realpathSync(dir);
    } catch (e) {
      yield { kind: 'error', path: dir, code: 'unreadable', reason: `cannot resolve: ${message(e)}` };
      return;
    }
    if (ancestors.has(real)) {
      yield { kind: 'skipped', path: dir, reason: 'symlink-loop' };
      return;
    }
    if (this.seenDirs.has(real)) {
      yield { kind: 'skipped', path: dir, reason: 'already-listed' };
      return;
    }
    this.seenDirs.add(real);
    yield* this.walk(dir, new Set([...ancestors, real]));
  }

  private *fileEntry(path: string, st: Stats, named: boolean): Generator<Listed> {
    // A FIFO, socket or device, named or found (/dev/zero, a FIFO called x.jsonl): reading it could block or never
    // end. Skipped, named and counted like any skip, whatever its name says.
    if (!st.isFile()) {
      yield { kind: 'skipped', path, reason: 'not-a-regular-file' };
      return;
    }
    const suffix = this.kindOf(path);
    if (!suffix) {
      if (named) yield { kind: 'error', path, code: 'unsupported-extension', reason: `not ${this.kindList}: ${extension(path)}` };
      else yield { kind: 'skipped', path, reason: 'other-kind' };
      return;
    }
    const identity = `${st.dev}:${st.ino}`;
    if (this.seenFiles.has(identity)) {
      yield { kind: 'skipped', path, reason: 'already-listed' };
      return;
    }
    this.seenFiles.add(identity);
    yield { kind: 'file', path, suffix, idBase: relative(this.root, resolve(path)).split(sep).join('/') };
  }
}

/** The deepest directory holding every input (a file input counts by its directory). */
function commonRoot(inputs: readonly string[]): string {
  const dirs = inputs.map((p) => {
    const abs = resolve(p);
    try {
      return statSync(abs).isDirectory() ? abs : dirname(abs);
    } catch {
      return dirname(abs);
    }
  });
  if (dirs.length === 0) return resolve('.');
  let root = dirs[0];
  for (const d of dirs.slice(1)) while (!(d === root || d.startsWith(root.endsWith(sep) ? root : root + sep))) root = dirname(root);
  return root;
}

function existsAsLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function extension(path: string): string {
  const name = path.split(sep).pop() ?? path;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot) : '(none)';
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Skips counted by reason, with the first few paths of each: what stats.json and the stderr line report. */
export interface SkippedFiles {
  [reason: string]: { count: number; first: string[] };
}

const FIRST = 5;

export function summarizeSkips(listed: Iterable<Listed>): SkippedFiles {
  const out: SkippedFiles = {};
  for (const item of listed) {
    if (item.kind !== 'skipped') continue;
    const entry = (out[item.reason] ??= { count: 0, first: [] });
    entry.count++;
    if (entry.first.length < FIRST) entry.first.push(item.path);
  }
  return out;
}

/** One line for stderr: "skipped 3 input files: 2 hidden (a/.x, a/.y), 1 other-kind (a/notes.md)"; '' for none. */
export function skipLine(skips: SkippedFiles): string {
  const parts = Object.entries(skips).map(([reason, { count, first }]) => `${count} ${reason} (${first.join(', ')}${count > first.length ? ', …' : ''})`);
  const total = Object.values(skips).reduce((n, s) => n + s.count, 0);
  return total === 0 ? '' : `toolformer: skipped ${total} input path${total === 1 ? '' : 's'}: ${parts.join('; ')}`;
}
