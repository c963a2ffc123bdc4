/**
 * Test/bench harness, Node side: build the app once and serve it with `vite preview` on 127.0.0.1 and a free port.
 */
import { fileURLToPath } from 'node:url';
import { basename, dirname, resolve } from 'node:path';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { build, createServer, preview, type Plugin, type PreviewServer } from 'vite';

export const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = resolve(webDir, '..');
const configFile = resolve(webDir, 'vite.config.ts');
/** The module the app takes its tool specs from (the registry's list). */
const TOOL_SPECS_MODULE = resolve(webDir, 'src/tool-specs.ts');
/** The worker's extra requests: none in the app; a bench build brings its own (pipeline/bench/bench-build.ts). */
const WORKER_EXTRAS_MODULE = resolve(webDir, 'src/worker-extras.ts');

export interface BuildOptions {
  /** A module exporting `TOOL_SPECS` that the app is built with in place of web/src/tool-specs.ts. */
  toolSpecs?: string;
  /**
   * Where the build goes — a folder of the caller's own. Test files run in parallel and Vite empties its outDir
   * before writing, so a build into a shared folder (web/dist) deletes the files another file's server is serving
   * (CI saw `/` answer 404, and a worker's 'initWasm() failed' when its .wasm vanished).
   */
  outDir: string;
  /**
   * A module exporting `EXTRA_REQUESTS` that the worker is built with in place of web/src/worker-extras.ts (none):
   * the bench build's requests live with the bench (pipeline/bench/bench-build.ts), so the app knows nothing of them.
   */
  workerExtras?: string;
}

/** Resolves imports of `original` (an absolute path) to `replacement`, in the page's and the worker's bundles. */
function replaceModule(original: string, replacement: string): Plugin {
  return {
    name: 'replace-module',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!importer || !source.endsWith(basename(original))) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved?.id === original ? replacement : null;
    },
  };
}

export async function buildApp(options: BuildOptions): Promise<void> {
  const swap = [
    ...(options.toolSpecs ? [replaceModule(TOOL_SPECS_MODULE, resolve(options.toolSpecs))] : []),
    ...(options.workerExtras ? [replaceModule(WORKER_EXTRAS_MODULE, resolve(options.workerExtras))] : []),
  ];
  await build({
    configFile,
    root: webDir,
    logLevel: 'warn',
    plugins: swap,
    worker: { plugins: () => swap },
    build: { outDir: options.outDir },
  });
}

export interface Served {
  url: string;
  close(): Promise<void>;
  /** Bytes the server has written to its sockets so far (headers and bodies, as sent: compressed where it was). */
  bytesSent(): number;
}

/** Count the bytes `server` writes to every connection, closed ones included. */
function countBytes(server: Server): () => number {
  const open = new Set<Socket>();
  let closed = 0;
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => {
      closed += socket.bytesWritten;
      open.delete(socket);
    });
  });
  return () => closed + [...open].reduce((n, s) => n + s.bytesWritten, 0);
}

/** Serve the build in `outDir` (port 0 → the OS picks a free one). */
export async function serveApp(options: Pick<BuildOptions, 'outDir'>): Promise<Served> {
  const server: PreviewServer = await preview({
    configFile,
    root: webDir,
    logLevel: 'warn',
    preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false },
    build: { outDir: options.outDir },
  });
  const address = server.httpServer.address();
  if (!address || typeof address === 'string') throw new Error('preview server has no port');
  const bytesSent = countBytes(server.httpServer as Server);
  return { url: `http://127.0.0.1:${address.port}/`, close: () => server.close(), bytesSent };
}

/**
 * Build the app into out/web-test/dist-<name> (`name`: the test file's own, so no two files share a folder) and
 * serve it.
 */
export async function buildAndServe(name: string, options: Omit<BuildOptions, 'outDir'> = {}): Promise<Served> {
  const outDir = resolve(repoRoot, 'out/web-test', `dist-${name}`);
  await buildApp({ ...options, outDir });
  return serveApp({ outDir });
}

/**
 * The dev server as `npm run web` starts it, on 127.0.0.1 and a free port. `cacheDir`: where Vite keeps its
 * pre-bundled dependencies — an empty directory makes this a fresh clone's first visit (the dependency scan and
 * optimisation happen now, as they do for a new user).
 */
export async function serveDev(cacheDir: string): Promise<Served> {
  const server = await createServer({
    configFile,
    root: webDir,
    cacheDir,
    logLevel: 'warn',
    server: { host: '127.0.0.1', port: 0, strictPort: false, open: false },
  });
  const bytesSent = countBytes(server.httpServer as Server);
  await server.listen();
  const address = server.httpServer?.address();
  if (!address || typeof address === 'string') throw new Error('dev server has no port');
  return { url: `http://127.0.0.1:${address.port}/`, close: () => server.close(), bytesSent };
}
