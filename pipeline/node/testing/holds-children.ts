/**
 * A process holding the children an annotate run starts besides its workers — a kept-running Apertium pipeline
 * (apertium-pipeline.ts) and stdio MCP servers connected through mcp/client.ts — that then only waits: children.test.ts
 * SIGKILLs it and checks that none of its descendants outlives it. Prints `ready` on stdout once all of them run.
 *   node --import tsx pipeline/node/testing/holds-children.ts <MCP server command line>…
 */
import { ModePipeline } from '../tools/apertium-pipeline.ts';
import { connectMcp } from '../mcp/client.ts';

const pipeline = new ModePipeline(`${process.env.APERTIUM_DATADIR ?? '/usr/share/apertium'}/modes/spa-eng.mode`);
await pipeline.translate('la casa es grande', { timeoutMs: 120_000, maxOutputBytes: 1 << 20 });
for (const server of process.argv.slice(2)) {
  const connection = await connectMcp(server);
  if ('error' in connection) throw new Error(`${server}: ${connection.error}`);
}
console.log('ready');
setInterval(() => {}, 1 << 30); // held until killed
