/**
 * A third-party MCP server as seen by an annotate run: start it (a command over stdio, or an http(s) URL over
 * Streamable HTTP), list its tools, call them. Everything that can go wrong with someone else's server — it does
 * not start, never answers, writes garbage, dies mid-run, returns content that is not text, a tool with a schema
 * the SDK would reject — comes back as an error value with the server's name in it, never as an exception through
 * the pipeline.
 *
 * Nothing from a server reaches memory unbounded (McpBudgets): listing stops at `maxTools` tools or `maxListPages`
 * pages; every message is counted as it streams in and cut past `maxMessageBytes` (over HTTP the response body is
 * cancelled; over stdio the SDK's line buffer is capped at the same size); a call runs at most `maxCallMs`. Each
 * breach is counted per kind (`breaches`) and reported by run-tools.ts: one line when it first happens, a count at
 * the end.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';

/** What a run accepts from one MCP server; config values (ConnectOptions.budgets), defaults below. */
export interface McpBudgets {
  /** Tools kept per server: tools/list stops there. @default 64 */
  maxTools: number;
  /** tools/list pages read per server (a server may paginate for ever). @default 20 */
  maxListPages: number;
  /** Bytes of one message from the server (a tools/list page, a tools/call result), counted as they arrive. @default 1 MiB */
  maxMessageBytes: number;
  /** Milliseconds one tools/call may run (the executor's --tool-timeout also applies; the shorter wins). @default 60000 */
  maxCallMs: number;
}

export const DEFAULT_MCP_BUDGETS: McpBudgets = { maxTools: 64, maxListPages: 20, maxMessageBytes: 1 << 20, maxCallMs: 60_000 };

/** Budget breaches of one connection, by kind: how many so far. */
export type McpBreach = 'tools' | 'pages' | 'message-bytes' | 'call-time';
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
  /** Tools of the listing left out, and why (a schema that is not an object, no name). */
  readonly skipped?: readonly { tool: string; error: string }[];
  /** Budget breaches so far, by kind (listing cuts are counted at connect). */
  readonly breaches?: Readonly<Partial<Record<McpBreach, number>>>;
  /** One line per kind of breach when it first happens (set by run-tools.ts before any call). */
  onBreach?: (kind: McpBreach, line: string) => void;
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
  /** What the run accepts from the server. @default DEFAULT_MCP_BUDGETS */
  budgets?: Partial<McpBudgets>;
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
  const budgets = { ...DEFAULT_MCP_BUDGETS, ...options.budgets };
  const breaches = new BreachCounter();
  const overBytes = `a message over ${budgets.maxMessageBytes} bytes (budget maxMessageBytes): cut`;
  const stderr = { tail: '' };
  const opened = openTransport(target, options, budgets.maxMessageBytes, () => breaches.add('message-bytes', overBytes), stderr);
  if (!opened.ok) return { server: target, error: opened.error };
  const transport = opened.transport;
  const client = new Client({ name: 'toolformer', version: '0.1.0' });
  let closed = false;
  client.onclose = () => (closed = true);
  // Over stdio, a line past maxMessageBytes makes the SDK's transport drop its buffer and stop the server (the rest of
  // that line could not be told from the next message): the call in flight then ends as "Connection closed".
  let cutAndStopped = false;
  client.onerror = (error) => {
    // Counted once: the rest of the message, still arriving while the server stops, overflows the buffer again.
    if (!/ReadBuffer exceeded maximum size/.test(message(error)) || cutAndStopped) return;
    breaches.add('message-bytes', overBytes);
    cutAndStopped = true;
  };
  const why = (error: unknown, ms: number) => {
    const tail = stderr.tail.trim().split('\n').slice(-3).join(' | ');
    const text = message(error).replace(/^Request timed out$/, `no answer within ${ms} ms`);
    return `${text}${tail ? ` (stderr: ${tail})` : ''}`;
  };
  let listing: Listing;
  try {
    await client.connect(transport, { timeout: timeoutMs });
    listing = await listAll(client, timeoutMs, budgets);
  } catch (error) {
    await client.close().catch(() => undefined);
    return { server: target, error: `MCP server did not start: ${why(error, timeoutMs)}` };
  }
  if (listing.cut) breaches.counts[listing.cut.kind] = 1;

  return {
    server: target,
    tools: listing.tools,
    skipped: listing.skipped,
    breaches: breaches.counts,
    get onBreach() {
      return breaches.onBreach;
    },
    set onBreach(f) {
      breaches.onBreach = f;
      if (listing.cut) f?.(listing.cut.kind, listing.cut.line);
    },
    async call(name, args, { timeoutMs: callTimeout, signal }) {
      if (closed) return { ok: false, error: why('MCP server has exited', 0) };
      const ms = Math.min(callTimeout, budgets.maxCallMs);
      try {
        const result = await client.callTool({ name, arguments: args }, undefined, { timeout: ms, signal });
        return textResult(result);
      } catch (error) {
        const text = why(error, ms);
        const cut = `MCP ${name}: result over ${budgets.maxMessageBytes} bytes (budget maxMessageBytes): cut`;
        if (error instanceof MessageTooLarge || /^a message over \d+ bytes$/.test(message(error))) return { ok: false, error: cut };
        if (cutAndStopped) return { ok: false, error: `${cut}; the stdio server was stopped (a line cut in the middle leaves its stream unreadable)` };
        if (/no answer within/.test(text) || signal?.aborted) breaches.add('call-time', `a call ran over ${ms} ms (budget maxCallMs / --tool-timeout): stopped`);
        return { ok: false, error: `MCP ${name}: ${text}` };
      }
    },
    close: () => client.close(),
  };
}

