/**
 * `toolformer mcp --catalog mathjs` as a real child process, over stdio and over Streamable HTTP (`--http 0`, with a
 * token), listed and called by the official SDK client: ≥ 200 tools, each with an object schema; hostile arguments
 * (a 1 MB string, `import(...)`) come back as results with isError (the tool's own refusal, which the model can read),
 * and the server keeps serving.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../testing/cli-child.ts';
import { TEST_CAP_MS } from '../testing/progress.ts';
import { servingUrl } from '../testing/serving-url.ts';

const text = (result: object) => ((result as { content: { text: string }[] }).content).map((c) => c.text).join('');
const SERVE = ['pipeline/node/bin.mjs', 'mcp', '--catalog', 'mathjs'];
const TOKEN = 'catalog-token-7c1e';

/** Each transport: how the test client reaches the server, and how the server is stopped after. */
const transports: Record<string, () => Promise<{ client: Client; stop: () => void }>> = {
  stdio: async () => {
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: SERVE, cwd: ROOT, stderr: 'pipe' }));
    return { client, stop: () => {} };
  },
  http: async () => {
    const child: ChildProcess = spawn(process.execPath, [...SERVE, '--http', '0'], { cwd: ROOT, env: { ...process.env, TOOLFORMER_MCP_TOKEN: TOKEN }, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      const url = await servingUrl(child, 'mcp --catalog mathjs --http');
      const client = new Client({ name: 'test-client', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
      return { client, stop: () => child.kill('SIGTERM') };
    } catch (error) {
      child.kill('SIGTERM');
      throw error;
    }
  },
};

describe.each(Object.keys(transports))('toolformer mcp --catalog mathjs over %s', (transport) => {
  let client: Client;
  let stop = () => {};

  beforeAll(async () => {
    ({ client, stop } = await transports[transport]());
  }, TEST_CAP_MS);
  afterAll(async () => {
    await client?.close();
    stop();
  });

  it('lists ≥ 200 tools under mathjs names, each with an object schema and a description', async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(200);
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['gcd', 'det', 'stirlingS2', 'to', 'median']));
    expect(tools.map((t) => t.name)).not.toContain('Calculator');
    for (const tool of tools) {
      expect(tool.inputSchema).toMatchObject({ type: 'object', required: ['args'] });
      expect(tool.description).toMatch(/\w/);
    }
  });

  it('runs a call', async () => {
    const result = await client.callTool({ name: 'gcd', arguments: { args: '8, 12' } });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('4');
  });

  it('a 1 MB string and import(...) are isError results, and the server goes on', async () => {
    const huge = await client.callTool({ name: 'sqrt', arguments: { args: 'x'.repeat(1_000_000) } });
    expect(huge.isError).toBe(true);
    expect(text(huge)).toMatch(/longer than/);
    const imported = await client.callTool({ name: 'add', arguments: { args: 'import({}), 1' } });
    expect(imported.isError).toBe(true);
    expect(text(imported)).toMatch(/"import" not allowed/);
    expect(text(await client.callTool({ name: 'sqrt', arguments: { args: '16' } }))).toBe('4');
  });
});
