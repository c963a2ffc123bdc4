import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../testing/cli-child.ts';
import { TEST_CAP_MS, childProgress, whileProgressing } from '../testing/progress.ts';
import { DescendantWatch, aliveAfter, killAll } from '../testing/process-tree.ts';

/**
 * SIGINT or SIGTERM to the `npx toolformer` wrapper stops the command it runs (issue 33 §4): npm forwards the signal
 * to its child only, so that child must be node itself — `.npmrc`'s `script-shell=bash` (bash execs a lone command;
 * dash, Debian's sh, waits for node and never passes the signal on). Shown on `mcp --http`, which runs until stopped.
 * A SIGKILLed npx relays nothing: node watches its parent (bin.mjs) and ends itself. After each signal none of npx's
 * descendants is alive (by pid, testing/process-tree.ts).
 */
async function stopsOn(signal: NodeJS.Signals): Promise<void> {
  const npx = spawn('npx', ['toolformer', 'mcp', '--http', '0'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const watch = new DescendantWatch(npx.pid!);
  const exited = new Promise<void>((done) => npx.on('exit', () => done()));
  // Waits for the server's own line, bounded by the child's progress (testing/progress.ts), not by a clock.
  let stderr = '';
  npx.stderr.on('data', (d: Buffer) => (stderr += d));
  const serving = new Promise<string>((done, fail) => {
    npx.stderr.on('data', () => {
      const m = /serving .* at (http:\S+)/.exec(stderr);
      if (m) done(m[1]);
    });
    npx.on('exit', (code) => fail(new Error(`npx exited (${code}) before serving: ${stderr}`)));
  });
  const url = await whileProgressing(serving, childProgress(npx), { what: 'npx toolformer mcp --http', child: npx, lastWords: () => stderr });
  expect((await fetch(url, { method: 'GET' }).catch((e: Error) => e)) instanceof Error).toBe(false);
  const tree = watch.look();
  try {
    npx.kill(signal);
    await exited;
    // SIGKILL reaches npm alone (it cannot relay it): its node child sees its parent go and ends itself (issue 50).
    expect(await aliveAfter(tree, 15_000)).toEqual([]);
    // The server went with it: nothing answers on its port any more.
    await expect(fetch(url, { method: 'GET' })).rejects.toThrow();
  } finally {
    killAll(watch.stop());
  }
}

describe('signals through the npx wrapper', () => {
  it('SIGINT to npx stops mcp --http', () => stopsOn('SIGINT'), TEST_CAP_MS);
  it('SIGTERM to npx stops mcp --http', () => stopsOn('SIGTERM'), TEST_CAP_MS);
  it('SIGKILL to npx: its node child is gone within 15 s, mcp --http stopped', () => stopsOn('SIGKILL'), TEST_CAP_MS);
});
