/**
 * `npm start`'s annotate (corpus/sample.jsonl, the CLI's defaults and probes, models/default) in one process, for
 * two-pass.ts: with `--tau-f-floor <x>` as given (a very low floor scores every L_b, as before two-pass scoring).
 *
 *   node --import tsx pipeline/bench/two-pass-child.ts <tauFFloor | tau-f> <outDir>
 *
 * Prints one JSON line: the loss sequences (L_a, L_b, L_c and the control's L_c; p_i requests excluded) and their
 * padded tokens (rows × longest row of each forward pass), and the run's scored/kept counts.
 */
import { join, resolve } from 'node:path';
import { OrtScorer } from '../core/lm/ort-scorer.ts';
import type { ScoreRequest } from '../core/lm/lm.ts';
import { withVerdicts } from '../core/run-plan.ts';
import { configFromFlags } from '../node/commands/annotate-command.ts';
import { runProbes } from '../node/run/run-probes.ts';
import { runAnnotate } from '../node/run/annotate-run.ts';
import { loadModel } from '../node/model/load-model.ts';
import { createNodeParts } from '../node/tools/parts.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const [floorArg, outDir] = process.argv.slice(2);
const counts = { sequences: 0, paddedTokens: 0 };
// Count at the scorer: a score() without a probe id is a loss request; each forward pass pads to its longest row.
type Chunk = { need: number }[];
const scorer = OrtScorer.prototype as unknown as { score(b: readonly ScoreRequest[]): Promise<unknown>; scoreChunk(c: Chunk): Promise<void> };
const { score, scoreChunk } = scorer;
let inLosses = false;
scorer.score = async function (this: unknown, batch) {
  inLosses = batch.every((r) => r.probe === undefined);
  if (inLosses) counts.sequences += batch.length;
  return score.call(this, batch);
};
scorer.scoreChunk = async function (this: unknown, chunk) {
  if (inLosses) counts.paddedTokens += chunk.length * Math.max(...chunk.map((p) => p.need));
  return scoreChunk.call(this, chunk);
};

const flagsConfig = configFromFlags({ seed: 0, batchSize: 16, concurrency: 4, lmProposals: true, out: '', tauFFloor: floorArg === 'tau-f' ? 'tau-f' : Number(floorArg) } as Parameters<typeof configFromFlags>[0]);
const lm = await loadModel(join(ROOT, 'models/default'));
const { parts } = await createNodeParts(lm, flagsConfig);
const config = withVerdicts(flagsConfig, await runProbes(parts, flagsConfig, undefined, () => {}));
const stats = await runAnnotate(parts, { inputs: [join(ROOT, 'corpus/sample.jsonl')], outDir, meta: {}, config });
await lm.release();
const tools = Object.values(stats.tools);
console.log(JSON.stringify({ ...counts, scored: tools.reduce((s, t) => s + t.scored, 0), kept: tools.reduce((s, t) => s + t.kept, 0) }));
process.exit(0);
