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
 * Writes out/bench/scale.json and out/bench/scale.md; the 1M-document projection uses the single process's rate.
 */
import { cpus, loadavg } from 'node:os';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RedisServer, hasRedisServer } from '../node/testing/redis-server.ts';
import { runCli, spawnCli } from '../node/testing/cli-child.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const DOCS = Number(arg('docs', '16'));
const ROUNDS = Number(arg('rounds', '1'));
const MODEL = resolve(ROOT, arg('model', 'models/default'));
const OUT = join(ROOT, 'out/bench');
const tmp = mkdtempSync(join(tmpdir(), 'bench-scale-'));
const log = (...xs: unknown[]) => console.error(`[bench:scale ${new Date().toISOString().slice(11, 19)}]`, ...xs);

const lines = readFileSync(join(ROOT, 'corpus/sample.jsonl'), 'utf8').trim().split('\n').slice(0, DOCS);
writeFileSync(join(tmp, 'corpus.jsonl'), lines.join('\n') + '\n');
const annotate = (out: string, ...extra: string[]) => ['annotate', 'corpus.jsonl', '--model', MODEL, '--out', out, '--quiet', ...extra];
const FILES = ['train.jsonl', 'calls.jsonl', 'errors.jsonl', 'stats.json', 'config.json'];
const same = (a: string, b: string) => FILES.every((f) => readFileSync(join(tmp, a, f)).equals(readFileSync(join(tmp, b, f))));

interface Timing { seconds: number; load: [number, number] }
async function timed(f: () => Promise<void>): Promise<Timing> {
  const before = loadavg()[0];
  const t0 = performance.now();
  await f();
  return { seconds: (performance.now() - t0) / 1000, load: [before, loadavg()[0]] };
}
const ok = (r: { code: number | null; stderr: string }, what: string) => {
  if (r.code !== 0) throw new Error(`${what} failed (${r.code}): ${r.stderr.slice(-500)}`);
};

const redis = hasRedisServer() ? await RedisServer.start(join(tmp, 'redis')) : null;
if (!redis) log('redis-server not installed: the queue variant is skipped (bash .ci/ensure-apt.sh installs it)');
const rounds: Record<string, Timing>[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    const t: Record<string, Timing> = {};
    log(`round ${round + 1}/${ROUNDS}: ${DOCS} documents, ${MODEL.replace(ROOT + '/', '')}`);
    t.one = await timed(async () => ok(await runCli(annotate(`one${round}`, '--workers', '1'), tmp), 'one'));
    log(`one: ${t.one.seconds.toFixed(1)} s`);
    t.two = await timed(async () => ok(await runCli(annotate(`two${round}`, '--workers', '2'), tmp), 'two'));
    log(`two: ${t.two.seconds.toFixed(1)} s`);
    if (!same(`one${round}`, `two${round}`)) throw new Error('--workers 2 files differ from --workers 1');
    if (redis) {
      t.queue = await timed(async () => {
        const coordinator = spawnCli(annotate(`queue${round}`, '--queue', redis.url), tmp);
        const worker = spawnCli(['worker', '--queue', redis.url, '--model', MODEL, '--processes', '2', '--quiet'], tmp);
        const [c, w] = await Promise.all([coordinator.done, worker.done]);
        ok(c, 'annotate --queue');
        ok(w, 'worker');
      });
      log(`queue: ${t.queue.seconds.toFixed(1)} s`);
      if (!same(`one${round}`, `queue${round}`)) throw new Error('--queue files differ from --workers 1');
    }
    rounds.push(t);
  }
} finally {
  await redis?.stop();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
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
  speedupTwoWorkers: ratio('two', 'one'),
  queueOverhead: redis ? 1 / ratio('queue', 'two') - 1 : null,
  identical: true,
  projection: { docs: 1e6, hours: 24, docsPerSecondPerCore: perCore, cores: Math.ceil(1e6 / (perCore * 86_400)) },
};
mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'scale.json'), JSON.stringify(result, null, 2) + '\n');
const f = (x: number, d = 2) => x.toFixed(d);
const load = (k: string) => rounds.map((r) => r[k]).map((t) => `${f(t.load[0], 1)}→${f(t.load[1], 1)}`).join(', ');
const md = [
  `Scale out (\`npm run bench:scale\`, ${DOCS} documents of corpus/sample.jsonl, ${result.model}, default config, ${ROUNDS} round(s); wall time incl. process start and model load; ${result.cores} cores shared):`,
  '',
  '| Variant | Wall s | Documents/s | Load average (1 min) before→after | Target |',
  '|---|---|---|---|---|',
  `| \`--workers 1\` | ${f(rounds[0].one.seconds, 1)} | ${f(rate('one'), 3)} | ${load('one')} | |`,
  `| \`--workers 2\` | ${f(rounds[0].two.seconds, 1)} | ${f(rate('two'), 3)} | ${load('two')} | **${f(result.speedupTwoWorkers)}×** of 1 worker; ≥ 1.7× ${result.speedupTwoWorkers >= 1.7 ? '✔' : '✘'} |`,
  ...(redis ? [`| \`--queue\` + \`worker --processes 2\` | ${f(rounds[0].queue.seconds, 1)} | ${f(rate('queue'), 3)} | ${load('queue')} | overhead vs \`--workers 2\`: **${f(100 * result.queueOverhead!, 1)} %**; ≤ 10 % ${result.queueOverhead! <= 0.1 ? '✔' : '✘'} |`] : []),
  '',
  `Files byte-identical across the variants: yes (checked). Projection: 1,000,000 documents in 24 h at ${f(perCore, 3)} documents/s per core (the single process) need **${result.projection.cores} cores** (e.g. ${Math.ceil(result.projection.cores / 16)} machines × 16 \`worker\` processes).`,
  '',
].join('\n');
writeFileSync(join(OUT, 'scale.md'), md);
console.log(md);
rmSync(tmp, { recursive: true, force: true });
