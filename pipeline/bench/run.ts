/**
 * `npm run bench`: how close the scorer gets to ONNX Runtime's own limit, how far ahead of a paper-literal scorer
 * it is, and whether an annotate run's memory stays flat — in one process, on one model and one set of texts.
 *
 *   npx tsx pipeline/bench/run.ts [--docs 24] [--rounds 3] [--reference-calls 60] [--e2e-docs 4]
 *
 * The machine is shared, so absolute timings drift: the measured variants are interleaved, each round runs every
 * variant once, and the report takes per-variant medians and reports ratios. Writes out/bench/bench.json and
 * out/bench/bench.md (the table for the README).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { OrtModule, OrtSession } from '../core/ort-lm.ts';
import { scorePositions, type PositionToScore, type ScoredPosition } from '../core/scoring.ts';
import { loadModel } from '../node/load-model.ts';
import { benchModelDir, ROOT } from './model.ts';
import { referenceScorer } from './reference.ts';
import { buildWorkload, corpusDocs } from './workload.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const DOCS = arg('docs', 24);
const ROUNDS = arg('rounds', 3);
const REFERENCE_CALLS = arg('reference-calls', 60);
const E2E_DOCS = arg('e2e-docs', 4);
const OUT = join(ROOT, 'out/bench');

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const seconds = async (f: () => Promise<unknown>) => {
  const t0 = performance.now();
  await f();
  return (performance.now() - t0) / 1000;
};
const log = (...xs: unknown[]) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...xs);

// ---- model, sessions, workload ----
const model = await benchModelDir();
log('model:', model.description);
/** Same session options as loadModel (pipeline/node/load-model.ts), for the bare sessions. */
const SESSION_OPTIONS = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' };
const lm = await loadModel(model.dir);
const bare: OrtSession = await ort.InferenceSession.create(readFileSync(join(model.dir, 'onnx/model.onnx')), SESSION_OPTIONS);
const ortModule = ort as unknown as OrtModule;

const docs = [...corpusDocs('corpus/factbook.jsonl', DOCS / 2, 37), ...corpusDocs('corpus/sotu.jsonl', DOCS / 2, 401)];
const workload = await buildWorkload(lm, docs);
const allPositions = workload.docs.flatMap((d) => d.positions);
log(`workload: ${docs.length} docs → ${workload.positions} positions, ${workload.calls} calls`);

// The reference runs on the first calls only (it is slow); rates are per call, so the subset's rate compares.
const refPositions: PositionToScore[] = [];
for (let n = 0, i = 0; n < REFERENCE_CALLS && i < allPositions.length; i++) {
  refPositions.push(allPositions[i]);
  n += allPositions[i].calls.length;
}
const refCalls = refPositions.reduce((s, p) => s + p.calls.length, 0);

// Tokens the losses need at minimum: each distinct sequence forwarded once up to its last scored token, no padding.
const bosLen = lm.bosId === undefined ? 0 : 1;
let minimumTokens = 0;
for (const p of allPositions) {
  const text = p.window.prefix.length + p.window.next.length;
  minimumTokens += bosLen + text - 1;
  for (const c of p.calls) {
    for (const call of [c.callOnly, c.withResult]) minimumTokens += bosLen + lm.encode(call + p.window.separator).length + text - 1;
  }
}

// ---- warm-up, shapes, correctness ----
const shapes: { rows: number; length: number; tokens: number }[] = [];
lm.onScoreBatch = (b) => shapes.push(b);
const scored = await scorePositions(lm, allPositions);
lm.onScoreBatch = undefined;
const forwardedTokens = shapes.reduce((s, b) => s + b.rows * b.length, 0);
const realTokens = shapes.reduce((s, b) => s + b.tokens, 0);
log(`scorer: ${shapes.length} forward passes, ${forwardedTokens} tokens forwarded (${realTokens} real, minimum ${minimumTokens})`);

const reference = referenceScorer(ortModule, bare, lm, lm.spec);
const refScored = await reference.score(refPositions);
const refForward = { ...reference.counts };
let maxDiff = 0;
refScored.forEach((r, i) =>
  r.losses.forEach((l, j) => {
    const s = (scored as ScoredPosition[])[i].losses[j];
    maxDiff = Math.max(maxDiff, Math.abs(l.noCall - s.noCall), Math.abs(l.callOnly - s.callOnly), Math.abs(l.withResult - s.withResult));
  }),
);
log(`reference: ${refCalls} calls, ${refForward.forwards} forward passes; max |loss difference| ${maxDiff.toExponential(2)}`);

