/**
 * `npx tsx pipeline/bench/backends.ts [--docs N] [--model DIR]`: the same annotate run on every LM backend, side by
 * side in one run (issue 45 item 6, the in-process and served half): ONNX Runtime in-process, ONNX Runtime behind
 * `toolformer serve` over HTTP, and llama.cpp on the GGUF conversions (f32, f16, q8_0) of the same weights.
 *
 * Per backend: CPU seconds per scored call (the annotating process, plus the server's for the served run — both read
 * from /proc, user + system, children included), wall seconds, scored calls, whether the kept calls and train.jsonl
 * equal ONNX Runtime's, and the largest |Δ loss| against ONNX Runtime over the calls both scored (calls.jsonl). Ratios
 * are within this one run, so a busy machine slows every row alike. Writes results/backends.{json,md}.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'pipeline/node/bin.mjs');
const RESULTS = join(ROOT, 'pipeline/bench/results');
const { values } = parseArgs({ options: { docs: { type: 'string', default: '6' }, model: { type: 'string', default: 'models/default' } } });
const DOCS = Number(values.docs);
const MODEL = values.model!;

/** CPU seconds (user + system) of `pid` and its waited-for children, from /proc (Linux). */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime, stime, cutime, cstime are fields 14–17 of stat; after "pid (comm) " they start at index 11.
  return fields.slice(11, 15).reduce((s, x) => s + Number(x), 0) / 100;
}

/** Runs `toolformer <args>` to its end; its CPU seconds are read from /proc just before it is reaped. */
function timed(args: string[]): Promise<{ wall: number; cpu: number; code: number | null; stderr: string }> {
  const started = performance.now();
  // `time -f` prints the child's own accounting when it ends: user and system seconds.
  const child = spawn('/usr/bin/time', ['-f', 'TIME %U %S', process.execPath, BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d));
  return new Promise((done) =>
    child.on('close', (code) => {
      const t = /TIME ([\d.]+) ([\d.]+)\s*$/.exec(stderr);
      done({ wall: (performance.now() - started) / 1000, cpu: t ? Number(t[1]) + Number(t[2]) : NaN, code, stderr: stderr.replace(/TIME [\d.]+ [\d.]+\s*$/, '').replace(/Command exited with non-zero status \d+\s*$/, '') });
    }),
  );
}

function startServe(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--model', MODEL, '--port', '0', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((done, fail) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      const url = /at (http:\/\/\S+\/v1)/.exec(out)?.[1];
      if (url) done({ child, url });
    });
    child.on('exit', (code) => fail(new Error(`serve exited ${code}`)));
  });
}

interface Row {
  backend: string;
  model: string;
  wallSeconds: number;
  cpuSeconds: number;
  scoredCalls: number;
  cpuPerScoredCall: number;
  keptCalls: number;
  sameTrainAsOrt: boolean;
  sameVerdictsAsOrt: boolean;
  maxLossGapNats: number;
  error?: string;
}

const work = mkdtempSync(join(tmpdir(), 'bench-backends-'));
const annotateArgs = (out: string, ...extra: string[]) => ['annotate', 'corpus/sample.jsonl', '--max-docs', String(DOCS), '--workers', '1', '--quiet', '--no-probe-cache', '--out', out, ...extra];

