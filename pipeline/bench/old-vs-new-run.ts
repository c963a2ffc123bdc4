/**
 * The parts of the old-against-new benches (old-vs-new.ts: rounds of one run; old-vs-new-sliced.ts: a long run in
 * slices): a checkout of a commit to run, one side's annotate run timed and profiled, and what is compared between
 * two runs (kept calls, train.jsonl).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join, resolve } from 'node:path';
import type { SideRun } from './old-vs-new-format.ts';

export const ROOT = resolve(import.meta.dirname, '../..');
export const RESULTS = join(ROOT, 'pipeline/bench/results');
/**
 * Today's pipeline when issue 28 was filed: cbf4dc3 is the last commit before its first change (ff8ef5c, the control;
 * 48bf7db two-pass scoring; f298c51 16-row probe groups all came after). `--old f298c51` measures against wave 4's start.
 */
export const DEFAULT_OLD_COMMIT = 'cbf4dc3';

export type Log = (...x: unknown[]) => void;

/**
 * A checkout of `commit` to run: a detached worktree in .cache/<label>-<commit> with this checkout's node_modules
 * linked in (made on first use; an older commit's dependencies are a subset of today's). Returns its root.
 */
export function ensureCheckout(label: string, commit: string, log: Log): string {
  const root = join(ROOT, '.cache', `${label}-${commit}`);
  if (!existsSync(join(root, 'pipeline/node/bin.mjs'))) {
    log(`git worktree add --detach ${root} ${commit}`);
    execFileSync('git', ['worktree', 'add', '--detach', root, commit], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  if (!existsSync(join(root, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  return root;
}

/** The kept calls of a run, one line each (document, tool, position, input, result), sorted. */
export function keptCalls(out: string): string[] {
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
export function lossDelta(a: string, b: string): number | null {
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
export function lossCounts(out: string): { callOnlyScored: number; positionsScored: number } {
  const scored = readFileSync(join(out, 'calls.jsonl'), 'utf8').split('\n').filter(Boolean)
    .map((line) => JSON.parse(line) as { docId: string; tool: string; at: number; losses?: { callOnly?: number } })
    .filter((c) => c.losses !== undefined);
  return {
    callOnlyScored: scored.filter((c) => c.losses!.callOnly !== undefined).length,
    positionsScored: new Set(scored.map((c) => JSON.stringify([c.docId, c.tool, c.at]))).size,
  };
}

/** A side's checkout: its root and the commit it is (short hash). */
export interface Checkout {
  root: string;
  commit: string;
}

/** A side's run, with what is compared between the sides (not stored). */
export type SideResult = SideRun & { kept: string[]; train: string };

/**
 * One annotate run of one checkout, timed and profiled: `annotate <inputs> --model <model> --overwrite [--max-docs]`
 * (the CLI's defaults, as `npm start`) under /usr/bin/time and stage-profile.mjs, with an empty probe-verdict cache.
 */
export function runSide(side: 'old' | 'new', checkout: Checkout, model: string, inputs: string[], docs: number | null, work: string, log: Log): SideResult {
  const root = checkout.root;
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
    side, root: checkout.commit, docs: stats.docsRead, wallSeconds, cpuSeconds: user + system,
    peakRssMiB: maxRssKiB / 1024, scored, keptCalls: kept.length, callOnlyScored, positionsScored, processes, kept, train: readFileSync(join(out, 'train.jsonl'), 'utf8'),
  };
}

/** The bench's own scheduling priority, when lowered (its runs inherit it). */
export const niceness = () => (getPriority() > 0 ? `; run at nice ${getPriority()}` : '');

export const gitHead = () => execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