/** The bare runtime on the scorer's own batch shapes: input ids and a full mask, logits fetched. */
async function limitPass(): Promise<void> {
  const { numLayers, numKvHeads, headDim } = lm.spec;
  for (const { rows, length } of shapes) {
    const n = rows * length;
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 7919) % 4000)), [rows, length]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(n).fill(1n), [rows, length]),
    };
    if (bare.inputNames.includes('position_ids')) {
      feeds.position_ids = new ort.Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt(i % length)), [rows, length]);
    }
    for (let i = 0; i < numLayers; i++) {
      for (const kv of ['key', 'value']) {
        feeds[`past_key_values.${i}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [rows, numKvHeads, 0, headDim]);
      }
    }
    await bare.run(feeds as never, ['logits']);
  }
}

// ---- interleaved rounds ----
const times = { limit: [] as number[], scorer: [] as number[], scorerPerDoc: [] as number[], reference: [] as number[] };
for (let r = 0; r < ROUNDS; r++) {
  times.limit.push(await seconds(limitPass));
  times.scorer.push(await seconds(() => scorePositions(lm, allPositions)));
  times.scorerPerDoc.push(
    await seconds(async () => {
      for (const d of workload.docs) await scorePositions(lm, d.positions);
    }),
  );
  times.reference.push(await seconds(() => reference.score(refPositions)));
  log(`round ${r + 1}/${ROUNDS}:`, Object.entries(times).map(([k, v]) => `${k} ${v[r].toFixed(2)} s`).join(', '));
}
const t = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])) as Record<keyof typeof times, number>;
const calls = workload.calls;
const limitTps = forwardedTokens / t.limit;
const scorerTps = forwardedTokens / t.scorer;
const scorerCallsPerS = calls / t.scorer;
const referenceCallsPerS = refCalls / t.reference;

// ---- end to end, in child processes (independent peaks) ----
const e2eCorpus = join(ROOT, 'corpus/factbook.jsonl');
function annotateChild(n: number) {
  const out = mkdtempSync(join(tmpdir(), 'bench-annotate-'));
  try {
    const line = execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'pipeline/bench/annotate-child.ts'), model.dir, e2eCorpus, String(n), out], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    return JSON.parse(line.trim().split('\n').pop()!) as { docs: number; calls: number; kept: number; seconds: number; peakRssMiB: number; rssAfterLoadMiB: number };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
log(`end to end: annotate ${E2E_DOCS} and ${4 * E2E_DOCS} documents in child processes`);
const e2e1 = annotateChild(E2E_DOCS);
const e2e4 = annotateChild(4 * E2E_DOCS);

// ---- browser numbers (web/bench.ts writes out/bench/web.json) ----
const webPath = join(OUT, 'web.json');
const web = existsSync(webPath) ? (JSON.parse(readFileSync(webPath, 'utf8')) as Record<string, unknown>) : null;

// ---- report ----
const result = {
  model: { dir: model.dir.replace(ROOT + '/', ''), description: model.description },
  machine: 'shared 2-core VM; onnxruntime-node, 1 intra-op thread; medians of interleaved rounds',
  rounds: ROUNDS,
  workload: { docs: docs.length, positions: workload.positions, calls, referenceCalls: refCalls },
  limit: { tokensForwarded: forwardedTokens, forwardPasses: shapes.length, seconds: t.limit, tokensPerSecond: limitTps },
  scorer: {
    seconds: t.scorer,
    callsPerSecond: scorerCallsPerS,
    tokensForwardedPerSecond: scorerTps,
    tokensForwardedPerCall: forwardedTokens / calls,
    realTokensPerCall: realTokens / calls,
    minimumTokensPerCall: minimumTokens / calls,
    perDocument: { seconds: t.scorerPerDoc, callsPerSecond: calls / t.scorerPerDoc },
  },
  reference: {
    seconds: t.reference,
    callsPerSecond: referenceCallsPerS,
    forwardPassesPerCall: refForward.forwards / refCalls,
    tokensForwardedPerCall: refForward.tokens / refCalls,
    maxAbsLossDifference: maxDiff,
  },
  ratios: {
    scorerOverLimit: scorerTps / limitTps,
    scorerOverReference: scorerCallsPerS / referenceCallsPerS,
    scorerPerDocOverReference: calls / t.scorerPerDoc / referenceCallsPerS,
    peakRss4xOver1x: e2e4.peakRssMiB / e2e1.peakRssMiB,
  },
  endToEnd: { corpus: 'corpus/factbook.jsonl', config: 'defaultConfig (paper thresholds, LM proposals on)', x1: e2e1, x4: e2e4 },
  browser: web,
  times,
};
mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'bench.json'), JSON.stringify(result, null, 2) + '\n');

const f = (x: number, d = 0) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
const check = (ok: boolean) => (ok ? '✅' : '❌');
const md = [
  `Model: ${model.description}. ${workload.docs.length} corpus documents → ${calls} executed candidate calls at ${workload.positions} positions.`,
  `Shared 2-core machine, onnxruntime-node with 1 intra-op thread; medians of ${ROUNDS} interleaved rounds; ratios are what to read.`,
  '',
  '| Measure | Value | Target |',
  '|---|---|---|',
  `| Limit: bare ONNX Runtime forward at the scorer's ${shapes.length} batch shapes | ${f(limitTps)} tokens/s | |`,
  `| Scorer: \`scorePositions\` on all ${calls} calls | ${f(scorerCallsPerS, 1)} calls/s, ${f(scorerTps)} tokens forwarded/s | |`,
  `| Scorer / limit (tokens/s) | ${f(scorerTps / limitTps, 2)} | ≥ 0.8 ${check(scorerTps / limitTps >= 0.8)} |`,
  `| Tokens forwarded per call (with padding) / real / minimum the losses need | ${f(forwardedTokens / calls, 1)} / ${f(realTokens / calls, 1)} / ${f(minimumTokens / calls, 1)} | |`,
  `| Reference: paper-literal (batch 1, 3 passes per call, JS log-softmax over full logits), ${refCalls} calls | ${f(referenceCallsPerS, 1)} calls/s, ${f(refForward.tokens / refCalls, 1)} tokens per call | |`,
  `| Scorer / reference (calls/s) | ${f(scorerCallsPerS / referenceCallsPerS, 1)}× | ≥ 20× ${check(scorerCallsPerS / referenceCallsPerS >= 20)} |`,
  `| Scorer called per document (as the score stage does) / reference | ${f(calls / t.scorerPerDoc / referenceCallsPerS, 1)}× | |`,
  `| Largest loss difference, scorer vs reference | ${maxDiff.toExponential(1)} nats | ≤ 1e-5 ${check(maxDiff <= 1e-5)} |`,
  `| End to end, annotate ${e2e1.docs} docs: docs/s, kept calls/s | ${f(e2e1.docs / e2e1.seconds, 2)}, ${f(e2e1.kept / e2e1.seconds, 2)} (${e2e1.kept} kept of ${e2e1.calls} scored) | |`,
  `| End to end, annotate ${e2e4.docs} docs: docs/s, kept calls/s | ${f(e2e4.docs / e2e4.seconds, 2)}, ${f(e2e4.kept / e2e4.seconds, 2)} (${e2e4.kept} kept of ${e2e4.calls} scored) | |`,
  `| Peak RSS at 1× / 4× documents | ${f(e2e1.peakRssMiB)} MiB / ${f(e2e4.peakRssMiB)} MiB (${f(e2e4.peakRssMiB / e2e1.peakRssMiB, 2)}×) | ≤ 1.2× ${check(e2e4.peakRssMiB / e2e1.peakRssMiB <= 1.2)} |`,
  ...browserRows(web),
  '',
].join('\n');
writeFileSync(join(OUT, 'bench.md'), md);
console.log(md);
await lm.release();
await bare.release();

function browserRows(w: Record<string, unknown> | null): string[] {
  const rows = (w?.rows ?? null) as { runtime: string; scoreTokensPerSecond: number; forwardTokensPerSecond?: number; note?: string }[] | null;
  if (!rows) return ['| Browser (web app, WASM / WebGPU) | not measured (no out/bench/web.json; run `npx tsx web/bench.ts`) | |'];
  return rows.map(
    (r) =>
      `| Browser bench (web/bench.ts${w?.model ? `, ${String(w.model)}` : ''}): ${r.runtime} | ${f(r.scoreTokensPerSecond)} tokens/s scored` +
      `${r.forwardTokensPerSecond ? `, ${f(r.forwardTokensPerSecond)} bare forward` : ''}${r.note ? ` (${r.note})` : ''} | |`,
  );
}
