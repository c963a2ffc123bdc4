/**
 * `npm start`'s annotate, today's pipeline against the one before issue 28's work (cbf4dc3, or --old), in one
 * invocation: the same command (`annotate corpus/sample.jsonl --overwrite`, the CLI's defaults: 2 worker processes,
 * every tool, the probes, the control), the same model, the same documents, the same machine, the two run back to
 * back (old first in odd rounds, new first in even ones).
 *
 *   npx tsx pipeline/bench/old-vs-new.ts --name start-bundled [--model models/default] [--docs 30] [--rounds 1]
 *   npx tsx pipeline/bench/old-vs-new.ts --name start-135m --model out/bench/smollm2-135m-shape-bpe --docs 5
 *   npx tsx pipeline/bench/old-vs-new.ts --name corpus-200-135m --model out/bench/smollm2-135m-shape-bpe \
 *     --input corpus/sotu.jsonl,corpus/factbook.jsonl --docs 200
 *   (--render: the .md again from the committed .json, no run)
 *
 * The old checkout is a git worktree of the old commit in .cache/old-<commit> (made on first use, node_modules linked
 * to this one's: the old dependencies are a subset). Each run is timed by /usr/bin/time (user + system CPU of the
 * process tree, its largest process's peak RSS) and profiled by stage-profile.mjs (preloaded into the parent and its
 * workers: CPU, wall and peak RSS by stage — probe, p_i, propose, execute, score, control, commit). The new pipeline
 * runs with an empty probe-verdict cache (TOOLFORMER_CACHE): its probes are computed, as on a first run. Kept calls
 * (calls.jsonl's kept records) and train.jsonl are compared between the two.
 *
 * Writes pipeline/bench/results/old-vs-new-<name>.json and .md.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { scriptFlag } from '../io/script-flag.ts';
import { oldVsNewLines, type OldVsNew, type SideRun } from './old-vs-new-format.ts';
import { DEFAULT_OLD_COMMIT, ensureCheckout, gitHead, lossDelta, niceness, RESULTS as OUT, ROOT, runSide, type Checkout, type Log, type SideResult } from './old-vs-new-run.ts';

const OLD_COMMIT = scriptFlag('old', DEFAULT_OLD_COMMIT);

function measure(name: string, model: string, inputs: string[], docs: number | null, rounds: number, log: Log): OldVsNew {
  const checkouts: Record<'old' | 'new', Checkout> = { old: { root: ensureCheckout('old', OLD_COMMIT, log), commit: OLD_COMMIT }, new: { root: ROOT, commit: gitHead() } };
  const modelDir = resolve(ROOT, model);
  const modelFile = join(modelDir, 'onnx/model.onnx');
  const work = join(ROOT, 'out/bench/old-vs-new', name);
  mkdirSync(work, { recursive: true });
  const loads = [loadavg()[0]];
  const runs: OldVsNew['runs'] = [];
  let same = true;
  for (let round = 0; round < rounds; round++) {
    const order: ('old' | 'new')[] = round % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
    const results = Object.fromEntries(order.map((side) => {
      const result = runSide(side, checkouts[side], modelDir, inputs, docs, work, log);
      loads.push(loadavg()[0]);
      return [side, result];
    })) as Record<'old' | 'new', SideResult>;
    const keptIdentical = JSON.stringify(results.old.kept) === JSON.stringify(results.new.kept);
    const trainIdentical = results.old.train === results.new.train;
    same &&= keptIdentical && trainIdentical;
    const strip = ({ kept: _k, train: _t, ...rest }: SideResult): SideRun => rest;
    runs.push({ order, old: strip(results.old), new: strip(results.new), keptIdentical, trainIdentical, ...(trainIdentical ? {} : { trainLossDelta: lossDelta(results.old.train, results.new.train) }) });
  }
  return {
    name, date: new Date().toISOString(),
    command: `npx tsx pipeline/bench/old-vs-new.ts --name ${name} --old ${OLD_COMMIT} --model ${model}${inputs.join(',') === DEFAULT_INPUT ? '' : ` --input ${inputs.join(',')}`}${docs === null ? '' : ` --docs ${docs}`} --rounds ${rounds}`,
    machine: `linux x64, ${cpus().length} cores shared with other jobs (load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} between runs)${niceness()}`,
    model, modelFileMiB: statSync(modelFile).size / 2 ** 20, docs, inputs, oldCommit: OLD_COMMIT, runs, keptIdenticalInEveryRound: same,
  };
}

/** `npm start`'s input; `--input a.jsonl,b.jsonl` annotates others (a 200-document run: the bundled corpus). */
const DEFAULT_INPUT = 'corpus/sample.jsonl'; // relative: each side reads its own checkout's copy
const log: Log = (...xs: unknown[]) => console.error(`[old-vs-new ${new Date().toISOString().slice(11, 19)}]`, ...xs);
const name = scriptFlag('name', 'start-bundled');
const json = join(OUT, `old-vs-new-${name}.json`);
const docsFlag = scriptFlag('docs', '');
const result: OldVsNew = process.argv.includes('--render')
  ? (JSON.parse(readFileSync(json, 'utf8')) as OldVsNew)
  : measure(name, scriptFlag('model', 'models/default'), scriptFlag('input', DEFAULT_INPUT).split(','), docsFlag === '' ? null : Number(docsFlag), Number(scriptFlag('rounds', '1')), log);
mkdirSync(OUT, { recursive: true });
writeFileSync(json, JSON.stringify(result, null, 2) + '\n');
const md = oldVsNewLines(result).join('\n') + '\n';
writeFileSync(join(OUT, `old-vs-new-${name}.md`), md);
console.log(md);
