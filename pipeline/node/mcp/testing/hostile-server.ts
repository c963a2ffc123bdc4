/**
 * An MCP server that misbehaves within the protocol, for the budget tests: plain JSON-RPC over HTTP (stateless
 * Streamable HTTP, JSON responses), no SDK, so it can stream what the SDK would not build in memory.
 *
 *   --mode paginate       tools/list answers `--per-page` valid tools (default 100) and a next cursor, for ever
 *   --mode huge           one tool, `Echo` (a string `word`, example "alpha"); tools/call streams a text result of
 *                         `--bytes` bytes (default 5 MB) in 64 KiB writes, waiting for the socket to drain
 *   --mode array-schema   `WordCount` (fits) and `Bad`, whose inputSchema has `type: "array"`
 *
 *   node --import tsx pipeline/node/mcp/testing/hostile-server.ts --mode huge --bytes 471859200   # prints "listening <url>"
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostileOptions {
  mode: 'paginate' | 'huge' | 'array-schema';
  perPage?: number;
  bytes?: number;
}

const ECHO_TOOL = {
  name: 'Echo',
  description: 'Says the word back, at length.',
  inputSchema: { type: 'object', properties: { word: { type: 'string', examples: ['alpha'] } }, required: ['word'] },
};
const WORD_COUNT = {
  name: 'WordCount',
  description: 'Counts the words in a text.',
  inputSchema: { type: 'object', properties: { text: { type: 'string', examples: ['hello world'] } }, required: ['text'] },
};
const BAD = { name: 'Bad', description: 'A schema the SDK rejects.', inputSchema: { type: 'array', items: { type: 'string' } } };

function toolsPage(options: HostileOptions, cursor: unknown): Record<string, unknown> {
  if (options.mode === 'huge') return { tools: [ECHO_TOOL] };
  if (options.mode === 'array-schema') return { tools: [WORD_COUNT, BAD] };
  const page = typeof cursor === 'string' ? Number(cursor.slice(1)) : 0;
  const tools = Array.from({ length: options.perPage ?? 100 }, (_, i) => ({
    name: `Tool_${page}_${i}`,
    description: `Tool ${i} of page ${page}.`,
    inputSchema: { type: 'object', properties: {} },
  }));
  return { tools, nextCursor: `p${page + 1}` };
}

const write = (res: ServerResponse, text: string) => new Promise<void>((resolve) => (res.write(text) ? resolve() : res.once('drain', resolve)));

/** A tools/call answer of `bytes` bytes of text, streamed; stops when the client goes away. */
async function streamHuge(res: ServerResponse, id: unknown, bytes: number): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  await write(res, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`);
  const block = 'a'.repeat(64 * 1024);
  for (let sent = 0; sent < bytes && !res.destroyed; sent += block.length) await write(res, block.slice(0, Math.min(block.length, bytes - sent)));
  if (!res.destroyed) res.end('"}]}}');
}

async function handle(options: HostileOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') return void res.writeHead(405).end();
  let body = '';
  for await (const chunk of req) body += chunk;
  const message = JSON.parse(body) as { id?: unknown; method: string; params?: Record<string, unknown> };
  if (message.id === undefined) return void res.writeHead(202).end(); // a notification
  const reply = (result: unknown) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
  };
  if (message.method === 'initialize') {
    return reply({ protocolVersion: message.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1.0.0' } });
  }
  if (message.method === 'tools/list') return reply(toolsPage(options, message.params?.cursor));
  if (message.method === 'tools/call') {
    if (options.mode === 'huge') return streamHuge(res, message.id, options.bytes ?? 5_000_000);
    return reply({ content: [{ type: 'text', text: '2' }] });
  }
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }));
}

/** Listen on a free loopback port; resolves with the endpoint URL and the server (to close). */
export function serveHostile(options: HostileOptions): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => void handle(options, req, res).catch(() => res.destroy()));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server })));
}

if (process.argv[1] === import.meta.filename) {
  const flag = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const { url } = await serveHostile({ mode: (flag('--mode') ?? 'paginate') as HostileOptions['mode'], perPage: Number(flag('--per-page') ?? 100), bytes: Number(flag('--bytes') ?? 5_000_000) });
  console.error(`listening ${url}`);
}
