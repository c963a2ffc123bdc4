/**
 * `toolformer retrieve "<text>"`: the run's tools ranked for a text, as annotate --tool-retrieval would rank them —
 * the built-in tools (--tools), a catalog's (--catalog) and MCP servers' (--mcp) — by one retriever
 * (pipeline/core/retrieval/). A line saying what the scores mean, then one line per tool; with a catalog or MCP
 * tools, the built-in tools outside the top are listed after it with their rank; "no tool matched" when the
 * retriever ranks none. --json: {text, retriever, scale, model, tools, ranking: [{name, score}], builtIn?: [{name,
 * rank, score}]} (rank and score null for a tool not ranked).
 */
import { TOOL_NAMES, TOOL_SPECS } from '../../core/tools/registry.ts';
import { catalogNamed } from '../../core/tools/catalogs/index.ts';
import type { ToolSpec } from '../../core/tools/spec.ts';
import type { Device } from '../../core/lm/devices.ts';
import { assertDeviceInstalled } from '../model/device.ts';
import { retrieverNamed, userIndexCache } from '../tools/retrieval.ts';

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
    ? await import('../mcp/run-tools.ts').then(({ connectMcpTools }) => connectMcpTools(flags.mcp, specs.map((s) => s.name), (line) => console.error(`toolformer: ${line}`)))
    : undefined;
  try {
    const tools = [...specs, ...(mcp?.specs ?? [])];
    if (tools.length === 0) throw new Error('no tools to rank: pass --tools, --catalog or --mcp');
    const retriever = await retrieverNamed(tools, flags.retriever, flags.model, flags.device, userIndexCache());
    const all = (await retriever.rank(text, tools.length)).map((r, i) => ({ name: r.name, score: Math.round(r.score * 1e6) / 1e6, rank: i + 1 }));
    const ranking = all.slice(0, flags.top).map(({ name, score }) => ({ name, score }));
    // The built-in tools are always reported beside a catalog's or a server's: where each ranks (null: not ranked at
    // all — BM25 ranks only tools sharing a word with the text).
    const builtInRanks = specs.length > builtIn.length || (mcp?.specs.length ?? 0) > 0
      ? builtIn.map((name) => ({ name, rank: all.find((r) => r.name === name)?.rank ?? null, score: all.find((r) => r.name === name)?.score ?? null }))
      : undefined;
    if (flags.json) {
      console.log(JSON.stringify({ text, retriever: retriever.name, scale: retriever.scale, model: flags.model, tools: tools.length, ranking, ...(builtInRanks ? { builtIn: builtInRanks } : {}) }));
      return;
    }
    if (ranking.length === 0) {
      console.log(`no tool matched: none of the ${tools.length} tools shares a word with the text (${retriever.name}; try --retriever fusion)`);
      return;
    }
    console.log(`${retriever.name} over ${tools.length} tools; score = ${retriever.scale}`);
    for (const [i, r] of ranking.entries()) console.log(`${String(i + 1).padStart(2)}. ${r.name.padEnd(24)} ${r.score}`);
    const below = (builtInRanks ?? []).filter((b) => b.rank === null || b.rank > flags.top)
      .sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity));
    for (const b of below) console.log(b.rank === null ? `    ${b.name.padEnd(24)} not ranked (no shared word)` : `${String(b.rank).padStart(2)}. ${b.name.padEnd(24)} ${b.score}`);
  } finally {
    await mcp?.close();
  }
}
