/**
 * The reader rule (issue 46 item 1): product code under pipeline/ opens files through io/bounded-read.ts (a type
 * check on the open descriptor, then a size or line cap, one line naming the file), never by calling readFileSync,
 * readFile, createReadStream or readline itself — but for the exceptions below, each named with its reason. The
 * check can fail: a fixture tree plants a readFileSync in product code and it must be reported.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Whole folders left out, and why: none of them reads a user's input. */
const EXEMPT_FOLDERS: Readonly<Record<string, string>> = {
  'pipeline/bench/': "measurement scripts: they read the project's own models, result files and made-up inputs",
  'pipeline/docs/': "`npm run docs`: reads the committed READMEs and result files it renders",
  'pipeline/data/': 'builds pipeline/data/kb.json from installed packages',
  'pipeline/eval/': "evaluation and experiment scripts: read the committed prompts, runs and results they report",
};

/** Files allowed a direct read, and why. A file here that no longer reads directly fails the test (no stale entries). */
const EXEMPT_FILES: Readonly<Record<string, string>> = {
  'pipeline/node/corpus/read-corpus.ts': 'the corpus reader itself: streams files corpus-files.ts listed as regular, under its record cap and LineSplitter',
  'pipeline/node/corpus/corpus-formats/compressed.ts': "the corpus reader's .gz/.zst streams: files listed as regular, decoded in bounded steps",
  'pipeline/node/corpus/corpus-formats/fixtures.ts': 'the committed format fixtures (corpus-formats/testdata) for the tests',
  'pipeline/node/cli/cli.ts': "the project's own package.json (its version)",
  'pipeline/node/mcp/mcp-command.ts': "the project's own package.json (the server's version)",
  'pipeline/node/system/package-versions.ts': "the project's own package.json and its dependencies' (config.json's versions)",
  'pipeline/node/cli/start-cache.mjs': "the project's own sources and package.json, and its start cache, before any loader",
  'pipeline/node/tools/parts.ts': 'the bundled knowledge base, pipeline/data/kb.json',
  'pipeline/node/tools/retrieval.ts': 'the bundled tool expansions, pipeline/data/tool-expansions.json',
  'pipeline/node/model/lm-backends/llama-cpp-score.ts': "the bundled corpus sample, the project's own corpus/sample.jsonl",
  'pipeline/node/model/cpu-int8.ts': '/proc/cpuinfo',
  'pipeline/node/system/long-argv.ts': 'its own argument file, on a descriptor it inherited from its parent',
  'pipeline/train/arena.ts': "the project's own WebAssembly kernels",
  'pipeline/train/export-checkpoint.ts': 'a script: the base model named in its source',
  'pipeline/onnx-export/replicas.ts': 'writes test replicas of the bundled tiny model (onnx/ imports nothing of io/)',
  'pipeline/onnx-export/quantize.ts': 'a script run by hand on a model folder (onnx/ imports nothing of io/)',
};

/** A direct read: the call or import, outside comments. */
const DIRECT_READ = /\b(readFileSync|readFile|createReadStream)\b|['"](node:)?readline['"]/;

/** `file: line` for each direct read in product files under `root`/pipeline not exempt. */
function directReads(root: string): string[] {
  const found: string[] = [];
  for (const file of productFiles(root)) {
    if (Object.keys(EXEMPT_FOLDERS).some((folder) => file.startsWith(folder)) || Object.hasOwn(EXEMPT_FILES, file)) continue;
    readFileSync(join(root, file), 'utf8').split('\n').forEach((line, i) => {
      if (DIRECT_READ.test(codeOf(line))) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 100)}`);
    });
  }
  return found;
}

/** The line without a `//` comment, and nothing of a `*` comment line. */
const codeOf = (line: string) => (/^\s*(\*|\/\*|\/\/)/.test(line) ? '' : line.replace(/\s\/\/.*$/, ''));

/** Source files under pipeline/ that are not tests or test helpers (`*.test.ts`, `testing/`). */
function productFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir)).sort()) {
      const rel = `${dir}/${name}`;
      if (statSync(join(root, rel)).isDirectory()) {
        if (name !== 'node_modules' && name !== 'testing' && name !== 'results') walk(rel);
      } else if (/\.(ts|mts|mjs|js)$/.test(name) && !/\.test\.ts$/.test(name)) out.push(rel);
    }
  };
  walk('pipeline');
  return out;
}

describe('every file a command opens goes through io/bounded-read.ts', () => {
  it('product code under pipeline/ reads no file directly, but for the named exceptions', () => {
    expect(directReads(ROOT)).toEqual([]);
  });

  it('every exempt file still reads directly (an entry whose reason is gone is removed)', () => {
    const stale = Object.keys(EXEMPT_FILES).filter((file) => !readFileSync(join(ROOT, file), 'utf8').split('\n').some((l) => DIRECT_READ.test(codeOf(l))));
    expect(stale).toEqual([]);
  });

  const tmp = mkdtempSync(join(tmpdir(), 'reads-rule-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const plant = (files: Record<string, string>) => {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(tmp, path)), { recursive: true });
      writeFileSync(join(tmp, path), text);
    }
  };

  it('fails on a planted readFileSync, createReadStream or readline in product code; not in tests, comments or exempt files', () => {
    plant({
      'pipeline/node/planted.ts': "import { readFileSync } from 'node:fs';\nexport const s = readFileSync('x', 'utf8');\n",
      'pipeline/train/streams.ts': "import { createReadStream } from 'node:fs';\nexport const s = createReadStream('x');\n",
      'pipeline/node/lines.ts': "import { createInterface } from 'node:readline';\nexport const i = createInterface;\n",
      'pipeline/node/planted.test.ts': "import { readFileSync } from 'node:fs';\nexport const t = readFileSync;\n",
      'pipeline/node/testing/helper.ts': "import { readFileSync } from 'node:fs';\nexport const h = readFileSync;\n",
      'pipeline/node/commented.ts': '/**\n * readFileSync refuses files over 2 GiB.\n */\nexport const c = 1; // not readFile\n',
      'pipeline/node/cli/cli.ts': "import { readFileSync } from 'node:fs';\nexport const v = readFileSync('package.json');\n",
      'pipeline/bench/measure.ts': "import { readFileSync } from 'node:fs';\nexport const m = readFileSync;\n",
    });
    expect(directReads(tmp).map((f) => relative('', f.split(':')[0]))).toEqual([
      'pipeline/node/lines.ts',
      'pipeline/node/planted.ts',
      'pipeline/node/planted.ts',
      'pipeline/train/streams.ts',
      'pipeline/train/streams.ts',
    ]);
  });
});
