/**
 * The probe verdict cache (issue 28 item 2): a 2-document annotate of corpus/sample.jsonl on the bundled model
 * (models/default, the CLI's defaults, --workers 1 so that the whole run is one process), twice against one empty
 * cache directory: the first run computes the probes and stores their verdicts, the second reads them. For each, the
 * process's CPU seconds when its first document is about to start (annotate-command.ts's 'toolformer:run-start',
 * recorded by the preloaded run-start-cpu.mjs) and at exit. Checks that the two runs wrote the same train, calls,
 * errors and stats files and that config.json differs only in probeCache.cached.
 *
 *   npx tsx pipeline/bench/probe-cache.ts       → pipeline/bench/results/probe-cache.json
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = 2;

interface Measured {
  /** config.json's probeCache. */
  probeCache: { key: string; cached: boolean };
  cpuSecondsBeforeFirstDocument: number;
  cpuSecondsTotal: number;
  wallSeconds: number;
}

function annotate(out: string, cache: string): Measured {
  const cpuFile = `${out}.cpu.jsonl`;
  const started = performance.now();
  execFileSync(
    process.execPath,
    ['--import', join(ROOT, 'pipeline/bench/run-start-cpu.mjs'), join(ROOT, 'pipeline/node/bin.mjs'), 'annotate', 'corpus/sample.jsonl', '--max-docs', String(DOCS), '--workers', '1', '--quiet', '--out', out],
    { cwd: ROOT, env: { ...process.env, TOOLFORMER_CACHE: cache, RUN_START_CPU_FILE: cpuFile }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const wallSeconds = (performance.now() - started) / 1000;
  const marks = readFileSync(cpuFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { at: string; cpuSeconds: number });
  const at = (name: string) => marks.find((m) => m.at === name)?.cpuSeconds ?? NaN;
  const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
  return { probeCache: config.probeCache, cpuSecondsBeforeFirstDocument: at('first-document'), cpuSecondsTotal: at('exit'), wallSeconds };
}

const round = (x: number) => Math.round(x * 100) / 100;
const tmp = mkdtempSync(join(tmpdir(), 'probe-cache-'));
try {
  const cache = join(tmp, 'cache');
  const computed = annotate(join(tmp, 'computed'), cache);
  const cached = annotate(join(tmp, 'cached'), cache);
  const read = (run: string, file: string) => readFileSync(join(tmp, run, file), 'utf8');
  const sameFiles = ['train.jsonl', 'calls.jsonl', 'errors.jsonl', 'stats.json'].every((f) => read('computed', f) === read('cached', f));
  const configOf = (run: string) => JSON.parse(read(run, 'config.json')) as { probeCache: { cached: boolean } };
  const [a, b] = [configOf('computed'), configOf('cached')];
  b.probeCache.cached = a.probeCache.cached;
  const configSameButCached = JSON.stringify(a) === JSON.stringify(b);
  const show = (m: Measured) => ({ ...m, cpuSecondsBeforeFirstDocument: round(m.cpuSecondsBeforeFirstDocument), cpuSecondsTotal: round(m.cpuSecondsTotal), wallSeconds: round(m.wallSeconds) });
  const result = {
    what: `annotate corpus/sample.jsonl --max-docs ${DOCS} --workers 1 on models/default, twice with one empty TOOLFORMER_CACHE: probes computed, then read from the cache`,
    command: 'npx tsx pipeline/bench/probe-cache.ts',
    date: new Date().toISOString(),
    machine: `linux x64, load ${loadavg()[0].toFixed(2)} at the end (a shared machine: CPU seconds, not wall, are the measure)`,
    computed: show(computed),
    cached: show(cached),
    sameOutputFiles: sameFiles,
    configDiffersOnlyInCached: configSameButCached,
    beforeFirstDocumentRatio: round(computed.cpuSecondsBeforeFirstDocument / cached.cpuSecondsBeforeFirstDocument),
  };
  if (!sameFiles || !configSameButCached || !computed.probeCache || computed.probeCache.cached || !cached.probeCache?.cached) {
    throw new Error(`the cached run is not the computed run: ${JSON.stringify(result)}`);
  }
  writeFileSync(join(ROOT, 'pipeline/bench/results/probe-cache.json'), JSON.stringify(result, null, 2) + '\n');
  console.log(JSON.stringify(result, null, 2));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
