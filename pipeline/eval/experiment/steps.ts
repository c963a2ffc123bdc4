/**
 * The step machinery of the long, resumable jobs (`npm run experiment`, `npm run rounds`): a step is done when its
 * output exists, runs `toolformer` in the foreground, and writes every file whole (write-then-rename), so a stop
 * anywhere loses at most the step in flight.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { ROOT } from './corpus-files.ts';

export interface Step {
  name: string;
  done(): boolean;
  run(): Promise<void> | void;
  /** Whether what the step needs exists yet (absent: always); a runner skips a step that is not ready. */
  ready?(): boolean;
}

/** Runs `toolformer <args>` (this checkout's CLI, pipeline/node/bin.mjs) in the foreground of this step. */
export function toolformer(args: string[], tag = 'experiment'): void {
  const rel = args.map((a) => (a.startsWith(ROOT) ? relative(ROOT, a) : a));
  console.error(`[${tag}] $ toolformer ${rel.join(' ')}`);
  const r = spawnSync(process.execPath, [join(ROOT, 'pipeline/node/bin.mjs'), ...rel], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`toolformer ${rel[0]} exited ${r.status ?? r.signal}`);
}

export function readJson<T>(path: string): T | null {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : null;
}

export function writeJson(path: string, value: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path + '.tmp', JSON.stringify(value, null, 2) + '\n');
  renameSync(path + '.tmp', path);
}

export function copyInto(dir: string, files: string[]): void {
  mkdirSync(dir, { recursive: true });
  for (const f of files) {
    copyFileSync(f, join(dir, basename(f) + '.tmp'));
    renameSync(join(dir, basename(f) + '.tmp'), join(dir, basename(f)));
  }
}
