/**
 * `toolformer mcp` as a real child process, driven by the official SDK's own client: over stdio and over
 * Streamable HTTP. Tool failures are results with isError; unknown tools and bad arguments are JSON-RPC errors;
 * HTTP refuses a missing token (401), a foreign Origin or Host (403) before anything runs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../testing/cli-child.ts';
import { TEST_CAP_MS } from '../testing/progress.ts';
import { servingUrl } from '../testing/serving-url.ts';

const BIN = 'pipeline/node/bin.mjs';
const text = (result: object) => ((result as { content: { text: string }[] }).content).map((c) => c.text).join('');

async function protocolError(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('toolformer mcp over stdio', () => {
  let client: Client;
  let transport: StdioClientTransport;

  beforeAll(async () => {
    transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: ROOT, stderr: 'pipe' });
    client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('initializes: server info and the tools capability', () => {
    expect(client.getServerVersion()?.name).toBe('toolformer');
    expect(client.getServerCapabilities()?.tools).toBeDefined();
  });

  it('tools/list returns the four tools, each with an object schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['Calculator', 'QA', 'Calendar', 'Translate']);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.description).toMatch(/\w/);
    }
    expect(tools.find((t) => t.name === 'Calculator')!.inputSchema).toMatchObject({
      properties: { expression: { type: 'string', minLength: 1 } },
      required: ['expression'],
      additionalProperties: false,
    });
  });

  it('tools/call Calculator 400 / 1400 → 0.29', async () => {
    const result = await client.callTool({ name: 'Calculator', arguments: { expression: '400 / 1400' } });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('0.29');
  });

  it('a calculator expression outside the allowlist is a result with isError: true and a readable message', async () => {
    const result = await client.callTool({ name: 'Calculator', arguments: { expression: 'zeros(10000, 10000)' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/zeros|not allowed|function/i);
  });

  it('a QA question with no answer is a result with isError: true', async () => {
    const result = await client.callTool({ name: 'QA', arguments: { question: 'What is the favourite colour of the moon?' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/answer/i);
  });

  it('an unknown tool is a JSON-RPC error (-32602), not a result', async () => {
    const error = await protocolError(client.callTool({ name: 'Teleport', arguments: {} }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toMatch(/unknown tool "Teleport"/);
  });

  it('arguments that do not match the schema are a JSON-RPC error (-32602)', async () => {
    const missing = await protocolError(client.callTool({ name: 'Calculator', arguments: {} }));
    expect(missing.code).toBe(ErrorCode.InvalidParams);
    expect(missing.message).toMatch(/Calculator: arguments must have required property 'expression'/);
    const wrongType = await protocolError(client.callTool({ name: 'Calculator', arguments: { expression: 42 } }));
    expect(wrongType.message).toMatch(/expression must be string/);
    const extra = await protocolError(client.callTool({ name: 'Calendar', arguments: { date: '2020-01-01' } }));
    expect(extra.message).toMatch(/Calendar: arguments must NOT have additional properties \(date\)/);
  });

  it('Calendar answers for today (UTC)', async () => {
    const result = await client.callTool({ name: 'Calendar', arguments: {} });
    expect(text(result)).toMatch(/^Today is \w+day, \w+ \d{1,2}, \d{4}\.$/);
  });

  it('shuts down when the client closes its stdin (spec lifecycle)', async () => {
    const other = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: ROOT, stderr: 'pipe' });
    const c = new Client({ name: 'closing-client', version: '1.0.0' });
    await c.connect(other);
    const pid = other.pid!;
    let stderr = '';
    other.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Ends the child's stdin and waits for its exit; the SDK sends SIGTERM only if it is still alive after 2 s. What
    // ended it is in its log line, so the test does not depend on how fast a loaded machine lets it exit.
    await c.close();
    expect(alive(pid)).toBe(false);
    expect(stderr).toContain('toolformer mcp: the client closed stdin, shutting down');
    expect(stderr).not.toContain('SIGTERM');
  }, TEST_CAP_MS); // a child's start and exit: bounded by the cap, not the default 60 s (testing/progress.ts)
});

describe('toolformer mcp --http', () => {
  const TOKEN = 'test-token-3f9a';
  let child: ChildProcess;
  let url: string;

  beforeAll(async () => {
    child = spawn(process.execPath, [BIN, 'mcp', '--http', '0'], {
      cwd: ROOT,
      env: { ...process.env, TOOLFORMER_MCP_TOKEN: TOKEN },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    url = await servingUrl(child, 'mcp --http');
  }, TEST_CAP_MS);
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  const connect = async (headers: Record<string, string>) => {
    const client = new Client({ name: 'http-test-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return client;
  };

  it('binds to 127.0.0.1 by default', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('with the token: list, call, a tool error and a protocol error', async () => {
    const client = await connect({ Authorization: `Bearer ${TOKEN}` });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['Calculator', 'QA', 'Calendar', 'Translate']);
      expect(text(await client.callTool({ name: 'Calculator', arguments: { expression: '400 / 1400' } }))).toBe('0.29');
      expect((await client.callTool({ name: 'Calculator', arguments: { expression: '2 +' } })).isError).toBe(true);
      expect((await protocolError(client.callTool({ name: 'Teleport', arguments: {} }))).code).toBe(ErrorCode.InvalidParams);
    } finally {
      await client.close();
    }
  });

  it('a request without the token gets 401 and WWW-Authenticate: Bearer', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } } }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(response.headers.get('mcp-session-id')).toBeNull();
  });

  it('the SDK client with a wrong token cannot connect', async () => {
    await expect(connect({ Authorization: 'Bearer wrong' })).rejects.toThrow(/Unauthorized/);
  });

  it('a foreign Origin gets 403, even with the token', async () => {
    const response = await fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, Origin: 'http://evil.example', 'Content-Type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(403);
    expect(await response.text()).toMatch(/Origin/);
  });

  it('a non-loopback Host header gets 403 (DNS rebinding)', async () => {
    const { port } = new URL(url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { Host: `rebind.example:${port}`, Authorization: `Bearer ${TOKEN}` } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(403);
  });

  it('a request that is not initialize, without a session, is refused (400)', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(400);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
