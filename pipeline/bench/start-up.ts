/**
 * `npm run bench:start-up`: what a command that needs no model costs to start (issue 33 §2: `npx toolformer tools
 * --format openai` under 1.5 CPU s), split into its parts — node itself, npm's `npx`, and the CLI run directly.
 *
 *   npx tsx pipeline/bench/start-up.ts [--repeats 7]
 *
 * Each command runs `--repeats` times under `/usr/bin/time -f '%U %S'` (user + system CPU seconds of the process and
 * its children); the best and the median are kept. CPU time, not wall time: the machine is shared, and other
 * processes' load moves wall time far more than CPU time (it still moves CPU time a little: cache misses, the
 * scheduler), so the load average is recorded beside. Writes pipeline/bench/results/start-up.json and start-up.md
 * (committed; pipeline/node/README.md's block is made from the .md by `npm run docs`).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median } from '../core/median.ts';
import { scriptFlag } from '../io/script-flag.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, 'pipeline/bench/results');
const REPEATS = Number(scriptFlag('repeats', '7'));
/** The commands' TMPDIR (their `mktemp -d` caches), removed at the end. */
const SCRATCH = mkdtempSync(join(tmpdir(), 'start-up-bench-'));

/** What is measured, and what each row tells apart. */
const COMMANDS: { command: string; what: string }[] = [
  { command: "node -e ''", what: 'Node alone: the floor of any command' },
  { command: "npx --no-install node -e ''", what: "npm's `npx` around a bare node: its own start-up" },
  { command: 'node pipeline/node/bin.mjs --help', what: 'the TypeScript CLI: tsx and the command table, no command module' },
  { command: 'node pipeline/node/bin.mjs --version', what: 'answered in plain JavaScript (start-cache.mjs): no tsx' },
  { command: 'TOOLFORMER_CACHE=$(mktemp -d) node pipeline/node/bin.mjs tools --format openai', what: '`tools` with nothing stored: the TypeScript path, which stores the list' },
  { command: 'node pipeline/node/bin.mjs tools --format openai', what: '`tools` once stored for these sources: plain JavaScript (as an installed `toolformer` bin runs it)' },
  { command: 'npx toolformer --help', what: '`npx` around the TypeScript path' },
  { command: 'npx toolformer tools --format openai', what: 'the command as the README writes it: npx runs node_modules/.bin/toolformer' },
];

/** User + system CPU seconds of one run (the process and its children, as /usr/bin/time reports them). */
function cpuSeconds(command: string): number {
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', 'bash', '-c', `${command} > /dev/null`], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TMPDIR: SCRATCH } });
  if (r.status !== 0) throw new Error(`${command}: exit ${r.status}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const [user, system] = r.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return user + system;
}

// The list stored once in the user's cache (a clone's first `tools` stores it), as after any earlier call.
cpuSeconds('node pipeline/node/bin.mjs tools --format openai');
const load = [loadavg()[0]];
const rows = COMMANDS.map(({ command, what }) => {
  const seconds = Array.from({ length: REPEATS }, () => cpuSeconds(command));
  load.push(loadavg()[0]);
  console.error(`${command}: best ${Math.min(...seconds).toFixed(2)} CPU s, median ${median(seconds).toFixed(2)}`);
  return { command, what, bestCpuSeconds: Math.min(...seconds), medianCpuSeconds: median(seconds), seconds };
});

rmSync(SCRATCH, { recursive: true, force: true });

const npmVersion = spawnSync('npm', ['--version'], { encoding: 'utf8' }).stdout.trim();
const result = {
  measured: new Date().toISOString(),
  node: process.version,
  npm: npmVersion,
  cores: cpus().length,
  loadAverage: { min: Math.min(...load), max: Math.max(...load) },
  repeats: REPEATS,
  rows,
};
mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'start-up.json'), JSON.stringify(result, null, 2) + '\n');
const f2 = (x: number) => x.toFixed(2);
const md = [
  '# Start-up of a command that needs no model',
  '',
  `Measured ${result.measured.slice(0, 10)} by \`npm run bench:start-up\`: Node ${result.node}, npm ${npmVersion}, ${result.cores} cores at load ` +
    `average ${result.loadAverage.min.toFixed(1)}–${result.loadAverage.max.toFixed(1)}; user + system CPU seconds (\`/usr/bin/time\`), best and median of ${REPEATS} runs.`,
  '',
  '| command | best CPU s | median CPU s | what it shows |',
  '|---|--:|--:|---|',
  ...rows.map((r) => `| \`${r.command}\` | ${f2(r.bestCpuSeconds)} | ${f2(r.medianCpuSeconds)} | ${r.what} |`),
  '',
];
writeFileSync(join(OUT, 'start-up.md'), md.join('\n'));
console.log(md.join('\n'));
