/**
 * The trainer on one thread and on several, side by side in one run (pipeline/train/matmul-threads.ts): the bundled
 * model's shape and batch (2 layers, 256 wide, 1,024 tokens, 16 × 128 per step, as npm run train:model and the
 * experiment's pretraining use), `pipeline/train/bench.ts` in a child process per measurement, the thread counts
 * alternating round by round so that a change in the machine's load falls on both.
 *
 *   npx tsx pipeline/bench/train-threads.ts [--threads 1,2] [--rounds 3] [--steps 5]
 *                                          → pipeline/bench/results/train-threads.{json,md}
 *   npx tsx pipeline/bench/train-threads.ts --render   (the .md again from the .json)
 *
 * Wall time (tokens per second of the steps) is what threads buy; CPU seconds (/usr/bin/time, user + system, start-up
 * included) say what they cost. Any thread count trains the same bytes (matmul-threads.test.ts), so only speed is
 * compared here.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { median } from '../core/median.ts';
import { scriptFlag } from '../io/script-flag.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const RESULTS = join(ROOT, 'pipeline/bench/results');
const SHAPE = ['--layers', '2', '--embd', '256', '--heads', '4', '--vocab', '1024', '--batch', '16', '--seq', '128'];

interface Measurement {
  threads: number;
  round: number;
  tokensPerSecond: number;
  msPerStep: number;
  /** user + system CPU seconds of the child (start-up and the warm-up step included). */
  cpuSeconds: number;
  wallSeconds: number;
}

interface TrainThreadsResult {
  measured: string;
  command: string;
  cpu: string;
  cores: number;
  loadAverage: { before: number; after: number };
  steps: number;
  rounds: number;
  runs: Measurement[];
}

function measure(threads: number, round: number, steps: number): Measurement {
  const args = ['-f', '%U %S %e', process.execPath, '--import', 'tsx', 'pipeline/train/bench.ts', ...SHAPE,
    '--steps', String(steps), '--threads', String(threads)];
  const r = spawnSync('/usr/bin/time', args, { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`train bench --threads ${threads}: exit ${r.status}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { tokensPerSecond: number; msPerStep: number };
  const [user, system, wall] = r.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { threads, round, tokensPerSecond: out.tokensPerSecond, msPerStep: out.msPerStep, cpuSeconds: user + system, wallSeconds: wall };
}

/** Per thread count: median tokens/s and CPU s, and the speed-up over the first count's median. */
export function summarise(r: TrainThreadsResult) {
  const counts = [...new Set(r.runs.map((m) => m.threads))];
  const rows = counts.map((threads) => {
    const runs = r.runs.filter((m) => m.threads === threads);
    return {
      threads, tokensPerSecond: median(runs.map((m) => m.tokensPerSecond)), range: [Math.min(...runs.map((m) => m.tokensPerSecond)), Math.max(...runs.map((m) => m.tokensPerSecond))],
      cpuSeconds: median(runs.map((m) => m.cpuSeconds)), wallSeconds: median(runs.map((m) => m.wallSeconds)),
    };
  });
  return rows.map((row) => ({ ...row, speedUp: row.tokensPerSecond / rows[0].tokensPerSecond, cpuRatio: row.cpuSeconds / rows[0].cpuSeconds }));
}

export function trainThreadsLines(r: TrainThreadsResult): string[] {
  return [
    `Measured by \`${r.command}\` (${r.measured.slice(0, 10)}): ${r.cpu}, ${r.cores} cores, load average ${r.loadAverage.before.toFixed(2)} before and ${r.loadAverage.after.toFixed(2)} after;`,
    `${r.steps} timed steps per measurement (after one warm-up step), ${r.rounds} round(s), the thread counts alternating.`,
    '',
    '| threads | tokens/s, median (range) | speed-up | CPU s per measurement, median | CPU ratio |',
    '|---:|---|---:|---:|---:|',
    ...summarise(r).map((s) => `| ${s.threads} | ${s.tokensPerSecond} (${s.range[0]}–${s.range[1]}) | ${s.speedUp.toFixed(2)}× | ${s.cpuSeconds.toFixed(1)} | ${s.cpuRatio.toFixed(2)} |`),
  ];
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const json = join(RESULTS, 'train-threads.json');
  const write = (r: TrainThreadsResult) => {
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(json, JSON.stringify(r, null, 2) + '\n');
    writeFileSync(join(RESULTS, 'train-threads.md'), trainThreadsLines(r).join('\n') + '\n');
  };
  if (process.argv.includes('--render')) write(JSON.parse(readFileSync(json, 'utf8')) as TrainThreadsResult);
  else {
    const threads = scriptFlag('threads', `1,${Math.min(2, availableParallelism())}`).split(',').map(Number);
    const rounds = Number(scriptFlag('rounds', '3'));
    const steps = Number(scriptFlag('steps', '5'));
    const before = loadavg()[0];
    const runs: Measurement[] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const t of round % 2 === 1 ? threads : [...threads].reverse()) {
        const m = measure(t, round, steps);
        console.error(`round ${round}, --threads ${t}: ${m.tokensPerSecond} tokens/s, ${m.cpuSeconds.toFixed(1)} CPU s`);
        runs.push(m);
      }
    }
    write({
      measured: new Date().toISOString(),
      command: `npx tsx pipeline/bench/train-threads.ts --threads ${threads.join(',')} --rounds ${rounds} --steps ${steps}`,
      cpu: cpus()[0]?.model.trim() ?? 'unknown', cores: availableParallelism(),
      loadAverage: { before, after: loadavg()[0] }, steps, rounds, runs,
    });
  }
  console.log(readFileSync(join(RESULTS, 'train-threads.md'), 'utf8'));
}
