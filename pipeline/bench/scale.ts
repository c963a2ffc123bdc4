/**
 * `npm run bench` (second part) / `npm run bench:scale`: scale-out throughput, through the CLI as a user runs it.
 *
 *   npx tsx pipeline/bench/scale.ts [--docs 16] [--rounds 1] [--model models/default]
 *
 * Variants, interleaved per round on the same documents (the first --docs of corpus/sample.jsonl, default config):
 *   one      annotate --workers 1                       (the single process)
 *   two      annotate --workers 2                       (embedded pool, no server)
 *   queue    annotate --queue + worker --processes 2     (BullMQ on a local redis-server, same 2 cores)
 * Wall time from start to files written, model loading and process start included (what a user waits for).
 * The machine is shared with other processes: the load average before and after each run is recorded, and the
 * ratios (two/one, queue/two) come from the same round. Every variant's files are checked byte-identical to `one`.
 * Writes pipeline/bench/results/scale.json and scale.md (committed); the 1M-document projection uses the single process's rate.
 */
import { cpus, loadavg } from 'node:os';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RedisServer, hasRedisServer } from '../node/run/executors/redis-server.ts';
import { spawn } from 'node:child_process';
import { median } from '../core/median.ts';
import { scriptFlag } from '../io/script-flag.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const arg = scriptFlag;
const WANTED = Number(arg('docs', '120'));
const ROUNDS = Number(arg('rounds', '1'));
const MODEL = resolve(ROOT, arg('model', 'models/default'));
// Results are committed: the READMEs' generated blocks are made from them (npm run docs).
const OUT = join(ROOT, 'pipeline/bench/results');
const tmp = mkdtempSync(join(tmpdir(), 'bench-scale-'));
const log = (...xs: unknown[]) => console.error(`[bench:scale ${new Date().toISOString().slice(11, 19)}]`, ...xs);

/**
 * The documents: corpus/sample.jsonl first (30), then, past it, every 40th document of the bundled corpus (Factbook
 * and State of the Union in turn), so a larger --docs still mixes both sources and their lengths.
 */
const readLines = (file: string) => readFileSync(join(ROOT, 'corpus', file), 'utf8').trim().split('\n');
const sample = readLines('sample.jsonl');
const idOf = (line: string) => (JSON.parse(line) as { id: string }).id;
const inSample = new Set(sample.map(idOf));
const [factbook, sotu] = ['factbook.jsonl', 'sotu.jsonl'].map((f) => readLines(f).filter((l, i) => i % 40 === 0 && !inSample.has(idOf(l))));
const more = factbook.flatMap((l, i) => [l, sotu[i]]).filter(Boolean);
const lines = [...sample, ...more].slice(0, WANTED);
const DOCS = lines.length;
const SOURCE = DOCS <= sample.length ? 'corpus/sample.jsonl' : `corpus/sample.jsonl + ${DOCS - sample.length} more of the bundled corpus`;
/** Items per chunk for the 2-process variants: about 4 chunks per process, so neither waits long for the other. */
const CHUNK = Math.max(1, Math.ceil(DOCS / 8));
writeFileSync(join(tmp, 'corpus.jsonl'), lines.join('\n') + '\n');
const annotate = (out: string, ...extra: string[]) => ['annotate', 'corpus.jsonl', '--model', MODEL, '--out', out, '--quiet', ...extra];
const FILES = ['train.jsonl', 'calls.jsonl', 'errors.jsonl', 'stats.json', 'config.json'];
/**
 * Whether two runs' files are the same bytes. Under heavy load an Apertium call can pass its timeout (--tool-timeout) in one run and
 * not the other (the pipeline's tool timeout is wall time, whatever the scale-out): such lines are counted, not fatal.
 */
