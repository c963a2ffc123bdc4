/**
 * `npm run docs:tests -- --suite fast|full`: runs `npm run test:fast` (fast) or `npm test` (full) once, as a user
 * would, and records how long it took in pipeline/docs/results/tests.json (one entry per suite, the other kept), from
 * which `npm run docs` writes README.md's expected durations (renderers.ts, view testDurations).
 *
 * Measured: wall seconds and user + system CPU seconds of the whole command (`/usr/bin/time`, vitest's workers
 * included), the load average before and after (the machine is shared: wall time moves with it), and vitest's own
 * count of files and tests (its JSON reporter). A run with failures is recorded too — the count says so.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { TestDurations, TestRunRecord } from './renderers.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const RESULTS = join(ROOT, 'pipeline/docs/results/tests.json');


const SUITES = {
  fast: ['npm run test:fast', ['vitest', 'run', '--config', 'vitest.fast.config.ts']],
  full: ['npm test', ['vitest', 'run']],
} as const;

function record(suite: keyof typeof SUITES): TestRunRecord {
  const [command, vitest] = SUITES[suite];
  const scratch = mkdtempSync(join(tmpdir(), 'record-tests-'));
  const report = join(scratch, 'vitest.json');
  const measured = new Date().toISOString();
  const before = loadavg()[0];
  // `npx vitest` rather than the npm script: the JSON reporter's flags go to vitest, and pretest's apt check is not timed.
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', '-o', join(scratch, 'time'), 'npx', ...vitest, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const after = loadavg()[0];
  if (!existsSync(report)) throw new Error(`${command}: vitest wrote no report (exit ${r.status})`);
  const [wall, user, system] = readFileSync(join(scratch, 'time'), 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  const json = JSON.parse(readFileSync(report, 'utf8')) as { numTotalTestSuites: number; numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number; testResults: unknown[] };
  rmSync(scratch, { recursive: true, force: true });
  return {
    command,
    measured,
    wallSeconds: wall,
    cpuSeconds: Math.round((user + system) * 10) / 10,
    loadAverage: { before, after },
    cores: cpus().length,
    files: json.testResults.length,
    tests: { passed: json.numPassedTests, failed: json.numFailedTests, skipped: json.numPendingTests + json.numTodoTests },
  };
}

const { values } = parseArgs({ options: { suite: { type: 'string', default: 'fast' } } });
const suite = values.suite as keyof typeof SUITES;
if (!(suite in SUITES)) throw new Error(`--suite must be fast or full (got ${JSON.stringify(values.suite)})`);
const recorded: TestDurations = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : {};
recorded[suite] = record(suite);
mkdirSync(join(ROOT, 'pipeline/docs/results'), { recursive: true });
writeFileSync(RESULTS, JSON.stringify(recorded, null, 2) + '\n');
console.log(`${SUITES[suite][0]}: ${recorded[suite]!.wallSeconds} s wall, ${recorded[suite]!.cpuSeconds} CPU s → ${RESULTS} (npm run docs writes README.md from it)`);
