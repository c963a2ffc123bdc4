/**
 * A third-party MCP server as seen by an annotate run: start it (a command over stdio, or an http(s) URL over
 * Streamable HTTP), list its tools, call them. Everything that can go wrong with someone else's server — it does
 * not start, never answers, writes garbage, dies mid-run, returns content that is not text — comes back as an
 * error value with the server's name in it, never as an exception through the pipeline.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
export interface RemoteTool {
  name: string;
  description: string;
  /** As the server sent it (the SDK checks `type: "object"`); read with care, it is a third party's. */
  inputSchema: { type: 'object'; properties?: Record<string, unknown>; required?: unknown; [key: string]: unknown };
}

export type RemoteResult = { ok: true; value: string } | { ok: false; error: string };

export interface McpConnection {
  /** The `--mcp` value as given: a command line or a URL. */
  readonly server: string;
  readonly tools: readonly RemoteTool[];
  call(name: string, args: Record<string, unknown>, options: { timeoutMs: number; signal?: AbortSignal }): Promise<RemoteResult>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** initialize + tools/list, milliseconds. @default 30000 */
  timeoutMs?: number;
  /** Working directory of a command. @default process.cwd() */
  cwd?: string;
  /** Extra environment for a command (on top of the SDK's safe default: HOME, PATH, …). */
  env?: Record<string, string>;
  /** Headers for a URL (e.g. Authorization). */
  headers?: Record<string, string>;
}

const isUrl = (target: string) => /^https?:\/\//i.test(target);

/** Characters of a server's stderr kept for error messages. */
const STDERR_TAIL = 2000;

/**
 * Connect to `target` and list its tools. Resolves to the connection, or to `{ error }` naming the server and what
 * went wrong (never rejects).
 */
export async function connectMcp(target: string, options: ConnectOptions = {}): Promise<McpConnection | { server: string; error: string }> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  let stderr = '';
  let transport: Transport;
  if (isUrl(target)) {
    transport = new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers: options.headers ?? {} } });
  } else {
    const argv = splitCommand(target);
    if (!argv.ok) return { server: target, error: `cannot read the command: ${argv.error}` };
    if (argv.words.length === 0) return { server: target, error: 'empty command' };
    const stdio = new StdioClientTransport({
      command: argv.words[0],
      args: argv.words.slice(1),
      cwd: options.cwd,
      env: { ...getDefaultEnvironment(), ...options.env },
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-STDERR_TAIL)));
    transport = stdio;
  }
  const client = new Client({ name: 'toolformer', version: '0.1.0' });
  let closed = false;
  client.onclose = () => (closed = true);
  const why = (error: unknown, ms: number) => {
    const tail = stderr.trim().split('\n').slice(-3).join(' | ');
    const text = message(error).replace(/^Request timed out$/, `no answer within ${ms} ms`);
    return `${text}${tail ? ` (stderr: ${tail})` : ''}`;
  };
  let tools: RemoteTool[];
  try {
    await client.connect(transport, { timeout: timeoutMs });
    tools = await listAll(client, timeoutMs);
  } catch (error) {
    await client.close().catch(() => undefined);
    return { server: target, error: `MCP server did not start: ${why(error, timeoutMs)}` };
  }

  return {
    server: target,
    tools,
    async call(name, args, { timeoutMs: callTimeout, signal }) {
      if (closed) return { ok: false, error: why('MCP server has exited', 0) };
      try {
        const result = await client.callTool({ name, arguments: args }, undefined, { timeout: callTimeout, signal });
        return textResult(result);
      } catch (error) {
        return { ok: false, error: `MCP ${name}: ${why(error, callTimeout)}` };
      }
    },
    close: () => client.close(),
  };
}

/** tools/list, following `nextCursor` (at most 20 pages); each tool checked to have a name and an object schema. */
async function listAll(client: Client, timeoutMs: number): Promise<RemoteTool[]> {
  const tools: RemoteTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const listed = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    for (const t of listed.tools) {
      tools.push({ name: t.name, description: t.description ?? t.title ?? '', inputSchema: t.inputSchema });
    }
    cursor = listed.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** A tools/call result as one string: its text parts joined; `isError` → an error value with the server's message. */
function textResult(result: Record<string, unknown>): RemoteResult {
  const content = result.content;
  if (!Array.isArray(content)) return { ok: false, error: 'MCP result without content' };
  const texts = content.filter((c): c is { type: 'text'; text: string } => c?.type === 'text' && typeof c.text === 'string').map((c) => c.text);
  if (texts.length === 0) {
    const kinds = [...new Set(content.map((c) => String(c?.type)))].join(', ') || 'nothing';
    return { ok: false, error: `MCP result has no text content (${kinds})` };
  }
  const text = texts.join('\n').trim();
  if (result.isError === true) return { ok: false, error: text.slice(0, 500) || 'MCP tool error' };
  return { ok: true, value: text };
}

function message(error: unknown): string {
  if (error instanceof Error) return error.message.replace(/^MCP error -?\d+: /, '');
  return String(error);
}

/**
 * Split a command line into words the way a POSIX shell would for plain words, single and double quotes and
 * backslashes — and nothing else: no variables, globs, pipes or redirections (the command is never run by a shell).
 */
export function splitCommand(line: string): { ok: true; words: string[] } | { ok: false; error: string } {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else word += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i];
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= '';
    } else if (ch === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + ch;
  }
  if (quote) return { ok: false, error: `unclosed ${quote}` };
  if (word !== undefined) words.push(word);
  return { ok: true, words };
}
