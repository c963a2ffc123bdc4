/**
 * `npm run bench:backends` — every LM runtime side by side in one run (issue 45 item 6), at the bundled model
 * (models/default) and at SmolLM2-135M's shape (random weights, seed 135, written to out/bench/backends-135m/ in the
 * project's ONNX layout, never committed), on the same weights: ONNX Runtime in-process, ONNX Runtime behind
 * `toolformer serve` over HTTP, ONNX Runtime on int8 weights (Transformers.js's `q8` file, onnx/model_quantized.onnx,
 * written from the fp32 file when absent: the peer of llama.cpp q8_0), llama.cpp on the GGUF conversions
 * (`toolformer convert --to gguf`, f32 / f16 / q8_0) and PyTorch (Debian's python3-torch, installed here with apt-get when it is missing and this is root; otherwise
 * its row says why not).
 *
 *   npx tsx pipeline/bench/backends.ts [--docs 6] [--annotate-rounds 2] [--rounds 3] [--rows 16] [--rows-135m 8]
 *                                      [--length 128] [--shapes bundled,135m]
 *   npx tsx pipeline/bench/backends.ts --render     (the .md again from the .json, its notes included; no run)
 *
 * Two parts:
 * - rows (backends-rows.ts), both models: the scorer's two reads (losses, p_i) and each runtime's bare forward on
 *   R × L rows, rounds interleaved across runtimes, medians of CPU seconds: tokens/s per CPU second, the scorer over
 *   its own runtime's forward and over the fastest runtime's forward (each bare forward twice: the LM head at one
 *   position per row and at every position; the scorer's reads set against the forward with the head on the same
 *   positions, and against the fastest of any kind), the largest log-prob difference from ONNX Runtime f32, and CPU seconds per scored call (three requests,
 *   L_a / L_b / L_c, of L tokens read at their last 5 positions);
 * - annotate, the bundled model: `annotate corpus/sample.jsonl --max-docs N` on each in-process and served backend,
 *   the rounds interleaved: CPU seconds per scored call of the whole command (process start and model load included),
 *   and whether the kept calls, train.jsonl and the losses equal ONNX Runtime's.
 * Ratios are within this one run; the load average is recorded. Writes results/backends.{json,md}.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { scriptFlag } from '../io/script-flag.ts';
import { backendsMarkdown, type AnnotateRow, type BackendsResult } from './backends-format.ts';
import { benchRows, cpuOfPid, startServe, type RowsResult } from './backends-rows.ts';
import { DTYPE_FILES } from '../core/lm/dtypes.ts';
import { VARIANT_WRITERS } from '../onnx-export/replicas.ts';
import { torchAvailable } from './peer.ts';
import { writeRealSizeModel } from './real-size.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'pipeline/node/bin.mjs');
const RESULTS = join(ROOT, 'pipeline/bench/results');
const MODEL_135M = join(ROOT, 'out/bench/backends-135m');
const GGUF_DIR = join(ROOT, 'out/bench/backends-gguf');
const DTYPES = ['f32', 'f16', 'q8_0'] as const;
const log = (...xs: unknown[]) => console.error(`[backends ${new Date().toISOString().slice(11, 19)}]`, ...xs);

/** Runs `toolformer <args>` to its end; its own CPU seconds (user + system, children included) from /usr/bin/time. */
function timed(args: string[]): Promise<{ wall: number; cpu: number; code: number | null; stderr: string }> {
  const started = performance.now();
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

/** The GGUF files of `model` (one per dtype), converted now into GGUF_DIR/<name>-<dtype>.gguf. */
async function convertAll(model: string, name: string): Promise<Record<string, string>> {
  mkdirSync(GGUF_DIR, { recursive: true });
  const files: Record<string, string> = {};
  for (const dtype of DTYPES) {
    const out = join(GGUF_DIR, `${name}-${dtype}.gguf`);
    const r = await timed(['convert', model, '--to', 'gguf', '--dtype', dtype, '--out', out]);
    if (r.code !== 0) throw new Error(`convert ${model} --dtype ${dtype}: ${r.stderr.trim().split('\n').at(-1)?.slice(0, 300)}`);
    files[dtype] = out;
  }
  return files;
}

/**
 * Debian's torch calls whichever libblas.so.3 is installed: without OpenBLAS it is libblas3's reference BLAS, which
 * made this bench's first 135M-shape PyTorch round take minutes (python3-torch alone does not pull OpenBLAS in).
 */
const OPENBLAS = '/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3';
const TORCH_PACKAGES = ['python3-torch', 'python3-onnx', 'libopenblas0-pthread'];

/** null when PyTorch can run the peer on OpenBLAS; else why not (after one apt-get install try, as root). */
function ensureTorch(): string | null {
  if (!torchAvailable() && existsSync(OPENBLAS)) return null;
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    log(`installing Debian ${TORCH_PACKAGES.join(', ')} (apt-get) for the PyTorch row`);
    try {
      execFileSync('/usr/bin/apt-get', ['install', '-y', '-qq', ...TORCH_PACKAGES], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    } catch (error) {
      return `apt-get install ${TORCH_PACKAGES.join(' ')} failed (${(error as Error).message.split('\n')[0]})`;
    }
  }
  return torchAvailable() ?? (existsSync(OPENBLAS) ? null : `no OpenBLAS (${OPENBLAS}): apt-get install libopenblas0-pthread`);
}

/** The ONNX Runtime q8 row's file (Transformers.js `q8`: onnx/model_quantized.onnx), written from the fp32 one when absent. */
function ensureQ8(model: string): void {
  const file = join(model, 'onnx', DTYPE_FILES.q8);
  if (existsSync(file)) return;
  log(`writing ${file} (pipeline/onnx-export/quantize.ts q8)`);
  writeFileSync(file, VARIANT_WRITERS.q8(readFileSync(join(model, 'onnx', DTYPE_FILES.fp32))));
}

// ---------- annotate (the bundled model) ----------

type Call = { docId: string; tool: string; input: string; at: number; losses?: Record<string, number>; kept: boolean };
const callsOf = (out: string): Call[] => readFileSync(join(out, 'calls.jsonl'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Call);
const keyOf = (c: Call) => `${c.docId}\0${c.tool}\0${c.input}\0${c.at}`;
const scoredOf = (out: string) => Object.values(JSON.parse(readFileSync(join(out, 'stats.json'), 'utf8')).tools as Record<string, { scored: number }>).reduce((s, t) => s + t.scored, 0);

/** calls.jsonl lists candidates in a deterministic order: compared line by line (a differing call: verdicts differ). */
function compare(out: string, reference: string): Pick<AnnotateRow, 'sameTrainAsOrt' | 'sameVerdictsAsOrt' | 'maxLossGapNats' | 'keptCalls'> {
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

async function benchAnnotate(model: string, ggufs: Record<string, string>, docs: number, rounds: number): Promise<AnnotateRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'bench-backends-'));
  const args = (out: string, ...extra: string[]) => ['annotate', 'corpus/sample.jsonl', '--max-docs', String(docs), '--workers', '1', '--quiet', '--no-probe-cache', '--out', out, ...extra];
  const served = await startServe(model);
  const runs: { backend: string; model: string; extra: string[]; serverPid?: number }[] = [
    { backend: 'onnx (in-process)', model, extra: [] },
    { backend: 'onnx behind toolformer serve (HTTP)', model: served.url, extra: ['--tokenizer', model], serverPid: served.child.pid },
    ...Object.entries(ggufs).map(([dtype, file]) => ({ backend: `llama.cpp ${dtype} (in-process)`, model: file, extra: [] })),
  ];
  const cpu = new Map<string, number[]>(runs.map((r) => [r.backend, []]));
  const failed = new Map<string, string>();
  const outOf = (i: number, round: number) => join(work, `${i}-${round}`);
  try {
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < runs.length; k++) {
        const i = (k + round) % runs.length;
        const run = runs[i];
        const before = run.serverPid ? cpuOfPid(run.serverPid) : 0;
        const r = await timed(args(outOf(i, round), '--model', run.model, ...run.extra));
        if (r.code !== 0 || !existsSync(join(outOf(i, round), 'stats.json'))) failed.set(run.backend, r.stderr.trim().split('\n').at(-1) ?? `exit ${r.code}`);
        else cpu.get(run.backend)!.push(r.cpu + (run.serverPid ? cpuOfPid(run.serverPid) - before : 0));
      }
      log(`annotate round ${round + 1} of ${rounds} done, load ${loadavg()[0].toFixed(1)}`);
    }
    return runs.map((run, i): AnnotateRow => {
      const error = failed.get(run.backend);
      const out = outOf(i, 0);
      if (error) return { backend: run.backend, cpuSeconds: [], scoredCalls: 0, cpuPerScoredCall: NaN, keptCalls: 0, sameTrainAsOrt: false, sameVerdictsAsOrt: false, maxLossGapNats: NaN, error };
      const scored = scoredOf(out);
      const seconds = cpu.get(run.backend)!.map((x) => Number(x.toFixed(2)));
      return { backend: run.backend, cpuSeconds: seconds, scoredCalls: scored, cpuPerScoredCall: Number((Math.min(...seconds) / scored).toFixed(4)), ...compare(out, outOf(0, 0)) };
    });
  } finally {
    served.child.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}