/** Budget breaches of one connection: counted per kind, the first of each kind reported through `onBreach`. */
class BreachCounter {
  readonly counts: Partial<Record<McpBreach, number>> = {};
  onBreach: McpConnection['onBreach'];

  add(kind: McpBreach, line: string): void {
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
    if (this.counts[kind] === 1) this.onBreach?.(kind, line);
  }
}

/**
 * The transport to `target`: Streamable HTTP for a URL (response bodies capped at `maxMessageBytes`, `onCut` per
 * cut), else the command over stdio, run without a shell (the SDK's line buffer capped the same; the last
 * STDERR_TAIL characters of its stderr kept in `stderr.tail` for error messages).
 */
function openTransport(
  target: string,
  options: ConnectOptions,
  maxMessageBytes: number,
  onCut: () => void,
  stderr: { tail: string },
): { ok: true; transport: Transport } | { ok: false; error: string } {
  if (isUrl(target)) {
    return {
      ok: true,
      transport: new StreamableHTTPClientTransport(new URL(target), {
        requestInit: { headers: options.headers ?? {} },
        fetch: cappedFetch(maxMessageBytes, onCut),
      }),
    };
  }
  const argv = splitCommand(target);
  if (!argv.ok) return { ok: false, error: `cannot read the command: ${argv.error}` };
  if (argv.words.length === 0) return { ok: false, error: 'empty command' };
  const [command, ...args] = withParentDeathSignal(argv.words);
  const stdio = new StdioClientTransport({
    command,
    args,
    cwd: options.cwd,
    env: { ...getDefaultEnvironment(), ...options.env },
    stderr: 'pipe',
    // The SDK's line buffer: a longer line is never held; the transport drops it and stops the server (see onerror).
    ...{ maxBufferSize: maxMessageBytes },
  });
  stdio.stderr?.on('data', (d: Buffer) => (stderr.tail = (stderr.tail + d.toString()).slice(-STDERR_TAIL)));
  return { ok: true, transport: stdio };
}

/** util-linux's setpriv (Linux): sets the parent-death signal, then execs the command (no process of its own). */
const SETPRIV = '/usr/bin/setpriv';

