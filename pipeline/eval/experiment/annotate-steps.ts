/**
 * The experiment's annotate steps (run.ts): `toolformer annotate` resumed from its checkpoint, and the committed
 * snapshots (results/ann-<name>.tar.xz) a fresh machine restores so it does not annotate again.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { mulberry32 } from '../../random/mulberry32.ts';
import { ROOT } from './corpus-files.ts';
import { OUT, paths, WORK } from './paths.ts';
import { RESULTS } from './report.ts';
import { toolformer, type Step } from './steps.ts';

/** An annotate run's files a snapshot keeps (after checkpoint.json, which goes first). */
export const SNAPSHOT_FILES = ['config.json', 'stats.json', 'train.jsonl', 'calls.jsonl', 'errors.jsonl'];
/**
 * The whole-corpus run's snapshot, taken when it has finished: its kept calls and stats only (its calls.jsonl, every
 * candidate of ≈ 11k documents, is hundreds of MB; the in-flight run resumes from out/experiment/ann/full).
 */
export const FULL_SNAPSHOT_FILES = ['config.json', 'stats.json', 'train.jsonl', 'errors.jsonl'];

/**
 * results/ann-<name>.tar.xz from out/experiment/ann/<name>: checkpoint.json first, then the files it measures (they
 * only grow after it, and a resume truncates them to the checkpoint), so a snapshot of a run in flight is valid.
 */
export function snapshot(name: string, files = SNAPSHOT_FILES): void {
  const dir = join(OUT, 'ann', name);
  if (!existsSync(dir)) return;
  const tmp = join(WORK, 'snapshot', name);
  spawnSync('rm', ['-rf', tmp]);
  mkdirSync(tmp, { recursive: true });
  const first = existsSync(join(dir, 'checkpoint.json')) ? ['checkpoint.json'] : [];
  for (const f of first) copyFileSync(join(dir, f), join(tmp, f));
  for (const f of files) if (existsSync(join(dir, f))) copyFileSync(join(dir, f), join(tmp, f));
  mkdirSync(RESULTS, { recursive: true });
  const r = spawnSync('tar', ['-cJf', paths.snapshot(name) + '.tmp', '-C', join(WORK, 'snapshot'), name]);
  if (r.status !== 0) throw new Error(`tar of ${dir} failed: ${r.stderr}`);
  renameSync(paths.snapshot(name) + '.tmp', paths.snapshot(name));
  console.error(`[experiment] snapshot ${relative(ROOT, dir)} → ${relative(ROOT, paths.snapshot(name))}`);
}

function restore(name: string): void {
  mkdirSync(join(OUT, 'ann'), { recursive: true });
  const r = spawnSync('tar', ['-xJf', paths.snapshot(name), '-C', join(OUT, 'ann')]);
  if (r.status !== 0) throw new Error(`restoring ${paths.snapshot(name)} failed: ${r.stderr}`);
}

export function annotateStep(name: string, input: string, out: string, files = SNAPSHOT_FILES): Step {
  return {
    name,
    done: () => existsSync(join(out, 'stats.json')),
    run: () => {
      const snap = paths.snapshot(basename(out));
      if (!existsSync(out) && existsSync(snap)) {
        restore(basename(out));
        console.error(`[experiment] restored ${relative(ROOT, out)} from ${relative(ROOT, snap)}`);
      }
      if (existsSync(join(out, 'stats.json'))) return;
      const resume = existsSync(join(out, 'checkpoint.json')) ? ['--resume'] : ['--overwrite'];
      toolformer(['annotate', input, '--out', out, '--workers', '1', '--quiet', ...resume]);
      snapshot(basename(out), files);
    },
  };
}

/** Seeded Fisher–Yates, in place. */
export function shuffle<T>(xs: T[], seed: number): T[] {
  const rng = mulberry32(seed);
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}
