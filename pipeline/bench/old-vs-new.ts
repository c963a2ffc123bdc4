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
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, getPriority, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { scriptFlag } from '../io/script-flag.ts';
import { oldVsNewLines, type OldVsNew, type SideRun } from './old-vs-new-format.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, 'pipeline/bench/results');
/**
 * Today's pipeline when issue 28 was filed: cbf4dc3 is the last commit before its first change (ff8ef5c, the control;
 * 48bf7db two-pass scoring; f298c51 16-row probe groups all came after). `--old f298c51` measures against wave 4's start.
 */
const OLD_COMMIT = scriptFlag('old', 'cbf4dc3');
const OLD_ROOT = join(ROOT, '.cache', `old-${OLD_COMMIT}`);

/** The old checkout: a detached worktree of OLD_COMMIT with this checkout's node_modules linked in. */
function ensureOldCheckout(log: (...x: unknown[]) => void): void {
  if (!existsSync(join(OLD_ROOT, 'pipeline/node/bin.mjs'))) {
    log(`git worktree add --detach ${OLD_ROOT} ${OLD_COMMIT}`);
    execFileSync('git', ['worktree', 'add', '--detach', OLD_ROOT, OLD_COMMIT], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  if (!existsSync(join(OLD_ROOT, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules'), join(OLD_ROOT, 'node_modules'));
}

/** The kept calls of a run, one line each (document, tool, position, input, result), sorted. */
function keptCalls(out: string): string[] {
  return readFileSync(join(out, 'calls.jsonl'), 'utf8').split('\n').filter(Boolean)
    .map((line) => JSON.parse(line) as { kept?: boolean; docId: string; tool: string; at: number; input: string; result?: string })
    .filter((c) => c.kept)
    .map((c) => JSON.stringify([c.docId, c.tool, c.at, c.input, c.result]))
    .sort();
}

/**
 * Two train.jsonl files that differ: the largest |Δ| between their calls' stored losses (nats) when everything else
 * (texts, calls, order) is equal — other batch shapes round a loss's last stored digit differently — else null.
 */
function lossDelta(a: string, b: string): number | null {
  type Call = { losses?: Record<string, number>; usefulness?: number };
  const parse = (text: string) => text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { calls?: Call[] });
  const [ra, rb] = [parse(a), parse(b)];
  const numbers = (r: { calls?: Call[] }) => (r.calls ?? []).flatMap((c) => [...Object.values(c.losses ?? {}), c.usefulness ?? 0]);
  const without = (r: { calls?: Call[] }) => JSON.stringify({ ...r, calls: (r.calls ?? []).map(({ losses, usefulness, ...rest }) => ({ ...rest, losses: Object.keys(losses ?? {}), useful: usefulness !== undefined })) });
  if (ra.length !== rb.length || ra.some((r, i) => without(r) !== without(rb[i]))) return null;
  let delta = 0;
  ra.forEach((r, i) => {
    const other = numbers(rb[i]);
    numbers(r).forEach((x, k) => (delta = Math.max(delta, Math.abs(x - other[k]))));
  });
  return delta;
}

/** From a run's calls.jsonl: the calls that got an L_b, and the positions with a scored call (one L_a per tool and position). */
function lossCounts(out: string): { callOnlyScored: number; positionsScored: number } {
  const scored = readFileSync(join(out, 'calls.jsonl'), 'utf8').split('\n').filter(Boolean)
    .map((line) => JSON.parse(line) as { docId: string; tool: string; at: number; losses?: { callOnly?: number } })
    .filter((c) => c.losses !== undefined);
  return {
    callOnlyScored: scored.filter((c) => c.losses!.callOnly !== undefined).length,
    positionsScored: new Set(scored.map((c) => JSON.stringify([c.docId, c.tool, c.at]))).size,
  };
}

/** One annotate run of one checkout, timed and profiled. */
function runSide(side: 'old' | 'new', model: string, inputs: string[], docs: number | null, work: string, log: (...x: unknown[]) => void): SideRun & { kept: string[]; train: string } {
  const root = side === 'old' ? OLD_ROOT : ROOT;
  const out = join(work, `${side}-out`);
  const profile = join(work, `${side}-profile.jsonl`);
  const timeFile = join(work, `${side}-time.txt`);
  const cache = join(work, `${side}-probe-cache`);
  for (const path of [out, profile, cache]) rmSync(path, { recursive: true, force: true });
  const args = ['pipeline/node/bin.mjs', 'annotate', ...inputs, '--model', model, '--out', out, '--overwrite', ...(docs === null ? [] : ['--max-docs', String(docs)])];
  log(`${side}: node ${args.join(' ')}`);
  const started = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', '-o', timeFile, process.execPath, '--import', join(ROOT, 'pipeline/bench/stage-profile.mjs'), ...args], {
    cwd: root,
    env: { ...process.env, STAGE_PROFILE_ROOT: root, STAGE_PROFILE_FILE: profile, TOOLFORMER_CACHE: cache },
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 64 << 20,
  });
  const wallSeconds = (performance.now() - started) / 1000;
  if (r.status !== 0) throw new Error(`${side} run failed (exit ${r.status}): ${String(r.stderr).trim().split('\n').slice(-3).join(' | ')}`);
  const [, user, system, maxRssKiB] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  const processes = readFileSync(profile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as SideRun['processes'][number]);
  const stats = JSON.parse(readFileSync(join(out, 'stats.json'), 'utf8')) as { docsRead: number; tools: Record<string, { scored?: number; kept?: number }> };
  const scored = Object.values(stats.tools).reduce((s, t) => s + (t.scored ?? 0), 0);
  const kept = keptCalls(out);
  const { callOnlyScored, positionsScored } = lossCounts(out);
  log(`${side}: wall ${wallSeconds.toFixed(0)} s, CPU ${(user + system).toFixed(1)} s, peak RSS ${(maxRssKiB / 1024).toFixed(0)} MiB, ${scored} scored, ${kept.length} kept`);
  return {
    side, root: side === 'old' ? OLD_COMMIT : gitHead(), docs: stats.docsRead, wallSeconds, cpuSeconds: user + system,
    peakRssMiB: maxRssKiB / 1024, scored, keptCalls: kept.length, callOnlyScored, positionsScored, processes, kept, train: readFileSync(join(out, 'train.jsonl'), 'utf8'),
  };
}

/** The bench's own scheduling priority, when lowered (its runs inherit it). */
const niceness = () => (getPriority() > 0 ? `; run at nice ${getPriority()}` : '');

const gitHead = () => execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();

function measure(name: string, model: string, inputs: string[], docs: number | null, rounds: number, log: (...x: unknown[]) => void): OldVsNew {
  ensureOldCheckout(log);
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
      const result = runSide(side, modelDir, inputs, docs, work, log);
      loads.push(loadavg()[0]);
      return [side, result];
    })) as Record<'old' | 'new', ReturnType<typeof runSide>>;
    const keptIdentical = JSON.stringify(results.old.kept) === JSON.stringify(results.new.kept);
    const trainIdentical = results.old.train === results.new.train;
    same &&= keptIdentical && trainIdentical;
    const strip = ({ kept: _k, train: _t, ...rest }: ReturnType<typeof runSide>): SideRun => rest;
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
const log = (...xs: unknown[]) => console.error(`[old-vs-new ${new Date().toISOString().slice(11, 19)}]`, ...xs);
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