/**
 * The server's command line, run so that it gets SIGTERM when this process dies, even by SIGKILL (issue 50): a server
 * that ignores the end of its stdin (the spec's first shutdown step) then does not outlive the run. Where setpriv is
 * missing (not Linux) or the command is not found (its error stays the one the spawn gives), the words as they are.
 */
function withParentDeathSignal(words: string[]): string[] {
  if (process.platform !== 'linux' || !isExecutable(SETPRIV) || !findExecutable(words[0])) return words;
  return [SETPRIV, '--pdeathsig', 'TERM', '--', ...words];
}

const isExecutable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};
/** Whether `command` runs: a path to an executable file, or a name found on PATH. */
const findExecutable = (command: string) =>
  command.includes('/') ? isExecutable(command) : (process.env.PATH ?? '').split(delimiter).some((dir) => dir && isExecutable(join(dir, command)));

/** The error a capped response body ends with. */
class MessageTooLarge extends Error {}

/**
 * `fetch` whose POST response bodies end with MessageTooLarge past `maxBytes` (the download is cancelled): the SDK
 * never holds more than that of one answer. GET (the server's long-lived event stream) is left as it is.
 */
function cappedFetch(maxBytes: number, onCut: () => void): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body || (init?.method ?? 'GET').toUpperCase() !== 'POST') return response;
    let seen = 0;
    const body = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen <= maxBytes) return controller.enqueue(chunk);
        onCut();
        controller.error(new MessageTooLarge(`a message over ${maxBytes} bytes`));
      },
    }));
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

interface Listing {
  tools: RemoteTool[];
  skipped: { tool: string; error: string }[];
  /** The budget that stopped the listing, and its line. */
  cut?: { kind: McpBreach; line: string };
}

/**
 * tools/list, following `nextCursor` for at most `maxListPages` pages and `maxTools` tools. Each tool is checked
 * here, not by the SDK's schema (which rejects the whole listing for one bad tool): a name and an object schema, or
 * it is skipped with its reason.
 */
async function listAll(client: Client, timeoutMs: number, budgets: McpBudgets): Promise<Listing> {
  const listing: Listing = { tools: [], skipped: [] };
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page === budgets.maxListPages) {
      listing.cut = { kind: 'pages', line: `tools/list still had more after ${page} pages (budget maxListPages): the rest are not used` };
      break;
    }
    const listed = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ResultSchema, { timeout: timeoutMs });
    const tools: unknown[] = Array.isArray(listed.tools) ? listed.tools : [];
    for (const t of tools) {
      if (listing.tools.length === budgets.maxTools) {
        listing.cut = { kind: 'tools', line: `more than ${budgets.maxTools} tools (budget maxTools): the first ${budgets.maxTools} are used` };
        return listing;
      }
      const tool = remoteTool(t);
      if ('error' in tool) listing.skipped.push(tool);
      else listing.tools.push(tool);
    }
    cursor = typeof listed.nextCursor === 'string' && listed.nextCursor !== '' ? listed.nextCursor : undefined;
    if (!cursor) break;
  }
  return listing;
}

/** One entry of a tools/list page as a RemoteTool, or why it cannot be one. */
function remoteTool(t: unknown): RemoteTool | { tool: string; error: string } {
  const record = typeof t === 'object' && t !== null && !Array.isArray(t) ? (t as Record<string, unknown>) : {};
  const name = typeof record.name === 'string' ? record.name : '';
  if (name === '') return { tool: String(JSON.stringify(t)).slice(0, 40), error: 'no name' };
  const schema = record.inputSchema as RemoteTool['inputSchema'] | undefined;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || schema.type !== 'object') {
    const type = typeof schema === 'object' && schema !== null ? JSON.stringify((schema as { type?: unknown }).type)?.slice(0, 20) : typeof schema;
    return { tool: name, error: `its inputSchema is not an object schema (type ${type})` };
  }
  const text = (x: unknown) => (typeof x === 'string' ? x : '');
  return { name, description: text(record.description) || text(record.title), inputSchema: schema };
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
