/**
 * Vite plugin: serve the repository's model and corpus files from the app's own origin.
 *
 * - dev and preview: `/models/<name>/…` → `<repo>/models/<name>/…`, `/corpus/sample.jsonl` → `<repo>/corpus/…`,
 *   `/out/<run>/…` → `<repo>/out/<run>/…` and `/out/.runs.json`, the runs with a calls.jsonl (the run viewer's
 *   "Open the last run")
 * - build: copies `models/default/` (and `models/tiny-random/`, used by the tests) and the sample corpus into the
 *   output, so `vite preview` and any static host serve the same paths.
 *
 * Everything the page fetches stays same-origin (no CDN), and every response carries the COOP/COEP/CORP headers that
 * make the page cross-origin isolated (SharedArrayBuffer → multi-threaded WASM).
 */
import { createReadStream, existsSync, statSync, cpSync, mkdirSync, copyFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, normalize, resolve, sep, dirname, basename } from 'node:path';
import type { Connect, Plugin } from 'vite';
import { FILE_LIST } from './src/model-digest.ts';

/** Headers for cross-origin isolation; also sent on the static routes below. */
export const isolationHeaders: Record<string, string> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** URL prefix → directory in the repo. */
export interface Mount {
  prefix: string;
  dir: string;
}

/** What the dev and preview servers serve from the repository: `/models/…` and `/corpus/…`. */
export const repoMounts = (repoRoot: string): Mount[] => [
  { prefix: '/models/', dir: resolve(repoRoot, 'models') },
  { prefix: '/corpus/', dir: resolve(repoRoot, 'corpus') },
  // Runs (the run viewer's "Open the last run"); the servers only, never copied into a build.
  { prefix: '/out/', dir: resolve(repoRoot, 'out') },
];

/** The run list the run viewer reads (src/ui/run-viewer.ts): `/out/.runs.json`. */
export const RUNS_LIST = '.runs.json';

/** `{ runs: [{ path, modified }] }`: every `<run>/calls.jsonl` under `outDir` (one level), newest first. */
export function runList(outDir: string): string {
  const runs = existsSync(outDir)
    ? readdirSync(outDir, { withFileTypes: true }).filter((d) => d.isDirectory() && existsSync(join(outDir, d.name, 'calls.jsonl')))
      .map((d) => ({ path: `${d.name}/calls.jsonl`, modified: statSync(join(outDir, d.name, 'calls.jsonl')).mtimeMs }))
      .sort((a, b) => b.modified - a.modified)
    : [];
  return JSON.stringify({ runs });
}

const MODELS_IN_BUILD = ['default', 'tiny-random', 'toolformer'];
const SAMPLE_CORPUS = 'corpus/sample.jsonl';

const TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.jsonl': 'application/x-ndjson',
  '.onnx': 'application/octet-stream',
  '.md': 'text/markdown; charset=utf-8',
};

function contentType(path: string): string {
  const dot = path.lastIndexOf('.');
  return TYPES[dot >= 0 ? path.slice(dot) : ''] ?? 'application/octet-stream';
}

/**
 * A model folder's FILE_LIST: `{ files: [{ path, size }] }`, every file under it but dotfiles, paths relative to it —
 * what the page hashes to check a toolkens file's model digest (src/model-digest.ts). A folder over HTTP cannot be
 * listed otherwise.
 */
export function fileList(dir: string): string {
  const files: { path: string; size: number }[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel))) {
      if (name.startsWith('.')) continue;
      const path = rel ? `${rel}/${name}` : name;
      const stat = statSync(join(dir, path));
      if (stat.isDirectory()) walk(path);
      else files.push({ path, size: stat.size });
    }
  };
  walk('');
  return JSON.stringify({ files });
}

/** Connect middleware streaming files under the mounts; anything else falls through to Vite. */
function middleware(mounts: Mount[]): Connect.NextHandleFunction {
  return (req, res, next) => {
    const url = decodeURIComponent((req.url ?? '').split('?')[0]);
    const mount = mounts.find((m) => url.startsWith(m.prefix));
    if (!mount) return next();
    const file = normalize(join(mount.dir, url.slice(mount.prefix.length)));
    // Refuse `..` escapes out of the mounted directory.
    if (!file.startsWith(mount.dir + sep) && file !== mount.dir) return next();
    if (mount.prefix === '/out/' && url === `/out/${RUNS_LIST}`) {
      for (const [k, v] of Object.entries(isolationHeaders)) res.setHeader(k, v);
      res.setHeader('Content-Type', 'application/json');
      res.end(runList(mount.dir));
      return;
    }
    const listed = dirname(file);
    if (basename(file) === FILE_LIST && listed.startsWith(mount.dir + sep) && existsSync(listed) && statSync(listed).isDirectory()) {
      for (const [k, v] of Object.entries(isolationHeaders)) res.setHeader(k, v);
      res.setHeader('Content-Type', 'application/json');
      res.end(fileList(listed));
      return;
    }
    if (!existsSync(file) || !statSync(file).isFile()) return next();
    for (const [k, v] of Object.entries(isolationHeaders)) res.setHeader(k, v);
    res.setHeader('Content-Type', contentType(file));
    res.setHeader('Content-Length', statSync(file).size);
    createReadStream(file).pipe(res);
  };
}

export function repoFiles(repoRoot: string): Plugin {
  const mounts = repoMounts(repoRoot);
  let outDir = '';
  return {
    name: 'toolformer-repo-files',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    configureServer(server) {
      server.middlewares.use(middleware(mounts));
    },
    configurePreviewServer(server) {
      server.middlewares.use(middleware(mounts));
    },
    closeBundle() {
      if (!outDir || !existsSync(outDir)) return;
      for (const name of MODELS_IN_BUILD) {
        const src = resolve(repoRoot, 'models', name);
        if (!existsSync(src)) continue;
        cpSync(src, join(outDir, 'models', name), { recursive: true });
        writeFileSync(join(outDir, 'models', name, FILE_LIST), fileList(src));
      }
      const sample = resolve(repoRoot, SAMPLE_CORPUS);
      if (existsSync(sample)) {
        mkdirSync(dirname(join(outDir, SAMPLE_CORPUS)), { recursive: true });
        copyFileSync(sample, join(outDir, SAMPLE_CORPUS));
      }
    },
  };
}