// ---------- the run ----------

if (process.argv.includes('--render')) {
  // The .md again from the committed .json (its notes included), nothing measured.
  const saved = JSON.parse(readFileSync(join(RESULTS, 'backends.json'), 'utf8')) as BackendsResult;
  writeFileSync(join(RESULTS, 'backends.md'), backendsMarkdown(saved));
  process.exit(0);
}

const shapes = scriptFlag('shapes', 'bundled,135m').split(',');
const [docs, annotateRounds, rounds, length] = ['docs', 'annotate-rounds', 'rounds', 'length'].map((k, i) => Number(scriptFlag(k, ['6', '2', '3', '128'][i])));
const started = performance.now();
const loadAverage = [loadavg()[0]];
const torchMissing = ensureTorch();
if (torchMissing) log(`PyTorch row left out: ${torchMissing}`);
const result: BackendsResult = { date: new Date().toISOString().slice(0, 10), command: `npx tsx pipeline/bench/backends.ts ${process.argv.slice(2).join(' ')}`.trim(), loadAverage: [], minutes: 0, rows: [], annotate: undefined, docs };
for (const shape of shapes) {
  const model = shape === '135m' ? MODEL_135M : join(ROOT, 'models/default');
  if (shape === '135m' && !existsSync(join(MODEL_135M, 'onnx/model.onnx'))) await writeRealSizeModel(MODEL_135M, { optimumLayout: false }, log);
  ensureQ8(model);
  log(`${shape}: converting ${model} to GGUF (${DTYPES.join(', ')})`);
  const ggufs = await convertAll(model, shape);
  if (shape === 'bundled') {
    log(`bundled: annotate --max-docs ${docs}, ${annotateRounds} rounds`);
    result.annotate = await benchAnnotate('models/default', ggufs, docs, annotateRounds);
  }
  const rows = Number(scriptFlag(shape === '135m' ? 'rows-135m' : 'rows', shape === '135m' ? '8' : '16'));
  log(`${shape}: rows ${rows} × ${length}, ${rounds} rounds after a warm-up`);
  const r: RowsResult = await benchRows({ model, ggufs, rows, length, rounds, torchMissing, log });
  result.rows.push({ ...r, shape, model: shape === '135m' ? 'SmolLM2-135M shape (random weights, seed 135)' : 'models/default' });
  loadAverage.push(loadavg()[0]);
}
result.loadAverage = loadAverage.map((x) => Number(x.toFixed(1)));
result.minutes = Number(((performance.now() - started) / 60_000).toFixed(1));
writeFileSync(join(RESULTS, 'backends.json'), JSON.stringify(result, null, 2) + '\n');
const md = backendsMarkdown(result);
writeFileSync(join(RESULTS, 'backends.md'), md);
console.log(md);
