/**
 * A long `npm start`-style annotate, today's pipeline against the one before issue 28's work, measured in slices that
 * fit between stops (issue 28 item 7: 200 documents at the 135M shape are ~4 hours of both cores, more than one
 * session). The documents are split into slices of --slice-docs; each slice is one annotate per side of the same
 * documents (old-vs-new-run.ts runSide: the CLI's defaults, /usr/bin/time, the stage profile, an empty probe-verdict
 * cache), back to back on one machine, old first in odd slices. Every invocation measures the slices not yet in the
 * committed result, --slices-now at most, and rewrites the result with them; the totals (old-vs-new-sliced-format.ts)
 * are sums over the slices measured. The new side is the commit of the first slice, run from its own checkout in
 * every later slice, so every slice compares the same two commits.
 *
 *   npx tsx pipeline/bench/old-vs-new-sliced.ts --name corpus-200-135m --model out/bench/smollm2-135m-shape-bpe \
 *     --input corpus/sotu.jsonl,corpus/factbook.jsonl --docs 200 --slice-docs 40 [--slices-now 1] [--old cbf4dc3]
 *   (--render: the .md again from the committed .json, no run)
 *
 * Writes pipeline/bench/results/old-vs-new-<name>.json and .md after every slice.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptFlag } from '../io/script-flag.ts';
import { sliceCount, slicedLines, type SlicedOldVsNew } from './old-vs-new-sliced-format.ts';
import { DEFAULT_OLD_COMMIT, ensureCheckout, gitHead, lossDelta, niceness, RESULTS, ROOT, runSide, type Log, type SideResult } from './old-vs-new-run.ts';
import type { SideRun } from './old-vs-new-format.ts';

/** The run's documents: the first docs / inputs.length lines of each input, taken in turn (one of each, then the next). */
export function sliceDocuments(inputTexts: readonly string[], docs: number): string[] {
  const per = Math.ceil(docs / inputTexts.length);
  const lists = inputTexts.map((text) => text.split('\n').filter((l) => l.trim() !== '').slice(0, per));
  const out: string[] = [];
  for (let i = 0; i < per && out.length < docs; i++) for (const list of lists) if (i < list.length && out.length < docs) out.push(list[i]);
  return out;
}

function measureSlice(r: SlicedOldVsNew, slice: number, modelDir: string, work: string, log: Log): SlicedOldVsNew['slices'][number] {
  const lines = sliceDocuments(r.inputs.map((p) => readFileSync(resolve(ROOT, p), 'utf8')), r.docs).slice((slice - 1) * r.sliceDocs, slice * r.sliceDocs);
  const input = join(work, `slice-${slice}.jsonl`);
  writeFileSync(input, lines.map((l) => l + '\n').join(''));
  const checkouts = { old: { root: ensureCheckout('old', r.oldCommit, log), commit: r.oldCommit }, new: { root: ensureCheckout('new', r.newCommit, log), commit: r.newCommit } };
  const order: ('old' | 'new')[] = slice % 2 === 1 ? ['old', 'new'] : ['new', 'old'];
  const loads = [loadavg()[0]];
  log(`slice ${slice} of ${sliceCount(r)}: ${lines.length} documents, ${order.join(' then ')}`);
  const results = Object.fromEntries(order.map((side) => {
    const result = runSide(side, checkouts[side], modelDir, [input], null, work, log);
    loads.push(loadavg()[0]);
    return [side, result];
  })) as Record<'old' | 'new', SideResult>;
  const strip = ({ kept: _k, train: _t, ...rest }: SideResult): SideRun => rest;
  const trainIdentical = results.old.train === results.new.train;
  return {
    slice, date: new Date().toISOString(),
    machine: `linux x64, ${cpus().length} cores, load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}${niceness()}`,
    order, old: strip(results.old), new: strip(results.new),
    keptIdentical: JSON.stringify(results.old.kept) === JSON.stringify(results.new.kept), trainIdentical,
    ...(trainIdentical ? {} : { trainLossDelta: lossDelta(results.old.train, results.new.train) }),
  };
}

/** The committed result, or a new one; refuses flags that would change the run a committed slice belongs to. */
function openRun(json: string, flags: Omit<SlicedOldVsNew, 'slices' | 'newCommit' | 'command' | 'modelFileMiB' | 'modelSha256'>): SlicedOldVsNew {
  const command = `npx tsx pipeline/bench/old-vs-new-sliced.ts --name ${flags.name} --old ${flags.oldCommit} --model ${flags.model} --input ${flags.inputs.join(',')} --docs ${flags.docs} --slice-docs ${flags.sliceDocs}`;
  const modelFile = join(resolve(ROOT, flags.model), 'onnx/model.onnx');
  const modelFileMiB = statSync(modelFile).size / 2 ** 20;
  const modelSha256 = createHash('sha256').update(readFileSync(modelFile)).digest('hex');
  if (!existsSync(json)) return { ...flags, command, modelFileMiB, modelSha256, newCommit: gitHead(), slices: [] };
  const r = JSON.parse(readFileSync(json, 'utf8')) as SlicedOldVsNew;
  for (const key of ['model', 'docs', 'sliceDocs', 'oldCommit'] as const) {
    if (r[key] !== flags[key]) throw new Error(`${json} measured ${key} ${r[key]}, not ${flags[key]}: pass the same flags to resume it, or another --name`);
  }
  if (r.inputs.join() !== flags.inputs.join()) throw new Error(`${json} measured --input ${r.inputs.join(',')}, not ${flags.inputs.join(',')}`);
  if (r.modelSha256 !== modelSha256) throw new Error(`${json} measured ${flags.model} with onnx/model.onnx of SHA-256 ${r.modelSha256}, this one's is ${modelSha256}: not the same weights (real-size-annotate.ts writes them, seed 135)`);
  return r;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const log: Log = (...xs: unknown[]) => console.error(`[old-vs-new-sliced ${new Date().toISOString().slice(11, 19)}]`, ...xs);
  const name = scriptFlag('name', 'corpus-200-135m');
  const json = join(RESULTS, `old-vs-new-${name}.json`);
  const write = (r: SlicedOldVsNew) => {
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(json, JSON.stringify(r, null, 2) + '\n');
    writeFileSync(join(RESULTS, `old-vs-new-${name}.md`), slicedLines(r).join('\n') + '\n');
  };
  if (process.argv.includes('--render')) {
    write(JSON.parse(readFileSync(json, 'utf8')) as SlicedOldVsNew);
  } else {
    const run = openRun(json, {
      name, model: scriptFlag('model', 'out/bench/smollm2-135m-shape-bpe'), inputs: scriptFlag('input', 'corpus/sotu.jsonl,corpus/factbook.jsonl').split(','),
      docs: Number(scriptFlag('docs', '200')), sliceDocs: Number(scriptFlag('slice-docs', '40')), oldCommit: scriptFlag('old', DEFAULT_OLD_COMMIT),
    });
    const work = join(ROOT, 'out/bench/old-vs-new', name);
    mkdirSync(work, { recursive: true });
    const now = Number(scriptFlag('slices-now', String(sliceCount(run))));
    for (let k = 0; k < now && run.slices.length < sliceCount(run); k++) {
      run.slices.push(measureSlice(run, run.slices.length + 1, resolve(ROOT, run.model), work, log));
      write(run);
      log(`slice ${run.slices.length} written to ${json}`);
    }
  }
  console.log(readFileSync(join(RESULTS, `old-vs-new-${name}.md`), 'utf8'));
}
