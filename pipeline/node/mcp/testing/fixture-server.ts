/**
 * A small third-party MCP server for tests, written with the same official SDK: two tools the project does not have,
 * `UnitConvert` ("26.2 miles in km" → "42.16 km") and `WordCount` ("hello world" → "2"), over stdio (default) or Streamable HTTP (`--http <port>`; the
 * URL is printed on stderr as `listening <url>`).
 *
 * `--mode` makes it misbehave the ways a real server can: `hang` (answers initialize and tools/list, never
 * tools/call), `garbage` (writes non-JSON on stdout and exits), `crash` (exits 3 before saying anything), `huge`
 * (WordCount answers 2 MB of text: one message over a client's maxMessageBytes), `deaf` (over stdio, does not end at
 * the end of its stdin: only a signal stops it).
 *
 *   node --import tsx pipeline/node/mcp/testing/fixture-server.ts [--http 0] [--mode ok|hang|garbage|crash|huge]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

/** Factor to the unit's base (metre, kilogram, litre); temperatures are converted apart. */
const UNITS: Record<string, { kind: string; factor: number; name: string }> = {};
const unit = (kind: string, factor: number, name: string, ...aliases: string[]) => {
  for (const alias of [name, ...aliases]) UNITS[alias] = { kind, factor, name };
};
unit('length', 1000, 'km', 'kilometre', 'kilometres', 'kilometer', 'kilometers');
unit('length', 1, 'm', 'metre', 'metres', 'meter', 'meters');
unit('length', 0.01, 'cm', 'centimetre', 'centimetres', 'centimeter', 'centimeters');
unit('length', 1609.344, 'miles', 'mi', 'mile');
unit('length', 0.3048, 'feet', 'ft', 'foot');
unit('length', 0.0254, 'inches', 'in', 'inch');
unit('mass', 1, 'kg', 'kilogram', 'kilograms');
unit('mass', 0.001, 'g', 'gram', 'grams');
unit('mass', 0.45359237, 'pounds', 'lb', 'lbs', 'pound');
unit('mass', 907.18474, 'tons', 'ton', 'short ton');
unit('volume', 3.785411784, 'gallons', 'gallon', 'gal');
unit('volume', 1, 'litres', 'l', 'litre', 'liter', 'liters');
unit('temperature', 1, 'F', '°F', 'fahrenheit');
unit('temperature', 1, 'C', '°C', 'celsius');

/** `<number> <unit> in|to <unit>` → "<value rounded to 2 decimals> <unit>", or an error message. */
export function convert(query: string): { ok: true; value: string } | { ok: false; error: string } {
  const match = /^\s*(-?[\d,]*\.?\d+)\s*([a-z°][a-z° ]*?)\s+(?:in|to|into)\s+([a-z°][a-z° ]*?)\s*$/i.exec(query);
  if (!match) return { ok: false, error: 'expected "<number> <unit> in <unit>", e.g. "26.2 miles in km"' };
  const amount = Number(match[1].replace(/,/g, ''));
  const [from, to] = [UNITS[match[2].toLowerCase()] ?? UNITS[match[2]], UNITS[match[3].toLowerCase()] ?? UNITS[match[3]]];
  if (!from) return { ok: false, error: `unknown unit "${match[2]}"` };
  if (!to) return { ok: false, error: `unknown unit "${match[3]}"` };
  if (from.kind !== to.kind) return { ok: false, error: `cannot convert ${from.kind} to ${to.kind}` };
  let value: number;
  if (from.kind === 'temperature') {
    const celsius = from.name === 'C' ? amount : ((amount - 32) * 5) / 9;
    value = to.name === 'C' ? celsius : (celsius * 9) / 5 + 32;
  } else value = (amount * from.factor) / to.factor;
  const shown = Math.round(value * 100) / 100;
  return { ok: true, value: `${shown.toLocaleString('en-US', { maximumFractionDigits: 2 })} ${to.name}` };
}

export const FIXTURE_TOOL = {
  name: 'UnitConvert',
  description: 'Converts a quantity between units of length, mass, volume or temperature.',
  inputSchema: {
    type: 'object' as const,
    properties: {
      query: {
        type: 'string',
        description: 'a number, its unit, "in", and the target unit',
        maxLength: 60,
        examples: ['26.2 miles in km', '100 pounds in kg'],
      },
    },
    required: ['query'],
    additionalProperties: false,
  },
};

/** Words (letter/digit runs) in a text. */
export const countWords = (text: string) => String(text.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu)?.length ?? 0);

export const WORD_COUNT_TOOL = {
  name: 'WordCount',
  description: 'Counts the words in a text.',
  inputSchema: {
    type: 'object' as const,
    properties: { text: { type: 'string', description: 'the text whose words are counted', maxLength: 200, examples: ['hello world'] } },
    required: ['text'],
  },
};

function fixtureServer(mode: string): Server {
  const server = new Server({ name: 'fixture-tools', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [FIXTURE_TOOL, WORD_COUNT_TOOL] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    if (mode === 'hang') await new Promise(() => undefined);
    if (name === WORD_COUNT_TOOL.name) {
      if (mode === 'huge') return { content: [{ type: 'text', text: 'a'.repeat(2_000_000) }] };
      if (typeof args?.text !== 'string') throw new McpError(ErrorCode.InvalidParams, 'text must be a string');
      return { content: [{ type: 'text', text: countWords(args.text) }] };
    }
    if (name !== FIXTURE_TOOL.name) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const query = args?.query;
    if (typeof query !== 'string') throw new McpError(ErrorCode.InvalidParams, 'query must be a string');
    const result = convert(query);
    return result.ok
      ? { content: [{ type: 'text', text: result.value }] }
      : { content: [{ type: 'text', text: result.error }], isError: true };
  });
  return server;
}

async function main(argv: string[]): Promise<void> {
  const flag = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const mode = flag('--mode') ?? 'ok';
  if (mode === 'crash') process.exit(3);
  if (mode === 'garbage') {
    process.stdout.write('this is not JSON-RPC\n{"jsonrpc": 7}\n');
    process.exit(0);
  }
  const port = flag('--http');
  if (port === undefined) {
    await fixtureServer(mode).connect(new StdioServerTransport());
    if (mode === 'deaf') setInterval(() => {}, 1 << 30);
    else process.stdin.once('end', () => process.exit(0));
    return;
  }
  // Stateless Streamable HTTP: a fresh server and transport per POST (the SDK's stateless pattern).
  const http = createServer(async (req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const server = fixtureServer(mode);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(Number(port), '127.0.0.1', () => {
    console.error(`listening http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
  });
}

if (process.argv[1] === import.meta.filename) await main(process.argv.slice(2));
