/**
 * The catalog stress test (issue 46): one `toolformer mcp --catalog mathjs --http` server, a first client sending 20
 * hostile expressions at once (each of which ended the server with a heap out-of-memory, or froze it for minutes,
 * before: sizes were checked on literals, evaluation ran on the server's own thread), while a second client's plain
 * calls keep answering within their request timeout. Then the server's peak RSS (VmHWM, read before it stops) is
 * bounded, and it exits on SIGTERM within 5 s with hostile calls in flight.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../testing/cli-child.ts';
import { TEST_CAP_MS } from '../testing/progress.ts';
import { servingUrl } from '../testing/serving-url.ts';

const TOKEN = 'stress-token-46';
const text = (result: object) => ((result as { content: { text: string }[] }).content).map((c) => c.text).join('');
const eight = (near: number) => `[${Array.from({ length: 8 }, (_, i) => `${near} - ${2 * i + 1}`).join(', ')}]`;

/** The hostile expressions and their kin: tool, arguments. */
const HOSTILE: [string, string][] = [
  ['zeros', '10^5, 10^5'],
  ['identity', '10^5'],
  ['range', '0, 10^9'],
  ['nthRoots', '1, 1e8'],
  ['ones', '2^14, 2^14'],
  ['random', '[10^4, 10^4]'],
  ['eigs', '[[1, 2], [3, 4]], 0'],
  ['eigs', '[[2, 1], [1, 2]], {precision: 0}'],
  ['isPrime', '2^53 - 111'],
  ['isPrime', eight(2 ** 53)],
  ['zeros', '2^10, 2^10, 2^10'],
  ['ones', '[10^3, 10^3]'],
  ['randomInt', '[2^12, 2^12], 1, 10'],
  ['range', '-(10^7), 10^7, 1'],
  ['factorial', '10^6'],
  ['stirlingS2', '10^4, 5000'],
  ['bellNumbers', '10^4'],
  ['resize', '[1], [10^4, 10^4]'],
  ['nthRoots', '2, 2^30'],
  ['ones', '100, 200'],
];

/** The server's peak resident set, MB (VmHWM), while it runs. */
const peakRssMb = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'stress-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

describe('toolformer mcp --catalog mathjs under 20 hostile expressions', () => {
  let child: ChildProcess;
  let url: string;
  const exited = () => new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));

  beforeAll(async () => {
    child = spawn(process.execPath, ['pipeline/node/bin.mjs', 'mcp', '--catalog', 'mathjs', '--http', '0'], { cwd: ROOT, env: { ...process.env, TOOLFORMER_MCP_TOKEN: TOKEN }, stdio: ['ignore', 'ignore', 'pipe'] });
    url = await servingUrl(child, 'mcp --catalog mathjs --http');
  }, TEST_CAP_MS);
  afterAll(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  it("every hostile call is the tool's own error; the other client's plain calls keep answering; memory bounded", async () => {
    const [hostile, plain] = [await connect(url), await connect(url)];
    try {
      // A warm-up call: the first thread's start (mathjs in a worker) is not what the plain client measures.
      expect(text(await plain.callTool({ name: 'gcd', arguments: { args: '8, 12' } }))).toBe('4');
      const attacks = Promise.all(HOSTILE.map(([name, args]) => hostile.callTool({ name, arguments: { args } }, undefined, { timeout: 120_000 })));
      let settled = false;
      void attacks.finally(() => (settled = true));
      // Plain calls while the attacks run (at least five, and on until they are all answered), each within the
      // request timeout of the executor's per-call limit.
      const answers: string[] = [];
      let slowest = 0;
      for (let i = 0; i < 5 || !settled; i++) {
        const asked = performance.now();
        answers.push(text(await plain.callTool({ name: 'add', arguments: { args: `${i}, 1` } }, undefined, { timeout: 30_000 })));
        slowest = Math.max(slowest, performance.now() - asked);
      }
      expect(answers).toEqual(answers.map((_, i) => String(i + 1)));
      const results = await attacks;
      for (const [i, result] of results.entries()) {
        expect(result.isError, `${HOSTILE[i][0]}(${HOSTILE[i][1]}): ${text(result)}`).toBe(true);
        expect(text(result)).toMatch(/at most|at least|too large|more than \d+ numbers|deadline|memory budget|longer than/);
      }
      const peak = peakRssMb(child.pid!);
      console.log(`catalog stress: ${HOSTILE.length} hostile calls refused; ${answers.length} plain calls meanwhile, slowest ${Math.round(slowest)} ms; server peak RSS ${Math.round(peak)} MB`);
      expect(peak).toBeLessThan(600);
    } finally {
      await Promise.all([hostile.close(), plain.close()]);
    }
  }, TEST_CAP_MS);

  it('exits on SIGTERM within 5 s, hostile calls in flight', async () => {
    const client = await connect(url);
    const inFlight = HOSTILE.map(([name, args]) => client.callTool({ name, arguments: { args } }).catch(() => null));
    const exit = exited();
    const signalled = performance.now();
    child.kill('SIGTERM');
    const { signal } = await exit;
    expect(performance.now() - signalled).toBeLessThan(5000);
    expect(signal).toBeNull();
    await Promise.all(inFlight);
    await client.close().catch(() => {});
  }, TEST_CAP_MS);
});
