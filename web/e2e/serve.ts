/**
 * Test/bench harness, Node side: build the app once and serve it with `vite preview` on 127.0.0.1 and a free port.
 */
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { build, preview, type PreviewServer } from 'vite';

export const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = resolve(webDir, '..');
const configFile = resolve(webDir, 'vite.config.ts');

export async function buildApp(): Promise<void> {
  await build({ configFile, root: webDir, logLevel: 'warn' });
}

export interface Served {
  url: string;
  close(): Promise<void>;
}

/** Serve web/dist (port 0 → the OS picks a free one). */
export async function serveApp(): Promise<Served> {
  const server: PreviewServer = await preview({
    configFile,
    root: webDir,
    logLevel: 'warn',
    preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false },
  });
  const address = server.httpServer.address();
  if (!address || typeof address === 'string') throw new Error('preview server has no port');
  return { url: `http://127.0.0.1:${address.port}/`, close: () => server.close() };
}