const differences: string[] = [];
const same = (a: string, b: string) => {
  const diff = FILES.filter((f) => !readFileSync(join(tmp, a, f)).equals(readFileSync(join(tmp, b, f))));
  if (diff.length === 0) return true;
  const lines = (run: string) => readFileSync(join(tmp, run, 'calls.jsonl'), 'utf8').split('\n');
  const [x, y] = [lines(a), lines(b)];
  const changed = x.map((l, i) => [l, y[i]]).filter(([l, m]) => l !== m);
  const timeouts = changed.every(([l, m]) => /timed out after/.test(l) || /timed out after/.test(m ?? ''));
  if (x.length !== y.length || !timeouts || diff.some((f) => !['calls.jsonl', 'stats.json', 'train.jsonl'].includes(f))) return false;
  differences.push(`${b}: ${changed.length} call(s) timed out in one run only`);
  return true;
};

interface Timing { seconds: number; cpu: number; load: [number, number] }
const BIN = join(ROOT, 'pipeline/node/bin.mjs');
/** Run the CLI under GNU time: wall seconds, and user + system CPU seconds of it and every process it reaped. */
function cli(args: string[]): Promise<{ cpu: number }> {
  const timeFile = join(tmp, `time-${Math.random().toString(36).slice(2)}`);
  return new Promise((res, rej) => {
    const child = spawn('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, process.execPath, BIN, ...args], { cwd: tmp, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => {
      if (code !== 0) return rej(new Error(`toolformer ${args[0]} failed (${code}): ${stderr.slice(-500)}`));
      const [user, system] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
      res({ cpu: user + system });
    });
  });
}
/** CPU seconds a process has used so far (Linux /proc; clock ticks of 1/100 s). */
const procCpu = (pid: number | undefined) => {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return 0;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
async function timed(f: () => Promise<number>): Promise<Timing> {
  const before = loadavg()[0];
  const t0 = performance.now();
  const cpu = await f();
  return { seconds: (performance.now() - t0) / 1000, cpu, load: [before, loadavg()[0]] };
}

const redis = hasRedisServer() ? await RedisServer.start(join(tmp, 'redis')) : null;
if (!redis) log('redis-server not installed: the queue variant is skipped (bash .ci/ensure-apt.sh installs it)');
const rounds: Record<string, Timing>[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    const t: Record<string, Timing> = {};
    log(`round ${round + 1}/${ROUNDS}: ${DOCS} documents, ${MODEL.replace(ROOT + '/', '')}`);
    t.one = await timed(async () => (await cli(annotate(`one${round}`, '--workers', '1'))).cpu);
    log(`one: ${t.one.seconds.toFixed(1)} s, ${t.one.cpu.toFixed(1)} CPU s`);
    t.two = await timed(async () => (await cli(annotate(`two${round}`, '--workers', '2', '--chunk', String(CHUNK)))).cpu);
    log(`two: ${t.two.seconds.toFixed(1)} s, ${t.two.cpu.toFixed(1)} CPU s`);
    if (!same(`one${round}`, `two${round}`)) throw new Error('--workers 2 files differ from --workers 1');
    if (redis) {
      t.queue = await timed(async () => {
        const redisBefore = procCpu(redis.pid);
        const [c, w] = await Promise.all([
          cli(annotate(`queue${round}`, '--queue', redis.url, '--chunk', String(CHUNK))),
          cli(['worker', '--queue', redis.url, '--model', MODEL, '--processes', '2', '--quiet']),
        ]);
        return c.cpu + w.cpu + procCpu(redis.pid) - redisBefore;
      });
      log(`queue: ${t.queue.seconds.toFixed(1)} s, ${t.queue.cpu.toFixed(1)} CPU s (coordinator, worker, its processes, redis-server)`);
      if (!same(`one${round}`, `queue${round}`)) throw new Error('--queue files differ from --workers 1');
    }
    rounds.push(t);
  }
} finally {
  await redis?.stop();
}

