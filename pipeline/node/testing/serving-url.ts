import type { ChildProcess } from 'node:child_process';
import { childProgress, whileProgressing } from './progress.ts';

/**
 * The URL a `toolformer mcp --http` child prints once it listens ("… serving … at http://…/mcp" on stderr), waited for
 * by the child's progress (progress.ts), not a clock; rejects with its stderr when it exits first.
 */
export function servingUrl(child: ChildProcess, what: string): Promise<string> {
  let stderr = '';
  const progress = childProgress(child);
  const serving = new Promise<string>((done, fail) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d;
      const m = /at (http:\/\/\S+)/.exec(stderr);
      if (m) done(m[1]);
    });
    child.on('exit', (code) => fail(new Error(`${what} exited ${code} before serving: ${stderr}`)));
  });
  return whileProgressing(serving, progress, { what, child, lastWords: () => stderr });
}
