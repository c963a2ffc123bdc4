/**
 * p_i with the fixed prompt's KV cache shared across windows and the LM head only on the rows read (issue 28 item 3),
 * before and after in one process: positionScores for every tool's prompt over corpus/sample.jsonl (`npm start`'s
 * documents, windows as the run cuts them), on the bundled model. "before" strips the two score() hints
 * (sharedPrefix, from), so every window is forwarded whole and every row goes through the head, as before; "after" is
 * the code as it runs. Both orders are timed twice (after, before, after, before) and the lower CPU of each kept.
 * Counts: tokens forwarded (the prefix forwards included), rows through the LM head, and the largest |Δp_i|.
 *
 *   npx tsx pipeline/bench/positions-prefix.ts      → pipeline/bench/results/positions-prefix.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { CausalLM, ScoreRequest } from '../core/lm/lm.ts';
import { defaultConfig } from '../core/default-config.ts';
import { positionScores } from '../core/sampling/positions.ts';
import { TOOL_SPECS } from '../core/tools/registry.ts';
import { loadModel } from '../node/model/load-model.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const texts = readFileSync(join(ROOT, 'corpus/sample.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { text: string }).text);
const config = defaultConfig();
const lm = await loadModel(join(ROOT, 'models/default'));

interface Counts {
  cpuSeconds: number;
  /** Real tokens forwarded by score() passes, plus the shared prefixes' own forwards. */
  tokensForwarded: number;
  /** Rows × longest row of every score() pass. */
  paddedTokens: number;
  /** Positions whose logits go through the LM head and log-softmax. */
  headRows: number;
  prefixForwards: number;
}

/** One pass over every tool and document; `hints` false strips sharedPrefix and from (the code before). */
async function pass(hints: boolean): Promise<{ counts: Counts; p: Float32Array[] }> {
  const counts: Counts = { cpuSeconds: 0, tokensForwarded: 0, paddedTokens: 0, headRows: 0, prefixForwards: 0 };
  const prefixLengths = new Map<string, number>();
  lm.onScoreBatch = (b) => {
    counts.tokensForwarded += b.tokens;
    counts.paddedTokens += b.rows * b.length;
  };
  const model: CausalLM = Object.assign(Object.create(lm) as CausalLM, {
    score: (batch: readonly ScoreRequest[]) => {
      const sent = batch.map((r) => (hints ? r : { ids: r.ids, probe: r.probe, upTo: r.upTo }));
      for (const r of sent) {
        counts.headRows += r.ids.length - Math.max(0, (r.from ?? 0) - 1);
        if (r.sharedPrefix) prefixLengths.set(r.ids.slice(0, r.sharedPrefix).join(','), r.sharedPrefix);
      }
      return lm.score(sent);
    },
  });
  const forwards0 = lm.prefixForwards;
  const p: Float32Array[] = [];
  const c0 = process.cpuUsage();
  for (const spec of TOOL_SPECS) {
    for (const text of texts) p.push((await positionScores(model, text, spec.prompt, { windowTokens: config.windowTokens, batchSize: config.batchSize })).p);
  }
  const c = process.cpuUsage(c0);
  counts.cpuSeconds = (c.user + c.system) / 1e6;
  counts.prefixForwards = lm.prefixForwards - forwards0;
  counts.tokensForwarded += [...prefixLengths.values()].reduce((s, n) => s + n, 0) * (counts.prefixForwards > 0 ? 1 : 0);
  lm.onScoreBatch = undefined;
  return { counts, p };
}

const runs = [await pass(true), await pass(false), await pass(true), await pass(false)];
// The prefix caches were made by the first "after" pass: the second one reuses them, as a run's later documents do.
const best = (a: (typeof runs)[number], b: (typeof runs)[number]) => ({ ...a.counts, cpuSeconds: Math.min(a.counts.cpuSeconds, b.counts.cpuSeconds), prefixForwards: a.counts.prefixForwards });
const [after, before] = [best(runs[0], runs[2]), best(runs[1], runs[3])];
let worst = 0;
runs[0].p.forEach((p, i) => p.forEach((x, j) => (worst = Math.max(worst, Math.abs(x - runs[1].p[i][j])))));
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
const result = {
  what: `p_i (positionScores) for ${TOOL_SPECS.length} tools × ${texts.length} documents of corpus/sample.jsonl on models/default (windowTokens ${config.windowTokens}, batch ${config.batchSize}): before = every window forwarded whole, every row through the head; after = the fixed prompt's KV cache shared, the head on the window's rows only`,
  command: 'npx tsx pipeline/bench/positions-prefix.ts',
  date: new Date().toISOString(),
  machine: `linux x64, load ${loadavg()[0].toFixed(2)} at the end (a shared machine: CPU seconds, the lower of two passes each)`,
  logProbPath: lm.logProbPath,
  before: { ...before, cpuSeconds: round(before.cpuSeconds) },
  after: { ...after, cpuSeconds: round(after.cpuSeconds) },
  ratios: {
    cpu: round(before.cpuSeconds / after.cpuSeconds),
    tokensForwarded: round(after.tokensForwarded / before.tokensForwarded),
    headRows: round(after.headRows / before.headRows),
  },
  maxAbsPDifference: worst,
};
await lm.release();
writeFileSync(join(ROOT, 'pipeline/bench/results/positions-prefix.json'), JSON.stringify(result, null, 2) + '\n');
console.log(JSON.stringify(result, null, 2));