const rate = (k: string) => median(rounds.map((r) => DOCS / r[k].seconds));
const ratio = (a: string, b: string) => median(rounds.map((r) => r[b].seconds / r[a].seconds));
const perCore = rate('one');
const result = {
  docs: DOCS,
  model: MODEL.replace(ROOT + '/', ''),
  cores: cpus().length,
  loadAverage: rounds.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.load]))),
  seconds: rounds.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.seconds]))),
  docsPerSecond: { one: perCore, two: rate('two'), queue: redis ? rate('queue') : null },
  cpuSeconds: rounds.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.cpu]))),
  speedupTwoWorkers: ratio('two', 'one'),
  queueOverhead: redis ? 1 / ratio('queue', 'two') - 1 : null,
  /** CPU per document, 2 processes vs 1: the extra work of a second process (model load, IPC). */
  cpuTwoOverOne: median(rounds.map((r) => r.two.cpu / r.one.cpu)),
  cpuQueueOverTwo: redis ? median(rounds.map((r) => r.queue.cpu / r.two.cpu)) : null,
  identical: differences.length === 0 ? true : differences,
  projection: { docs: 1e6, hours: 24, docsPerSecondPerCore: perCore, cores: Math.ceil(1e6 / (perCore * 86_400)) },
};
mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'scale.json'), JSON.stringify(result, null, 2) + '\n');
const f = (x: number, d = 2) => x.toFixed(d);
const load = (k: string) => rounds.map((r) => r[k]).map((t) => `${f(t.load[0], 1)}→${f(t.load[1], 1)}`).join(', ');
const pct = (x: number) => `${x >= 0 ? '+' : ''}${f(100 * x, 1)} %`;
const idleSpeedup = 2 / result.cpuTwoOverOne;
const md = [
  `Scale out (\`npm run bench:scale\`, ${DOCS} documents (${SOURCE}), ${result.model}, default config, ${ROUNDS} round(s), 2-process variants in chunks of ${CHUNK}; wall time from start to merged files, process start and model load included; CPU = user + system of every process of the variant, GNU time; ${result.cores} cores shared with other work):`,
  '',
  '| Variant | Wall s | Documents/s (wall) | CPU s | Load avg (1 min) before→after | Target |',
  '|---|---|---|---|---|---|',
  `| \`--workers 1\` | ${f(rounds[0].one.seconds, 1)} | ${f(rate('one'), 3)} | ${f(rounds[0].one.cpu, 1)} | ${load('one')} | |`,
  `| \`--workers 2\` | ${f(rounds[0].two.seconds, 1)} | ${f(rate('two'), 3)} | ${f(rounds[0].two.cpu, 1)} | ${load('two')} | wall **${f(result.speedupTwoWorkers)}×** of 1 worker (≥ 1.7× ${result.speedupTwoWorkers >= 1.7 ? '✔' : '✘'}); CPU ${pct(result.cpuTwoOverOne - 1)} → ${f(idleSpeedup)}× on 2 idle cores |`,
  ...(redis ? [`| \`--queue\` + \`worker --processes 2\` (+ redis-server) | ${f(rounds[0].queue.seconds, 1)} | ${f(rate('queue'), 3)} | ${f(rounds[0].queue.cpu, 1)} | ${load('queue')} | wall ${pct(result.queueOverhead!)} vs \`--workers 2\`, CPU ${pct(result.cpuQueueOverTwo! - 1)} (≤ 10 % ${Math.max(result.queueOverhead!, result.cpuQueueOverTwo! - 1) <= 0.1 ? '✔' : '✘'}) |`] : []),
  '',
  `Files byte-identical across the variants: ${differences.length === 0 ? 'yes (checked)' : `yes except tool timeouts under load (${differences.join('; ')})`}. "On 2 idle cores" = 2 / (CPU of 2 processes / CPU of 1), the speed-up if each process had a core to itself — a projection from CPU time, not a wall measurement.`,
  `Projection: 1,000,000 documents in 24 h at ${f(perCore, 3)} documents/s per core (the single process, wall, on this loaded machine) need **${result.projection.cores} cores** (e.g. ${Math.ceil(result.projection.cores / 16)} machines × \`worker --processes 16\`); from CPU time (${f(DOCS / rounds[0].one.cpu, 3)} documents per CPU second) **${Math.ceil(1e6 / ((DOCS / rounds[0].one.cpu) * 86_400))} cores**.`,
  '',
].join('\n');
writeFileSync(join(OUT, 'scale.md'), md);
console.log(md);
rmSync(tmp, { recursive: true, force: true });
