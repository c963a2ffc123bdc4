import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitPretrainRecord, finishSnapshot, pretrainArgs, restoreSnapshot, snapshotCommitted } from './long-base.ts';
import { readCheckpoint, writeCheckpoint } from '../../train/checkpoint.ts';
import { paths } from './paths.ts';
import { BASES, DOSE_BASES, DOSE_EXISTING_RUNS, DOSE_RUNS, FULL_CORPUS_RUNS, LIMIT_RUNS, LONG_BASE_RUNS, PRETRAIN, reportedRuns, runName, schedule, type Run } from './plan.ts';
import { withLock } from './steps.ts';
import { cpuTicks, waitUntil } from '../../node/testing/progress.ts';

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

/** One lane's lines of `run.ts status` (its header dropped). */
function laneLines(stdout: string, lane: string): string[] {
  const from = stdout.slice(stdout.indexOf(`lane ${lane}:`)).split('\n').slice(1);
  const end = from.findIndex((l) => l.startsWith('lane '));
  return (end < 0 ? from : from.slice(0, end)).filter((l) => l.trim() !== '');
}

/** `run.ts status` against a results folder (the clone's committed files), with empty out and work folders. */
function status(root: string, results: string): string {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'run.ts'), 'status'], {
    encoding: 'utf8', env: { ...process.env, EXPERIMENT_RESULTS: results, EXPERIMENT_OUT: join(root, 'out'), EXPERIMENT_WORK: join(root, 'work') },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

describe('the dose lane (issue 47 item 2, preregistration.md)', () => {
  it('pretrains each new base with its own steps, seed and folders, and its runs write no other lane\'s files', () => {
    expect(DOSE_BASES).toEqual(['pt3x', 'pt10x-p2']);
    const arg = (args: string[], flag: string) => args[args.indexOf(flag) + 1];
    for (const [id, steps, seed] of [['pt3x', 5400, 1], ['pt10x-p2', 18000, 2], ['pt10x', 18000, 1]] as const) {
      const args = pretrainArgs(id);
      expect([arg(args, '--steps'), arg(args, '--seed')]).toEqual([String(steps), String(seed)]);
      expect([BASES[id].steps, BASES[id].seed]).toEqual([steps, seed]);
      expect([arg(args, '--out'), arg(args, '--work')]).toEqual([paths.base(id), paths.baseWork(id)]);
      expect(args).toContain('--resume');
    }
    expect(new Set(DOSE_BASES.map(paths.baseWork)).size).toBe(2);
    expect(DOSE_BASES.map(paths.baseWork)).not.toContain(paths.longBaseWork);
    const others = [...schedule(), ...LIMIT_RUNS, ...FULL_CORPUS_RUNS, ...LONG_BASE_RUNS];
    const files = (r: Run) => [paths.model(r), paths.work(r), paths.eval(r), paths.loss(r), paths.committed(r)];
    const taken = new Set(others.flatMap(files));
    for (const r of DOSE_RUNS) for (const f of files(r)) expect(taken.has(f), f).toBe(false);
    expect(DOSE_RUNS.map(runName).slice(0, 3)).toEqual(['a-pt3x-s1', 'd-pt3x-s1', 'control-pt3x-s1']);
    expect(DOSE_RUNS.map(runName).at(-1)).toBe('control-pt10x-p2-s3');
    expect(reportedRuns().map(runName)).toEqual(expect.arrayContaining(DOSE_RUNS.map(runName)));
  });

  it('on a fresh clone it starts with the inputs, then the 3× base; with every result committed it has nothing left, and one missing fresh-set result brings back only what it needs', () => {
    const root = mkdtempSync(join(tmpdir(), 'tf-dose-'));
    const results = join(root, 'results');
    const put = (r: Run, files: string[]) => {
      mkdirSync(join(results, 'runs', runName(r)), { recursive: true });
      for (const f of files) writeFileSync(join(results, 'runs', runName(r), f), '');
    };
    try {
      const fresh = laneLines(status(root, results), 'dose');
      expect(fresh.filter((l) => !l.startsWith('done ')).slice(0, 4).map((l) => l.slice(6))).toEqual(['inputs', 'annotate corpus', 'arms a, d', expect.stringMatching(/^pretrain base pt3x \(5,400 steps, seed 1,/)]);
      expect(fresh.some((l) => /^ {5} pretrain base pt10x-p2 \(18,000 steps, seed 2,/.test(l))).toBe(true);
      expect(fresh.some((l) => /re-export base pt10x from its final checkpoint/.test(l))).toBe(true);
      for (const r of DOSE_RUNS) put(r, ['trials.jsonl', 'loss.json', 'positive-trials.jsonl', 'factbook-train-cut-trials.jsonl', 'fresh-trials.jsonl']);
      for (const r of DOSE_EXISTING_RUNS) put(r, ['trials.jsonl', 'loss.json', 'fresh-trials.jsonl']);
      const all = laneLines(status(root, results), 'dose');
      expect(all.filter((l) => !l.startsWith('done '))).toEqual([]);
      // The first 10× base's run without its fresh set: the inputs and the re-export come back, no pretraining does.
      rmSync(join(results, 'runs', 'd-pt10x-s2', 'fresh-trials.jsonl'));
      const open = laneLines(status(root, results), 'dose').filter((l) => !l.startsWith('done ')).map((l) => l.slice(6));
      expect(open).toEqual(['inputs', 'annotate corpus', 'arms a, d', expect.stringMatching(/^re-export base pt10x/), 'finetune d-pt10x-s2', 'fresh in-format set d-pt10x-s2']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('a clone where every run from the longer-pretrained base is committed', () => {
  it('has nothing left in the pretrain lane (no pretraining from scratch); one missing result brings the base back', () => {
    const root = mkdtempSync(join(tmpdir(), 'tf-pt-clone-'));
    const results = join(root, 'results');
    const files = ['trials.jsonl', 'loss.json', 'positive-trials.jsonl', 'factbook-train-cut-trials.jsonl'];
    for (const r of LONG_BASE_RUNS) {
      mkdirSync(join(results, 'runs', runName(r)), { recursive: true });
      for (const f of files) writeFileSync(join(results, 'runs', runName(r), f), '');
    }
    const pretrainLane = () => laneLines(status(root, results), 'pretrain');
    try {
      const lines = pretrainLane();
      expect(lines[0]).toMatch(/^done +pretrain base/);
      expect(lines.at(-1)).toMatch(/^done +remove the pretraining checkpoint copy/);
      expect(lines.length).toBeGreaterThan(LONG_BASE_RUNS.length * files.length);
      expect(lines.filter((l) => !l.startsWith('done '))).toEqual([]);
      rmSync(join(results, 'runs', runName(LONG_BASE_RUNS.at(-1)!), 'loss.json'));
      expect(pretrainLane()[0]).toMatch(/^ {5} pretrain base/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('the pretraining outlives a machine: its checkpoint travels with the committed results', () => {
  const evalLine = (step: number, valLoss: number) => JSON.stringify({ time: '2026-12-04T00:00:00Z', event: 'eval', step, valLoss });
  const trainLine = (step: number) => JSON.stringify({ event: 'train', step, loss: 5 });

  it('a chunk on a new machine starts from the committed copy; the probes of both machines are kept, one per step', () => {
    const root = mkdtempSync(join(tmpdir(), 'tf-pt-'));
    const committed = join(root, 'results/base-pt10x');
    const machineA = { work: join(root, 'a'), committed };
    const machineB = { work: join(root, 'b'), committed };
    try {
      // Machine A: 600 steps, probes at 0 and 500, then the chunk ends and is committed.
      mkdirSync(machineA.work);
      const params = Float32Array.from({ length: 5000 }, (_, i) => Math.sin(i) * 1e-2);
      writeCheckpoint(join(machineA.work, 'checkpoint.bin'), { header: { step: 600, tokensSeen: 1e6, trainSeconds: 900 }, tensors: { params, 'adam.m': params.map((x) => x / 3) } });
      writeFileSync(join(machineA.work, 'tokenizer.json'), '{"vocab":"A"}');
      writeFileSync(join(machineA.work, 'train-record.json'), JSON.stringify({ step: 600 }));
      writeFileSync(join(machineA.work, 'log.jsonl'), [evalLine(0, 7), trainLine(10), evalLine(500, 4)].join('\n') + '\n');
      commitPretrainRecord(machineA);
      expect(snapshotCommitted(machineA)).toBe(true);

      // Machine B (a fresh clone: an empty work folder) restores it, bit for bit, and the trainer can read it.
      restoreSnapshot(machineB);
      const restored = readCheckpoint(join(machineB.work, 'checkpoint.bin'));
      expect(restored?.header.step).toBe(600);
      expect(restored?.tensors.params).toEqual(params);
      expect(readFileSync(join(machineB.work, 'tokenizer.json'), 'utf8')).toBe('{"vocab":"A"}');

      // Its chunk resumed from step 600 (the checkpoint of step 500 logged its probe again) and reached 1,100.
      writeFileSync(join(machineB.work, 'train-record.json'), JSON.stringify({ step: 1100 }));
      writeFileSync(join(machineB.work, 'log.jsonl'), [evalLine(1000, 3.5)].join('\n') + '\n');
      writeCheckpoint(join(machineB.work, 'checkpoint.bin'), { header: { step: 1100, tokensSeen: 2e6, trainSeconds: 1800 }, tensors: { params } });
      commitPretrainRecord(machineB);
      const evals = readFileSync(join(committed, 'evals.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(evals.map((e) => [e.step, e.valLoss])).toEqual([[0, 7], [500, 4], [1000, 3.5]]);
      expect(evals.every((e) => e.time === undefined)).toBe(true);
      expect(JSON.parse(readFileSync(join(committed, 'train-record.json'), 'utf8')).step).toBe(1100);

      // A machine with a checkpoint of its own keeps it (machine A's is older than the committed copy now).
      restoreSnapshot(machineA);
      expect(readCheckpoint(join(machineA.work, 'checkpoint.bin'))?.header.step).toBe(600);

      // Once the runs from the base are committed, the copy goes.
      finishSnapshot(machineB);
      expect(snapshotCommitted(machineB)).toBe(false);
      expect(existsSync(join(committed, 'evals.jsonl'))).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
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
      await waitUntil(() => existsSync(started), () => cpuTicks(waiter.pid), { what: 'the waiter to start' });
      await sleep(1_500); // an observation window, not a race: three of its polls; it must still be waiting
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
