/**
 * `toolformer retrieve "<text>"`: the run's tools ranked for a text, as annotate --tool-retrieval would rank them —
 * the built-in tools (--tools), a catalog's (--catalog) and MCP servers' (--mcp) — by one retriever
 * (pipeline/core/retrieval/). One line per tool, or --json: {text, retriever, model, tools, ranking: [{name, score}]}.
 */
import { TOOL_NAMES, TOOL_SPECS } from '../core/tools/registry.ts';
import { catalogNamed } from '../core/tools/catalogs/index.ts';
import type { ToolSpec } from '../core/tools/spec.ts';
import type { Device } from '../core/lm/devices.ts';
import { assertDeviceInstalled } from './device.ts';
import { retrieverNamed, userIndexCache } from './retrieval.ts';

export interface RetrieveFlags {
  model: string;
  tools?: string;
  catalog?: string;
  mcp: string[];
  top: number;
  retriever: string;
  json?: boolean;
  /** Where the dense retriever's LM runs (`--device`). @default "cpu" */
  device?: Device;
}

export async function retrieveCommand(text: string, flags: RetrieveFlags): Promise<void> {
  if (text.trim() === '') throw new Error('retrieve: the text is empty');
  assertDeviceInstalled(flags.device ?? 'cpu'); // refused at once, even for bm25, which loads no model
  if (!Number.isInteger(flags.top) || flags.top < 1) throw new Error('--top must be a positive integer');
  const builtIn = flags.tools === undefined ? [...TOOL_NAMES] : flags.tools.split(',').map((t) => t.trim()).filter(Boolean);
  const unknown = builtIn.find((name) => !TOOL_NAMES.includes(name));
  if (unknown !== undefined) throw new Error(`--tools: unknown tool ${JSON.stringify(unknown)} (known: ${TOOL_NAMES.join(', ')})`);
  const specs: ToolSpec[] = [...TOOL_SPECS.filter((s) => builtIn.includes(s.name)), ...(flags.catalog === undefined ? [] : await catalogNamed(flags.catalog).load())];
  const mcp = flags.mcp.length
    ? await import('./mcp/run-tools.ts').then(({ connectMcpTools }) => connectMcpTools(flags.mcp, specs.map((s) => s.name), (line) => console.error(`toolformer: ${line}`)))
    : undefined;
  try {
    const tools = [...specs, ...(mcp?.specs ?? [])];
    if (tools.length === 0) throw new Error('no tools to rank: pass --tools, --catalog or --mcp');
    const retriever = await retrieverNamed(tools, flags.retriever, flags.model, flags.device, userIndexCache());
    const ranking = (await retriever.rank(text, flags.top)).map((r) => ({ name: r.name, score: Math.round(r.score * 1e6) / 1e6 }));
    if (flags.json) {
      console.log(JSON.stringify({ text, retriever: retriever.name, model: flags.model, tools: tools.length, ranking }));
    } else {
      for (const [i, r] of ranking.entries()) console.log(`${String(i + 1).padStart(2)}. ${r.name.padEnd(24)} ${r.score}`);
    }
  } finally {
    await mcp?.close();
  }
}
