/**
 * One end-to-end annotate run in its own process, so its peak memory is its own:
 *
 *   node --import tsx pipeline/bench/annotate-child.ts <modelDir> <corpus.jsonl> <docs> <outDir>
 *
 * Prints one JSON line: { docs, calls, kept, seconds, cpuSeconds, peakRssMiB, rssAfterLoadMiB }.
 */
import { defaultConfig } from '../core/config.ts';
import { runAnnotate } from '../node/annotate-run.ts';
import { loadModel } from '../node/load-model.ts';
import { createNodeParts } from '../node/parts.ts';

const [modelDir, corpus, docsArg, outDir] = process.argv.slice(2);
const maxDocs = Number(docsArg);
const config = defaultConfig({ seed: 0 });
const lm = await loadModel(modelDir);
const { parts } = await createNodeParts(lm, config);
const rssAfterLoadMiB = process.memoryUsage().rss / 2 ** 20;
const c0 = process.cpuUsage();
const t0 = performance.now();
const stats = await runAnnotate(parts, { inputs: [corpus], outDir, meta: { model: modelDir }, config, maxDocs });
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(c0);
const tools = Object.values(stats.tools);
console.log(
  JSON.stringify({
    docs: stats.docsRead,
    calls: tools.reduce((s, t) => s + t.scored, 0),
    kept: tools.reduce((s, t) => s + t.kept, 0),
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    rssAfterLoadMiB,
  }),
);
