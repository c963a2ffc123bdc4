/**
 * MCP budgets (issue 32 item 7) against a server that misbehaves within the protocol (testing/hostile-server.ts),
 * with scaled caps: a tools/list that paginates for ever stops at maxTools or maxListPages with one line; a result
 * over maxMessageBytes is cut while it streams in and comes back as a tool error at once, the HTTP connection still
 * usable (over stdio the server is stopped, and said so); a
 * tool whose schema is an array is skipped alone, in one line. (The full-size case — 450 MB — is measured by hand:
 * pipeline/node/README.md, Reliability.)
 */
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectOptions, type McpConnection, connectMcp } from './client.ts';
import { connectMcpTools } from './run-tools.ts';
import { ROOT } from '../testing/cli-child.ts';
import { type HostileOptions, serveHostile } from './testing/hostile-server.ts';

const servers: Server[] = [];
afterAll(() => servers.forEach((s) => s.close()));
async function hostile(options: HostileOptions): Promise<string> {
  const { url, server } = await serveHostile(options);
  servers.push(server);
  return url;
}
async function connected(url: string, budgets: ConnectOptions['budgets']): Promise<McpConnection> {
  const c = await connectMcp(url, { timeoutMs: 20_000, budgets });
  if ('error' in c) throw new Error(c.error);
  return c;
}

describe('a tools/list that paginates for ever', () => {
  let url: string;
  beforeAll(async () => {
    url = await hostile({ mode: 'paginate', perPage: 100 });
  });

  it('stops at maxTools: the first tools kept, the breach counted', async () => {
    const c = await connected(url, { maxTools: 150, maxListPages: 1000 });
    expect(c.tools).toHaveLength(150);
    expect(c.tools.at(-1)!.name).toBe('Tool_1_49');
    expect(c.breaches).toEqual({ tools: 1 });
    await c.close();
  });

  it('stops at maxListPages', async () => {
    const c = await connected(url, { maxTools: 1_000_000, maxListPages: 3 });
    expect(c.tools).toHaveLength(300);
    expect(c.breaches).toEqual({ pages: 1 });
    await c.close();
  });

  it('in a run: one line, the cut recorded for config.json, the kept tools usable', async () => {
    const lines: string[] = [];
    const mcp = await connectMcpTools([url], [], (line) => lines.push(line), { budgets: { maxTools: 20 } });
    expect(lines).toEqual([`--mcp ${JSON.stringify(url)}: more than 20 tools (budget maxTools): the first 20 are used`]);
    expect(mcp.specs).toHaveLength(20);
    expect(mcp.servers[0]).toMatchObject({ cut: 'more than 20 tools (budget maxTools): the first 20 are used' });
    await mcp.close();
    expect(lines).toHaveLength(1);
  });
});

describe('a result larger than maxMessageBytes', () => {
  it('is cut as it streams in: a tool error, counted, one line at the end; the next call is answered', async () => {
    const url = await hostile({ mode: 'huge', bytes: 8_000_000 });
    const lines: string[] = [];
    const mcp = await connectMcpTools([url], [], (line) => lines.push(line), { budgets: { maxMessageBytes: 64 * 1024 } });
    const echo = mcp.specs[0].create({} as never).run;
    const signal = new AbortController().signal;
    const first = await echo('alpha', { signal } as never);
    expect(first).toEqual({ ok: false, error: 'MCP Echo: result over 65536 bytes (budget maxMessageBytes): cut' });
    expect(await echo('beta', { signal } as never)).toEqual(first);
    expect(lines).toEqual([]);
    await mcp.close();
    expect(lines).toEqual([`--mcp ${JSON.stringify(url)}: budget breaches in this run: 2 messages over maxMessageBytes cut (tool_error in calls.jsonl)`]);
  });

  it('over stdio: the call fails at once as cut (not at its timeout), and the stopped server is named on the next call', async () => {
    const huge = `${process.execPath} --import tsx pipeline/node/mcp/testing/fixture-server.ts --mode huge`;
    const c = await connectMcp(huge, { cwd: ROOT, timeoutMs: 30_000, budgets: { maxMessageBytes: 64 * 1024, maxCallMs: 600_000 } });
    if ('error' in c) throw new Error(c.error);
    const first = await c.call('WordCount', { text: 'hello world' }, { timeoutMs: 600_000 });
    expect(first).toEqual({ ok: false, error: 'MCP WordCount: result over 65536 bytes (budget maxMessageBytes): cut; the stdio server was stopped (a line cut in the middle leaves its stream unreadable)' });
    expect(c.breaches).toEqual({ 'message-bytes': 1 });
    expect(await c.call('WordCount', { text: 'again' }, { timeoutMs: 600_000 })).toMatchObject({ ok: false, error: expect.stringMatching(/^MCP server has exited/) });
    await c.close();
  }, 120_000);

  it('a result under the cap is read whole', async () => {
    const url = await hostile({ mode: 'huge', bytes: 10_000 });
    const c = await connected(url, { maxMessageBytes: 64 * 1024 });
    expect(await c.call('Echo', { word: 'alpha' }, { timeoutMs: 20_000 })).toEqual({ ok: true, value: 'a'.repeat(10_000) });
    expect(c.breaches).toEqual({});
    await c.close();
  });
});

describe('one tool with inputSchema.type "array"', () => {
  it('is skipped alone, in one line; the server and its other tool stay', async () => {
    const url = await hostile({ mode: 'array-schema' });
    const lines: string[] = [];
    const mcp = await connectMcpTools([url], [], (line) => lines.push(line));
    expect(mcp.specs.map((s) => s.name)).toEqual(['WordCount']);
    expect(lines).toEqual([`--mcp ${JSON.stringify(url)}: tool "Bad" skipped: its inputSchema is not an object schema (type "array")`]);
    expect(mcp.servers[0].skipped).toEqual([{ tool: 'Bad', error: 'its inputSchema is not an object schema (type "array")' }]);
    await mcp.close();
  });
});

describe('a call over its time', () => {
  it('is stopped at maxCallMs (the shorter of it and the executor timeout), counted, one line at the end', async () => {
    const hang = `${process.execPath} --import tsx pipeline/node/mcp/testing/fixture-server.ts --mode hang`;
    const c = await connectMcp(hang, { cwd: ROOT, timeoutMs: 30_000, budgets: { maxCallMs: 300 } });
    if ('error' in c) throw new Error(c.error);
    expect(await c.call('WordCount', { text: 'hello world' }, { timeoutMs: 60_000 })).toMatchObject({ ok: false, error: expect.stringMatching(/^MCP WordCount: no answer within 300 ms/) });
    expect(c.breaches).toEqual({ 'call-time': 1 });
    await c.close();
  }, 60_000);
});
