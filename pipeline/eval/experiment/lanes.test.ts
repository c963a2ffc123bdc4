import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pretrainArgs } from './long-base.ts';
import { paths } from './paths.ts';
import { FULL_CORPUS_RUNS, LIMIT_RUNS, LONG_BASE_RUNS, PRETRAIN, reportedRuns, runName, schedule, type Run } from './plan.ts';
import { withLock } from './steps.ts';

describe('the lanes of npm run experiment write disjoint files', () => {
  it('every run of the pretrain lane has its own name, model, work, eval and committed folders', () => {
    const main = [...schedule(), ...LIMIT_RUNS, ...FULL_CORPUS_RUNS];
    const files = (r: Run) => [paths.model(r), paths.work(r), paths.eval(r), paths.loss(r), paths.committed(r)];
    const mainFiles = new Set(main.flatMap(files));
    for (const r of LONG_BASE_RUNS) {
      for (const f of files(r)) expect(mainFiles.has(f), f).toBe(false);
    }
    expect(LONG_BASE_RUNS.map(runName)).toEqual([1, 2, 3].flatMap((s) => [`a-pt10x-s${s}`, `d-pt10x-s${s}`, `control-pt10x-s${s}`]));
    // The report shows them (as "not run yet" until they finish).
    expect(reportedRuns().map(runName)).toEqual(expect.arrayContaining(LONG_BASE_RUNS.map(runName)));
  });

  it('every chunk of the pretraining passes the same total steps (the cosine schedule) and resumes', () => {
    const args = pretrainArgs();
    expect(args.slice(args.indexOf('--steps'), args.indexOf('--steps') + 2)).toEqual(['--steps', String(PRETRAIN.steps)]);
    expect(args).toContain('--resume');
    // Its own work and out folders: never models/default's, never a finetune's.
    expect(args[args.indexOf('--out') + 1]).toBe(paths.longBase);
    expect(args[args.indexOf('--work') + 1]).toBe(paths.longBaseWork);
    expect(paths.longBase).not.toMatch(/models\/default$/);
  });
});

describe('withLock: one report writer at a time', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'tf-lock-'));

  it('runs fn holding the lock and releases it, also when fn throws', () => {
    const lock = join(dir(), 'report.lock');
    expect(withLock(lock, () => readFileSync(join(lock, 'pid'), 'utf8'))).toBe(String(process.pid));
    expect(existsSync(lock)).toBe(false);
    expect(() => withLock(lock, () => { throw new Error('boom'); })).toThrow('boom');
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose owner is dead', () => {
    const lock = join(dir(), 'report.lock');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), dead.stdout);
    expect(withLock(lock, () => 'ran')).toBe('ran');
    expect(existsSync(lock)).toBe(false);
  });

  it('waits while the owner lives, and runs once the owner releases it', async () => {
    const root = dir();
    const lock = join(root, 'report.lock');
    const [started, ran] = [join(root, 'started'), join(root, 'ran')];
    // This process owns the lock; a second process (the other lane) asks for it.
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), String(process.pid));
    const script = join(root, 'waiter.ts');
    writeFileSync(script, `import { writeFileSync } from 'node:fs';
import { withLock } from ${JSON.stringify(join(import.meta.dirname, 'steps.ts'))};
writeFileSync(${JSON.stringify(started)}, '');
withLock(${JSON.stringify(lock)}, () => writeFileSync(${JSON.stringify(ran)}, ''));
`);
    const waiter = spawn(process.execPath, ['--import', 'tsx', script], { stdio: 'inherit' });
    const exited = new Promise<number | null>((resolve) => waiter.on('exit', resolve));
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    try {
      while (!existsSync(started)) await sleep(50);
      await sleep(1_500); // three of its polls: it must still be waiting
      expect(existsSync(ran)).toBe(false);
      rmSync(lock, { recursive: true });
      expect(await exited).toBe(0);
      expect(existsSync(ran)).toBe(true);
    } finally {
      waiter.kill();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
