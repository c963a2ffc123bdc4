import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApertiumEngine } from '../tools/apertium.ts';
import { ROOT } from '../testing/cli-child.ts';
import { DescendantWatch, aliveAfter, killAll } from '../testing/process-tree.ts';
import { TEST_CAP_MS, childProgress, whileProgressing } from '../testing/progress.ts';
import { skipUnlessInstalled } from '../testing/system-requirement.ts';

/**
 * The children a run starts besides its workers end with it (issue 50): a process holding a kept-running Apertium
 * pipeline and three stdio MCP servers — a third party's written with the official SDK (mcp/testing/fixture-server.ts),
 * the same server deaf to the end of its stdin, and `toolformer mcp` — is SIGKILLed; none of its descendants (by pid
 * and start time) is alive after at most 15 s. The pipeline and well-behaved servers end at their stdin's EOF; the deaf
 * one gets SIGTERM as its parent dies (mcp/client.ts starts servers under setpriv --pdeathsig).
 */
const GROUP = 'Apertium pipelines and MCP stdio servers end with their process';
const noApertium = skipUnlessInstalled(GROUP, (await createApertiumEngine()).unavailable);
const watched: DescendantWatch[] = [];
afterEach(() => {
  for (const watch of watched.splice(0)) killAll(watch.stop());
});

describe.skipIf(noApertium)(GROUP, () => {
  it('SIGKILL the process: none of its descendants alive after at most 15 s', async () => {
    const fixture = `${process.execPath} --import tsx pipeline/node/mcp/testing/fixture-server.ts`;
    const servers = [fixture, `${fixture} --mode deaf`, `${process.execPath} pipeline/node/bin.mjs mcp`];
    const holder = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'pipeline/node/testing/holds-children.ts'), ...servers], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const watch = new DescendantWatch(holder.pid!);
    watched.push(watch);
    let said = '';
    holder.stdout.on('data', (d: Buffer) => (said += d));
    holder.stderr.on('data', (d: Buffer) => (said += d));
    const ready = new Promise<void>((done, fail) => {
      holder.stdout.on('data', () => said.includes('ready') && done());
      holder.on('exit', (code) => fail(new Error(`the holder exited (${code}) before it was ready: ${said}`)));
    });
    await whileProgressing(ready, childProgress(holder), { what: 'the holder of an Apertium pipeline and three MCP servers', child: holder, lastWords: () => said });
    const tree = watch.look();
    // The Apertium pipeline (bash and its programs) and both servers, each a process of its own.
    expect(tree.some((p) => p.command.startsWith('bash -c'))).toBe(true);
    // (The holder's own command line names the servers too: a server is a process whose command starts with one.)
    expect(tree.filter((p) => p.command.startsWith(fixture))).toHaveLength(2);
    expect(tree.some((p) => p.command.includes('bin.mjs mcp'))).toBe(true);
    const exited = new Promise((done) => holder.on('exit', done));
    holder.kill('SIGKILL');
    await exited;
    expect(await aliveAfter(watch.stop(), 15_000)).toEqual([]);
  }, TEST_CAP_MS);
});