type Call = { docId: string; tool: string; input: string; at: number; losses?: Record<string, number>; kept: boolean };
const callsOf = (out: string): Call[] => readFileSync(join(out, 'calls.jsonl'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Call);
const keyOf = (c: Call) => `${c.docId}\0${c.tool}\0${c.input}\0${c.at}`;
const scoredOf = (out: string) => Object.values(JSON.parse(readFileSync(join(out, 'stats.json'), 'utf8')).tools as Record<string, { scored: number }>).reduce((s, t) => s + t.scored, 0);

function compare(out: string, reference: string): Pick<Row, 'sameTrainAsOrt' | 'sameVerdictsAsOrt' | 'maxLossGapNats' | 'keptCalls'> {
  // calls.jsonl lists the candidates in a deterministic order: the same candidates come in the same lines, so the
  // comparison is line by line (a key can repeat: the same call from two proposers); a line whose call differs is
  // not compared, and the verdicts then count as differing.
  const [mine, theirs] = [callsOf(out), callsOf(reference)];
  let gap = 0;
  let sameVerdicts = mine.length === theirs.length;
  theirs.forEach((c, i) => {
    const m = mine[i];
    if (!m || keyOf(m) !== keyOf(c)) {
      sameVerdicts = false;
      return;
    }
    if (m.kept !== c.kept) sameVerdicts = false;
    for (const [k, v] of Object.entries(c.losses ?? {})) if (m.losses?.[k] !== undefined) gap = Math.max(gap, Math.abs(m.losses[k] - v));
  });
  return {
    keptCalls: mine.filter((c) => c.kept).length,
    sameTrainAsOrt: readFileSync(join(out, 'train.jsonl'), 'utf8') === readFileSync(join(reference, 'train.jsonl'), 'utf8'),
    sameVerdictsAsOrt: sameVerdicts,
    maxLossGapNats: Number(gap.toFixed(4)),
  };
}

const rows: Row[] = [];
const load = [loadavg()[0]];
const ortOut = join(work, 'ort');
async function measure(backend: string, model: string, out: string, extra: string[] = [], serverPid?: number): Promise<void> {
  const serverBefore = serverPid ? cpuOf(serverPid) : 0;
  const r = await timed(annotateArgs(out, '--model', model, ...extra));
  const serverCpu = serverPid ? cpuOf(serverPid) - serverBefore : 0;
  if (r.code !== 0 || !existsSync(join(out, 'stats.json'))) {
    rows.push({ backend, model, wallSeconds: r.wall, cpuSeconds: NaN, scoredCalls: 0, cpuPerScoredCall: NaN, keptCalls: 0, sameTrainAsOrt: false, sameVerdictsAsOrt: false, maxLossGapNats: NaN, error: r.stderr.trim().split('\n').at(-1) });
    return;
  }
  const scored = scoredOf(out);
  const cpu = r.cpu + serverCpu;
  rows.push({ backend, model, wallSeconds: Number(r.wall.toFixed(1)), cpuSeconds: Number(cpu.toFixed(2)), scoredCalls: scored, cpuPerScoredCall: Number((cpu / scored).toFixed(4)), ...compare(out, ortOut) });
  console.error(`${backend}: ${cpu.toFixed(1)} CPU s, ${scored} scored calls`);
}

await measure('onnx (in-process)', MODEL, ortOut);
const served = await startServe();
await measure('onnx behind toolformer serve (HTTP)', served.url, join(work, 'served'), ['--tokenizer', MODEL], served.child.pid);
served.child.kill('SIGTERM');
for (const dtype of ['f32', 'f16', 'q8_0']) {
  const gguf = join(work, `model-${dtype}.gguf`);
  const converted = await timed(['convert', MODEL, '--to', 'gguf', '--dtype', dtype, '--out', gguf]);
  if (converted.code !== 0) {
    rows.push({ backend: `llama.cpp ${dtype}`, model: gguf, wallSeconds: 0, cpuSeconds: NaN, scoredCalls: 0, cpuPerScoredCall: NaN, keptCalls: 0, sameTrainAsOrt: false, sameVerdictsAsOrt: false, maxLossGapNats: NaN, error: converted.stderr.trim().split('\n').at(-1) });
    continue;
  }
  await measure(`llama.cpp ${dtype} (in-process)`, gguf, join(work, `llama-${dtype}`));
}
load.push(loadavg()[0]);
rmSync(work, { recursive: true, force: true });

const ort = rows[0];
const result = { date: new Date().toISOString().slice(0, 10), model: MODEL, docs: DOCS, loadAverage: load.map((x) => Number(x.toFixed(1))), rows };
writeFileSync(join(RESULTS, 'backends.json'), JSON.stringify(result, null, 2) + '\n');
const md = [
  `Measured by \`npx tsx pipeline/bench/backends.ts --docs ${DOCS}\` on ${result.date}: \`annotate corpus/sample.jsonl --max-docs ${DOCS}\` with ${MODEL} on each backend, one after another in one run (load average ${result.loadAverage.join(' → ')}). CPU includes the server's for the served row.`,
  '',
  '| backend | CPU s per scored call | × ONNX in-process | scored calls | kept | train.jsonl as ONNX | verdicts as ONNX | largest \\|Δ loss\\|, nats |',
  '|---|---:|---:|---:|---:|---|---|---:|',
  ...rows.map((r) =>
    r.error
      ? `| ${r.backend} | failed: ${r.error} | | | | | | |`
      : `| ${r.backend} | ${r.cpuPerScoredCall.toFixed(4)} | ${(r.cpuPerScoredCall / ort.cpuPerScoredCall).toFixed(2)} | ${r.scoredCalls} | ${r.keptCalls} | ${r.sameTrainAsOrt ? 'same' : 'differs'} | ${r.sameVerdictsAsOrt ? 'same' : 'differ'} | ${r.maxLossGapNats} |`,
  ),
  '',
].join('\n');
writeFileSync(join(RESULTS, 'backends.md'), md);
console.log(md);
