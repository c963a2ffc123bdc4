import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../testing/cli-child.ts';
import { TEST_CAP_MS, waitUntil } from '../testing/progress.ts';
import { FairGate, fairHost } from './fair-gate.ts';
import { type HttpOptions, serveHttp } from './http.ts';
import { type ToolHost, createMcpServer } from './server.ts';

/**
 * MCP under many and hostile clients (issue 23): sessions of clients that just drop the connection (the SDK
 * client's close() sends no DELETE) must not fill the table; one client's slow calls must not hold every executor
 * slot; a non-loopback bind needs a token; a 10 MB stdio line is a logged error. No clock: idleness is read from a
 * fake `now`, busy sessions are held by calls that wait on a promise.
 */
const BIN = `${ROOT}/pipeline/node/bin.mjs`;

/** A host with one tool, "Echo"; `hold` makes each call wait for `release()`. */
function echoHost(hold = false) {
  const waiting: (() => void)[] = [];
  const host: ToolHost = {
    tools: [{ name: 'Echo', description: 'echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
    async call(_name, args) {
      if (hold) await new Promise<void>((r) => waiting.push(r));
      return { kind: 'result', ok: true, value: String(args.text ?? '') };
    },
  };
  return { host, waiting, release: () => waiting.splice(0).forEach((r) => r()) };
}

async function serve(host: ToolHost, options: Partial<HttpOptions>) {
  return serveHttp(() => createMcpServer(host, { name: 'test', version: '0' }), { port: 0, ...options });
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'many', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('MCP over HTTP: sessions', () => {
  it('100 clients in a row, each connecting and closing without DELETE: all served (cap 32)', async () => {
    const handle = await serve(echoHost().host, {});
    try {
      const served: string[] = [];
      for (let i = 0; i < 100; i++) {
        const client = await connect(handle.url);
        const result = await client.callTool({ name: 'Echo', arguments: { text: `client ${i}` } });
        served.push((result.content as { text: string }[])[0].text);
        await client.close();
        expect(handle.sessionCount()).toBeLessThanOrEqual(32);
      }
      expect(served).toEqual(Array.from({ length: 100 }, (_, i) => `client ${i}`));
    } finally {
      await handle.close();
    }
  }, 120_000);

  it('idle sessions are closed after idleMs (fake clock)', async () => {
    let now = 0;
    const handle = await serve(echoHost().host, { idleMs: 60_000, now: () => now });
    try {
      for (let i = 0; i < 3; i++) await (await connect(handle.url)).close();
      expect(handle.sessionCount()).toBe(3);
      now = 59_999;
      expect(await handle.closeIdle()).toBe(0);
      now = 60_000;
      expect(await handle.closeIdle()).toBe(3);
      expect(handle.sessionCount()).toBe(0);
    } finally {
      await handle.close();
    }
  });

  it('at the cap, the oldest idle session is evicted; only when all are busy is initialize refused (503)', async () => {
    let now = 0;
    const { host, waiting, release } = echoHost(true);
    const handle = await serve(host, { maxSessions: 2, now: () => now });
    try {
      const a = await connect(handle.url);
      now = 1;
      const b = await connect(handle.url);
      // Both busy: a call each, waiting on the host.
      const calls = [a, b].map((c) => c.callTool({ name: 'Echo', arguments: { text: 'x' } }));
      await waitUntil(() => waiting.length >= 2, () => String(waiting.length), { what: 'both calls to reach the host' });
      await expect(connect(handle.url)).rejects.toThrow(/503|Too many open sessions/);
      release();
      await Promise.all(calls);
      // Now idle: a third client evicts the oldest (a) and is served.
      now = 2;
      const c = await connect(handle.url);
      expect(handle.sessionCount()).toBe(2);
      await expect(a.listTools()).rejects.toThrow(/404|Session not found/);
      expect((await b.listTools()).tools.map((t) => t.name)).toEqual(['Echo']);
      await Promise.all([a, b, c].map((x) => x.close()));
    } finally {
      release();
      await handle.close();
    }
  });
});

describe('FairGate: one client cannot hold every slot', () => {
  it("a client's slow calls leave a slot free; waiting clients take turns", async () => {
    const gate = new FairGate(4);
    const started: string[] = [];
    const finish = new Map<string, () => void>();
    const call = (client: string, n: number) =>
      gate.run(client, () => {
        started.push(`${client}${n}`);
        return new Promise<void>((done) => finish.set(`${client}${n}`, done));
      });
    const slow = Array.from({ length: 10 }, (_, i) => call('A', i));
    await Promise.resolve();
    expect(gate.runningBy('A')).toBe(3); // 4 slots, at most 3 for one client
    const b = call('B', 0);
    const c = call('C', 0);
    await Promise.resolve();
    expect(started).toEqual(['A0', 'A1', 'A2', 'B0']); // B got the free slot at once; C waits
    finish.get('B0')!();
    await b;
    await new Promise((r) => setImmediate(r));
    expect(started.at(-1)).toBe('C0'); // C before A's fourth call: turns, not arrival order
    finish.get('A0')!();
    await new Promise((r) => setImmediate(r));
    expect(started.at(-1)).toBe('A3');
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setImmediate(r));
      finish.get(`A${i}`)?.();
    }
    finish.get('C0')!();
    await Promise.all([...slow, c]);
    expect(started.filter((s) => s.startsWith('A'))).toHaveLength(10);
  });

  it('fairHost passes calls through the gate', async () => {
    const gate = new FairGate(2);
    const host = fairHost(echoHost().host, gate, 'client-1');
    expect(await host.call('Echo', { text: 'hi' }, new AbortController().signal)).toEqual({ kind: 'result', ok: true, value: 'hi' });
  });
});

describe('toolformer mcp: hostile starts', () => {
  it('--host 0.0.0.0 without a token is refused in one line', async () => {
    const run = await runCli(['mcp', '--http', '0', '--host', '0.0.0.0'], ROOT, { ...process.env, TOOLFORMER_MCP_TOKEN: '' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^toolformer: --host 0\.0\.0\.0 serves other machines: pass --token <secret> \(or set TOOLFORMER_MCP_TOKEN\)[^\n]*\n$/);
  });

  it('--host 0.0.0.0 with an empty --token, or a blank TOOLFORMER_MCP_TOKEN: refused like no token', async () => {
    const empty = await runCli(['mcp', '--http', '0', '--host', '0.0.0.0', '--token', ''], ROOT);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/^toolformer: --token is empty: pass a secret \(or set TOOLFORMER_MCP_TOKEN\)[^\n]*\n$/);
    const blank = await runCli(['mcp', '--http', '0', '--host', '0.0.0.0'], ROOT, { ...process.env, TOOLFORMER_MCP_TOKEN: '  ' });
    expect(blank.code).toBe(1);
    expect(blank.stderr).toMatch(/^toolformer: --host 0\.0\.0\.0 serves other machines: pass --token <secret>[^\n]*\n$/);
  }, TEST_CAP_MS);

  it('a stdio line over 10 MB: logged on stderr, exit 1 (was a silent exit 0)', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: ROOT, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const piece = 'a'.repeat(1 << 20);
    child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"');
    for (let i = 0; i < 11; i++) child.stdin.write(piece);
    child.stdin.on('error', () => {}); // the server may stop reading before all of it
    const code = await exited;
    expect(code).toBe(1);
    expect(stderr).toMatch(/toolformer mcp: ReadBuffer exceeded maximum size of 10485760 bytes\n/);
    expect(stderr).toMatch(/the stdio transport closed after an error, shutting down/);
  }, TEST_CAP_MS);
});
