// Plain-JS answers for the commands whose output is a pure function of this checkout's sources — `--version` and
// `tools [--format openai|mcp]` — so they start without the TypeScript loader (issue 33 §2: tsx's register() is
// ~0.55 of the ~0.7 CPU s a bare `node bin.mjs --version` cost; measured in pipeline/bench/results/start-up.md).
//
// `--version` reads package.json. `tools` prints the output the TypeScript CLI last printed for the same arguments,
// kept in the user's cache directory (probe-cache.ts's, below: start/<checkout>-tools-<format>.json) with a key: the SHA-256 of every source file in the relative-import graph
// of cli.ts, the tool registry and definitions (static imports only: `tools` loads nothing lazily). A source that
// changed, moved or cannot be read gives another key (or none), and the command takes the TypeScript path, which
// prints the fresh output and stores it again. npm packages are not in the key: the definitions are the specs' own
// literals. Written in JavaScript so it runs before any loader; start-cache.d.mts types it for cli.ts.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');

/** The cache directory: TOOLFORMER_CACHE, else $XDG_CACHE_HOME/toolformer, else ~/.cache/toolformer. */
export function toolformerCacheDir(env = process.env) {
  if (env.TOOLFORMER_CACHE) return resolve(env.TOOLFORMER_CACHE);
  return join(resolve(env.XDG_CACHE_HOME || join(homedir(), '.cache')), 'toolformer');
}

/** The sources `tools`' output is made from (repository-relative): the command table and the tool specs. */
const TOOLS_SOURCES = ['pipeline/node/cli/cli.ts', 'pipeline/core/tools/registry.ts', 'pipeline/core/tools/definitions.ts'];

/** A relative specifier of a static `import … from '…'`, `export … from '…'` or `import '…'` (may span lines). */
const RELATIVE_IMPORT = /(?:^|\n)\s*(?:import|export)\s(?:[^'";]*?\sfrom\s)?['"](\.{1,2}\/[^'"]+)['"]/g;

/** SHA-256 (hex) over the path and text of every file in the entries' relative-import graph; null if one is unreadable. */
export function sourceKey(entries = TOOLS_SOURCES) {
  const texts = new Map();
  const todo = entries.map((e) => resolve(ROOT, e));
  try {
    while (todo.length) {
      const file = todo.pop();
      if (texts.has(file)) continue;
      const text = readFileSync(file, 'utf8');
      texts.set(file, text);
      for (const m of text.matchAll(RELATIVE_IMPORT)) todo.push(resolve(dirname(file), m[1]));
    }
  } catch {
    return null;
  }
  const hash = createHash('sha256');
  for (const file of [...texts.keys()].sort()) hash.update(`${file}\0${texts.get(file)}\0`);
  return hash.digest('hex');
}

/** `tools`' format when argv is exactly `tools`, `tools --format X` or `tools --format=X` with X openai or mcp. */
function toolsFormat(argv) {
  if (argv[0] !== 'tools') return null;
  const rest = argv.length === 2 && argv[1].startsWith('--format=') ? ['--format', argv[1].slice('--format='.length)] : argv.slice(1);
  if (rest.length === 0) return 'openai';
  return rest.length === 2 && rest[0] === '--format' && (rest[1] === 'openai' || rest[1] === 'mcp') ? rest[1] : null;
}

/** One file per checkout and format: two clones sharing ~/.cache do not overwrite each other's answer. */
const cacheFile = (format) => join(toolformerCacheDir(), 'start', `${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}-tools-${format}.json`);

/** Stores what `tools --format <format>` printed (cli.ts calls this); a cache that cannot be written is skipped. */
export function rememberToolsOutput(format, output) {
  const key = sourceKey();
  if (!key) return;
  try {
    const file = cacheFile(format);
    mkdirSync(dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify({ key, output }));
    renameSync(partial, file);
  } catch {
    // read-only node_modules, a full disk: the next call takes the TypeScript path again.
  }
}

/** The stored output when its key matches the sources as they are now, else null. */
function storedToolsOutput(format) {
  let entry;
  try {
    entry = JSON.parse(readFileSync(cacheFile(format), 'utf8'));
  } catch {
    return null;
  }
  return typeof entry?.output === 'string' && entry.key === sourceKey() ? entry.output : null;
}

/** Answers argv in plain JS when it can (and returns true); false: run the TypeScript CLI. */
export function answerWithoutLoader(argv) {
  let output = null;
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    output = `${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`;
  } else {
    const format = toolsFormat(argv);
    if (format) output = storedToolsOutput(format);
  }
  if (output === null) return false;
  // `toolformer tools | head`: a reader that stops early ends the output, not the process with a stack trace.
  process.stdout.on('error', (err) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(0);
  });
  process.stdout.write(output);
  return true;
}
