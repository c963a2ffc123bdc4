/**
 * One end-to-end annotate run in its own process, so its peak memory is its own:
 *
 *   node --import tsx pipeline/bench/annotate-child.ts <modelDir> <corpus.jsonl> <docs> <outDir>
 *
 * Prints one JSON line: { docs, calls, kept, seconds, cpuSeconds, peakRssMiB, rssAfterLoadMiB, memory peaks by kind,
 * scoreSeconds, sampleSeconds (wall time inside CausalLM.score / .sample) }.
 */
import { readFileSync } from 'node:fs';
import { defaultConfig } from '../core/default-config.ts';
import { runAnnotate } from '../node/run/annotate-run.ts';
import { loadModel } from '../node/model/load-model.ts';
import { createNodeParts } from '../node/tools/parts.ts';

const [modelDir, corpus, docsArg, outDir] = process.argv.slice(2);
const maxDocs = Number(docsArg);
const config = defaultConfig({ seed: 0 });
const lm = await loadModel(modelDir);
// Wall seconds inside the LM, by method (score: positions p_i and the losses; sample: LM-proposed calls).
const inLm = { scoreSeconds: 0, sampleSeconds: 0 };
for (const [method, key] of [['score', 'scoreSeconds'], ['sample', 'sampleSeconds']] as const) {
  const original = lm[method].bind(lm) as (...args: unknown[]) => Promise<unknown>;
  (lm as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
    const t0 = performance.now();
    try {
      return await original(...args);
    } finally {
      inLm[key] += (performance.now() - t0) / 1000;
    }
  };
}
const { parts } = await createNodeParts(lm, config);
const rssAfterLoadMiB = process.memoryUsage().rss / 2 ** 20;
// Where a peak comes from: JS heap, ArrayBuffers (tensors handed to JS) or native (ONNX Runtime's arena).
const peak = { rssSampledMiB: 0, heapUsedMiB: 0, arrayBuffersMiB: 0 };
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  peak.rssSampledMiB = Math.max(peak.rssSampledMiB, m.rss / 2 ** 20);
  peak.heapUsedMiB = Math.max(peak.heapUsedMiB, m.heapUsed / 2 ** 20);
  peak.arrayBuffersMiB = Math.max(peak.arrayBuffersMiB, m.arrayBuffers / 2 ** 20);
}, 50);
const c0 = process.cpuUsage();
const t0 = performance.now();
const stats = await runAnnotate(parts, { inputs: [corpus], outDir, meta: { model: modelDir }, config, maxDocs });
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(c0);
clearInterval(sampler);
const tools = Object.values(stats.tools);
console.log(
  JSON.stringify({
    docs: stats.docsRead,
    calls: tools.reduce((s, t) => s + t.scored, 0),
    kept: tools.reduce((s, t) => s + t.kept, 0),
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakRssMiB: peakRss(),
    rssAfterLoadMiB,
    ...peak,
    ...inLm,
  }),
);

/**
 * This process's peak RSS, MiB: VmHWM from /proc (Linux). Not getrusage's maxRSS: across fork + exec Linux carries
 * the forking parent's peak into the child's ru_maxrss, so a child of a big parent would report the parent's peak.
 * Elsewhere, the 50 ms samples.
 */
function peakRss(): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kb) return Number(kb) / 1024;
  } catch {
    // not Linux
  }
  return peak.rssSampledMiB;
}
