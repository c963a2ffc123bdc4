import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { ROOT } from './cli-child.ts';
import { childProgress, whileProgressing } from './progress.ts';

/**
 * The URL a serving child prints once it listens ("… at http://…"): `toolformer mcp --http` on stderr, `toolformer
 * serve` on stdout. Waited for by the child's progress (progress.ts), not a clock; rejects with its stderr when it
 * exits first.
 */
export function servingUrl(child: ChildProcess, what: string, stream: 'stdout' | 'stderr' = 'stderr'): Promise<string> {
  let said = '';
  let stderr = '';
  const progress = childProgress(child);
  child.stderr!.on('data', (d: Buffer) => (stderr += d));
  const serving = new Promise<string>((done, fail) => {
    child[stream]!.on('data', (d: Buffer) => {
      said += d;
      const m = /at (http:\/\/\S+)/.exec(said);
      if (m) done(m[1]);
    });
    child.on('exit', (code) => fail(new Error(`${what} exited ${code} before serving: ${stderr}`)));
  });
  return whileProgressing(serving, progress, { what, child, lastWords: () => stderr });
}

/**
 * `toolformer serve --model <model> --port <port> --quiet` (port 0: any free one) as a child of the repository root:
 * the child at once (to kill after the test), and its /v1 URL once it serves.
 */
export function startServe(model: string, port = 0): { child: ChildProcess; url: Promise<string> } {
  const bin = resolve(ROOT, 'pipeline/node/bin.mjs');
  const child = spawn(process.execPath, [bin, 'serve', '--model', model, '--port', String(port), '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  return { child, url: servingUrl(child, `toolformer serve --model ${model}`, 'stdout') };
}
