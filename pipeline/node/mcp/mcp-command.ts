/**
 * `toolformer mcp`: the registry's tools as an MCP server, over stdio (default) or Streamable HTTP (`--http <port>`).
 * stdout carries only JSON-RPC in stdio mode; everything else goes to stderr.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defaultConfig } from '../../core/default-config.ts';
import { catalogNamed } from '../../core/tools/catalogs/index.ts';
import { isolateCatalog } from '../tools/isolated-calls.ts';
import { TOOL_SPECS, ToolRegistry } from '../../core/tools/registry.ts';
import { createApertiumEngine } from '../tools/apertium.ts';
import { nodeResources } from '../tools/parts.ts';
import { FairGate, fairHost } from './fair-gate.ts';
import { isLoopbackHost, serveHttp } from './http.ts';
import { registryHost } from './registry-host.ts';
import { createMcpServer } from './server.ts';
import { serveStdio } from './stdio.ts';

/** Where `--token` may come from instead (a flag shows in `ps`; the environment does not). */
export const TOKEN_ENV = 'TOOLFORMER_MCP_TOKEN';

export interface McpFlags {
  http?: number;
  host?: string;
  token?: string;
  allowOrigin: string[];
  tools?: string;
  /** A tool catalog to serve (core/tools/catalogs/): its tools, plus the built-in ones named in `--tools`. */
  catalog?: string;
}

/** Worker threads of a served catalog's calls. */
const CATALOG_THREADS = 2;

export async function mcpCommand(flags: McpFlags): Promise<void> {
  // An empty or blank token would let in every client that sends `Bearer ` (and none should): refused like none.
  if (flags.token !== undefined && flags.token.trim() === '') throw new Error(`--token is empty: pass a secret (or set ${TOKEN_ENV}), or leave --token out on a loopback --host`);
  const token = flags.token ?? (process.env[TOKEN_ENV]?.trim() ? process.env[TOKEN_ENV] : undefined);
  if (flags.http === undefined && (flags.host !== undefined || token !== undefined || flags.allowOrigin.length > 0)) {
    throw new Error('--host, --token and --allow-origin apply to --http <port> only (stdio needs none of them)');
  }
  // A catalog's calls run in worker threads with a heap limit and a deadline (isolated-calls.ts): one hostile
  // expression costs a terminated thread, not the server. Two threads (~110 MB each with mathjs; four took the server
  // to 717 MB peak under the stress test): a call waits at most one deadline for a thread.
  const isolation = flags.catalog === undefined ? undefined : isolateCatalog(catalogNamed(flags.catalog), { workers: CATALOG_THREADS });
  const catalog = flags.catalog === undefined ? [] : await catalogNamed(flags.catalog).load(isolation);
  // A signal ends the running evaluations at once (a thread in a synchronous call cannot see the signal itself).
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void isolation?.close());
  const known = TOOL_SPECS.map((s) => s.name);
  // With a catalog, the built-in tools are served only when named.
  const wanted = flags.tools?.split(',').map((t) => t.trim()).filter(Boolean) ?? (catalog.length > 0 ? [] : known);
  const unknown = wanted.find((name) => !known.includes(name));
  if (unknown !== undefined) throw new Error(`--tools: unknown tool ${JSON.stringify(unknown)} (known: ${known.join(', ')})`);
  if (wanted.length + catalog.length === 0) throw new Error(`--tools: no tools (known: ${known.join(', ')})`);
  // Refused, not warned: without a token every host that can reach the address runs the tools (a browser page
  // included: the Host check guards loopback binds only), and a warning scrolls past. One flag fixes it.
  const bindHost = flags.host ?? '127.0.0.1';
  if (flags.http !== undefined && !isLoopbackHost(bindHost) && token === undefined) {
    throw new Error(`--host ${bindHost} serves other machines: pass --token <secret> (or set ${TOKEN_ENV}) so only clients that have it get in`);
  }
  const engine = await createApertiumEngine();
  const specs = [...TOOL_SPECS.filter((s) => wanted.includes(s.name)), ...catalog];
  const registry = new ToolRegistry(specs, { ...nodeResources(), translationEngine: engine });
  const served = catalog.length > 0 ? `${registry.names.length} tools (catalog ${flags.catalog})` : registry.names.join(', ');
  // The pipeline's limits: its per-call timeout and concurrency (config.ts), the executor's input/result caps.
  const config = defaultConfig({});
  const host = registryHost(registry, { timeoutMs: config.toolTimeoutMs, concurrency: config.toolConcurrency });
  // The executor's slots shared fairly: one gate, each session (server) its own client in it.
  const gate = new FairGate(config.toolConcurrency);
  const own = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../package.json'), 'utf8')) as { version: string };
  const newServer = () => createMcpServer(fairHost(host, gate, randomUUID()), { name: 'toolformer', version: own.version });
  if (engine.unavailable) console.error(`toolformer mcp: no translation engine: ${engine.unavailable}`);

  if (flags.http === undefined) {
    console.error(`toolformer mcp: serving ${served} on stdio`);
    await serveStdio(newServer());
    await isolation?.close();
    return;
  }
  const handle = await serveHttp(newServer, {
    port: flags.http,
    host: flags.host,
    token,
    allowedOrigins: flags.allowOrigin,
    onError: (error) => console.error(`toolformer mcp: ${error.message}`),
  });
  console.error(`toolformer mcp: serving ${served} at ${handle.url}${token ? ' (Bearer token required)' : ''}`);
  await new Promise<void>((done) => {
    const stop = () => void Promise.resolve(isolation?.close()).then(() => handle.close()).then(done);
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
