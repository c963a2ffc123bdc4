/**
 * `npm run bench`: how close the scorer gets to ONNX Runtime's own limit, how far ahead of a paper-literal scorer
 * it is, and whether an annotate run's memory stays flat — in one process, on the same models and texts.
 *
 *   npx tsx pipeline/bench/run.ts [--docs 8] [--rounds 3] [--reference-calls 40] [--e2e-docs 1]
 *
 * Models: the project's models/default (when present; also used end to end) and a representative random 4 × 128
 * GPT-2 with a 4,096 vocabulary (pipeline/bench/model.ts), where the LM head and log-softmax weigh more.
 *
 * The machine is shared (2 cores, a training run, other engineers' tests), so wall time drifts by ±50% between
 * minutes. Every variant runs once per round, interleaved; each is timed in wall time AND in this process's CPU
 * time (onnxruntime-node runs with 1 intra-op thread, so CPU time is the work done, undisturbed by other processes
 * taking the core). Rates and ratios use per-variant medians of CPU time; bench.json has the wall times too.
 * Writes pipeline/bench/results/bench.json and bench.md (committed; pipeline/bench/README.md's tables are made from them).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { CausalLM } from '../core/lm/lm.ts';
import type { OrtModule, OrtSession } from '../core/lm/ort-lm.ts';
import { scorePositions, type PositionToScore } from '../core/scoring/scoring.ts';
import { loadModel } from '../node/model/load-model.ts';
import { type BenchModel, defaultModel, representativeModel, ROOT } from './model.ts';
import { browserByDtype, browserLines } from './browser.ts';
import { benchDtypes, dtypeLines } from './dtypes.ts';
import { f, mark } from './format.ts';
import { benchTorchPeer, peerLines } from './peer.ts';
import { bareFeeds, referenceScorer } from './reference.ts';
import { buildWorkload, corpusDocs } from './workload.ts';
import { median } from '../core/median.ts';
import { scriptFlag } from '../io/script-flag.ts';

const arg = (name: string, fallback: number) => Number(scriptFlag(name, String(fallback)));
const DOCS = arg('docs', 8);
const ROUNDS = arg('rounds', 3);
const REFERENCE_CALLS = arg('reference-calls', 40);
const E2E_DOCS = arg('e2e-docs', 2);
/** The command as run, for bench.md's first line. */
const COMMAND = process.argv.length > 2 ? `npx tsx pipeline/bench/run.ts ${process.argv.slice(2).join(' ')}` : 'npm run bench';
// Results are committed: the READMEs' generated blocks are made from them (npm run docs).
const OUT = join(ROOT, 'pipeline/bench/results');
/** Same session options as loadModel (pipeline/node/model/load-model.ts), for the bare sessions. */
const SESSION_OPTIONS: ort.InferenceSession.SessionOptions = {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
};

interface Timing {
  wall: number;
  cpu: number;
}
/** Wall and process CPU seconds of one run of `f`. */
async function timed(f: () => Promise<unknown>): Promise<Timing> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await f();
  const c = process.cpuUsage(c0);
  return { wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 };
}
const log = (...xs: unknown[]) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...xs);

type Variant = 'limit' | 'scorer' | 'scorerLogitsInJs' | 'scorerPerDoc' | 'reference';

/**
 * Tokens the scorer could not do with fewer of: whole sequences (each distinct sequence forwarded once, up to its last
 * scored token, no padding) and the least (with a cache, the common token prefix of a call's L_b and L_c,
 * "[bos] [Tool(input", forwarded once).
 */
function sequenceTokens(lm: CausalLM, positions: PositionToScore[]): { wholeTokens: number; minimumTokens: number } {
  const bos = lm.bosId === undefined ? 0 : 1;
  let wholeTokens = 0;
  let shared = 0;
  for (const p of positions) {
    const text = p.window.prefix.length + p.window.next.length;
    wholeTokens += bos + text - 1;
    for (const c of p.calls) {
      const [a, b] = [lm.encode(c.callOnly + p.window.separator), lm.encode(c.withResult + p.window.separator)];
      wholeTokens += 2 * (bos + text - 1) + a.length + b.length;
      let common = 0;
      while (a[common] === b[common]) common++;
      shared += bos + common;
    }
  }
  return { wholeTokens, minimumTokens: wholeTokens - shared };
}

type ScoredLosses = { losses: { noCall: number; callOnly: number; withResult: number }[] };

/** The largest |loss difference| between the reference's scores and the scorer's for the same positions (nats). */
function largestLossDifference(reference: ScoredLosses[], scorer: ScoredLosses[]): number {
  let maxDiff = 0;
  reference.forEach((r, i) =>
    r.losses.forEach((l, j) => {
      const s = scorer[i].losses[j];
      for (const k of ['noCall', 'callOnly', 'withResult'] as const) maxDiff = Math.max(maxDiff, Math.abs(l[k] - s[k]));
    }),
  );
  return maxDiff;
}

/** ROUNDS interleaved rounds of every variant; each variant's timings, and their medians (s). */
async function timeRounds(variants: Record<Variant, () => Promise<unknown>>) {
  const times = Object.fromEntries(Object.keys(variants).map((k) => [k, [] as Timing[]])) as Record<Variant, Timing[]>;
  for (let r = 0; r < ROUNDS; r++) {
    for (const [k, f] of Object.entries(variants) as [Variant, () => Promise<unknown>][]) times[k].push(await timed(f));
    log(`round ${r + 1}/${ROUNDS} (cpu s):`, Object.entries(times).map(([k, v]) => `${k} ${v[r].cpu.toFixed(2)}`).join(', '));
  }
  const medians = (of: 'cpu' | 'wall') =>
    Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v.map((x) => x[of]))])) as Record<Variant, number>;
  return { times, cpu: medians('cpu'), wall: medians('wall') };
}

/** One model's scoring sections as the result file records them: rates per CPU second and their ratios. */
function scoringRecord({ model, workload, tokens, maxDiff, timings }: {
  model: BenchModel & { onnxSha256: string };
  workload: { docs: number; positions: number; calls: number; referenceCalls: number };
  tokens: {
    forwardPasses: number; forwarded: number; real: number; whole: number; minimum: number; forwardedBefore: number;
    reference: { forwards: number; tokens: number };
  };
  maxDiff: number;
  timings: Awaited<ReturnType<typeof timeRounds>>;
}) {
  const { calls, referenceCalls: refCalls } = workload;
  const { forwarded, real, whole: wholeTokens, minimum: minimumTokens, forwardedBefore, reference: refCounts } = tokens;
  const { times, cpu, wall } = timings;
  const rate = (n: number, s: number) => n / s;
  return {
    model,
    workload,
    limit: { forwardPasses: tokens.forwardPasses, tokensForwarded: forwarded, tokensPerSecond: rate(forwarded, cpu.limit) },
    scorer: {
      callsPerSecond: rate(calls, cpu.scorer),
      tokensForwardedPerSecond: rate(forwarded, cpu.scorer),
      tokensForwardedPerCall: forwarded / calls,
      realTokensPerCall: real / calls,
      wholeSequenceTokensPerCall: wholeTokens / calls,
      minimumTokensPerCall: minimumTokens / calls,
      perDocumentCallsPerSecond: rate(calls, cpu.scorerPerDoc),
      before: {
        callsPerSecond: rate(calls, cpu.scorerLogitsInJs),
        tokensForwardedPerCall: forwardedBefore / calls,
        tokensForwardedPerSecond: rate(forwardedBefore, cpu.scorerLogitsInJs),
      },
    },
    reference: {
      callsPerSecond: rate(refCalls, cpu.reference),
      tokensPerSecond: rate(refCounts.tokens, cpu.reference),
      forwardPassesPerCall: refCounts.forwards / refCalls,
      tokensForwardedPerCall: refCounts.tokens / refCalls,
      maxAbsLossDifference: maxDiff,
    },
    ratios: {
      scorerOverLimit: cpu.limit / cpu.scorer,
      beforeOverLimit: rate(forwardedBefore, cpu.scorerLogitsInJs) / rate(forwarded, cpu.limit),
      scorerOverBefore: cpu.scorerLogitsInJs / cpu.scorer,
      scorerOverReference: rate(calls, cpu.scorer) / rate(refCalls, cpu.reference),
      perDocOverReference: rate(calls, cpu.scorerPerDoc) / rate(refCalls, cpu.reference),
      wall: {
        scorerOverLimit: wall.limit / wall.scorer,
        scorerOverReference: rate(calls, wall.scorer) / rate(refCalls, wall.reference),
      },
    },
    seconds: { cpu, wall, rounds: times },
  };
}

/** Sections 1–3 for one model: limit, scorer, reference. */
async function benchScoring(model: BenchModel) {
  log('model:', model.description);
  const lm = await loadModel(model.dir);
  /** The scorer as it was before this benchmark's changes: full logits back to JS, then a log-softmax graph. */
  const lmLogitsInJs = await loadModel(model.dir, { lm: { logProbs: 'graph' } });
  const ortModule = ort as unknown as OrtModule;
  const bare: OrtSession = await ort.InferenceSession.create(readFileSync(join(model.dir, 'onnx/model.onnx')), SESSION_OPTIONS);
  const vocab = (JSON.parse(readFileSync(join(model.dir, 'config.json'), 'utf8')) as { vocab_size: number }).vocab_size;

  const docs = [...corpusDocs('corpus/factbook.jsonl', DOCS / 2, 37), ...corpusDocs('corpus/sotu.jsonl', DOCS / 2, 401)];
  const workload = await buildWorkload(lm, docs);
  const positions = workload.docs.flatMap((d) => d.positions);
  const calls = workload.calls;
  log(`workload: ${docs.length} docs → ${workload.positions} positions, ${calls} calls`);

  // The reference runs on an evenly spread sample of positions (it is slow); rates are per call, so they compare.
  const stride = Math.max(1, Math.round(positions.length / Math.max(1, (REFERENCE_CALLS * positions.length) / calls)));
  const refIndex = positions.map((_, i) => i).filter((i) => i % stride === 0);
  const refPositions: PositionToScore[] = refIndex.map((i) => positions[i]);
  const refCalls = refPositions.reduce((s, p) => s + p.calls.length, 0);

  const { wholeTokens, minimumTokens } = sequenceTokens(lm, positions);

  // Warm-up pass; it also records the batch shapes the limit replays.
  const shapes: { rows: number; length: number; tokens: number }[] = [];
  lm.onScoreBatch = (b) => shapes.push(b);
  const scored = await scorePositions(lm, positions);
  lm.onScoreBatch = undefined;
  const forwarded = shapes.reduce((s, b) => s + b.rows * b.length, 0);
  const real = shapes.reduce((s, b) => s + b.tokens, 0);
  log(`scorer: ${shapes.length} forward passes, ${forwarded} tokens forwarded (${real} real; whole sequences ${wholeTokens}, least ${minimumTokens})`);

  const reference = referenceScorer(ortModule, bare, lm, lm.spec);
  const refScored = await reference.score(refPositions);
  const refCounts = { ...reference.counts };
  const maxDiff = largestLossDifference(refScored, refIndex.map((i) => scored[i]));
  log(`reference: ${refCalls} calls, ${refCounts.forwards} forward passes; max |loss difference| ${maxDiff.toExponential(2)}`);

  /** The bare runtime on the scorer's own batch shapes: ids, a full mask, logits fetched — nothing else. */
  async function limitPass(): Promise<void> {
    for (const { rows, length } of shapes) {
      const ids = BigInt64Array.from({ length: rows * length }, (_, i) => BigInt((i * 7919) % vocab));
      await bare.run(bareFeeds(ortModule, bare, lm.spec, ids, rows, length), ['logits']);
    }
  }

  const variants: Record<Variant, () => Promise<unknown>> = {
    limit: limitPass,
    scorer: () => scorePositions(lm, positions),
    scorerLogitsInJs: () => scorePositions(lmLogitsInJs, positions),
    scorerPerDoc: async () => {
      for (const d of workload.docs) await scorePositions(lm, d.positions);
    },
    reference: () => reference.score(refPositions),
  };
  await limitPass(); // warm-up: the bare session has not seen these shapes yet
  let forwardedBefore = 0;
  lmLogitsInJs.onScoreBatch = (b) => (forwardedBefore += b.rows * b.length);
  await variants.scorerLogitsInJs();
  lmLogitsInJs.onScoreBatch = undefined;
  const { times, cpu, wall } = await timeRounds(variants);
  await lm.release();
  await lmLogitsInJs.release();
  await bare.release();

  const onnxSha256 = createHash('sha256').update(readFileSync(join(model.dir, 'onnx/model.onnx'))).digest('hex').slice(0, 16);
  return scoringRecord({
    model: { ...model, dir: model.dir.replace(`${ROOT}/`, ''), onnxSha256 },
    workload: { docs: docs.length, positions: workload.positions, calls, referenceCalls: refCalls },
    tokens: { forwardPasses: shapes.length, forwarded, real, whole: wholeTokens, minimum: minimumTokens, forwardedBefore, reference: refCounts },
    maxDiff,
    timings: { times, cpu, wall },
  });
}

/** Section 4: annotate end to end in child processes (independent peaks). */
function benchEndToEnd(model: BenchModel) {
  // 4× is the 1× documents four times over under new ids: the same work per document, so a difference in peak
  // memory comes from the number of documents (anything kept per document), not from a longer document.
  const tmp = mkdtempSync(join(tmpdir(), 'bench-corpus-'));
  const corpus = join(tmp, 'corpus.jsonl');
  const docs = corpusDocs('corpus/factbook.jsonl', E2E_DOCS, 97);
  writeFileSync(corpus, [0, 1, 2, 3].flatMap((copy) => docs.map((d) => JSON.stringify({ ...d, id: `${d.id}#${copy}` }))).join('\n') + '\n');
  const child = (n: number) => {
    const out = join(tmp, `run-${n}`);
    const line = execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'pipeline/bench/annotate-child.ts'), model.dir, corpus, String(n), out], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    return JSON.parse(line.trim().split('\n').pop()!) as {
      docs: number;
      calls: number;
      kept: number;
      seconds: number;
      cpuSeconds: number;
      peakRssMiB: number;
      rssAfterLoadMiB: number;
      heapUsedMiB: number;
      arrayBuffersMiB: number;
      scoreSeconds: number;
      sampleSeconds: number;
    };
  };
  try {
    log(`end to end: annotate ${E2E_DOCS} and ${4 * E2E_DOCS} documents in child processes`);
    const x1 = child(E2E_DOCS);
    const x4 = child(4 * E2E_DOCS);
    return { model: model.name, docs: docs.map((d) => d.id), x1, x4, peakRssRatio: x4.peakRssMiB / x1.peakRssMiB };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ---- run ----
const models = [defaultModel(), await representativeModel()].filter((m): m is BenchModel => m !== null);
const scoring: Awaited<ReturnType<typeof benchScoring>>[] = [];
for (const model of models) scoring.push(await benchScoring(model));
const e2e = benchEndToEnd(models[0]);
// Weight formats of the bundled model (fp32 / fp16 / q8), on the same documents as its scoring section.
const defaultBench = defaultModel();
const dtypes = defaultBench
  ? await benchDtypes(defaultBench.dir, [...corpusDocs('corpus/factbook.jsonl', DOCS / 2, 37), ...corpusDocs('corpus/sotu.jsonl', DOCS / 2, 401)], ROUNDS, log)
  : null;
// The PyTorch peer on the same weights and calls (optional: "not installed" without Debian's python3-torch).
const peer = defaultBench && dtypes
  ? await (async () => {
      const lm = await loadModel(defaultBench.dir);
      try {
        log('PyTorch peer: batch-1 and batched on the dtype section\'s calls');
        return await benchTorchPeer(lm, defaultBench.dir, dtypes.scoredPositions);
      } finally {
        await lm.release();
      }
    })()
  : null;
const webPath = join(OUT, 'web.json');
const web = existsSync(webPath) ? (JSON.parse(readFileSync(webPath, 'utf8')) as Record<string, unknown>) : null;

const result = {
  date: new Date().toISOString(),
  machine: 'shared 2-core VM, Node 20, onnxruntime-node 1 intra-op thread; per-variant medians of process CPU time over interleaved rounds',
  rounds: ROUNDS,
  scoring,
  endToEnd: { config: 'defaultConfig (paper thresholds, LM proposals on)', ...e2e },
  dtypes: dtypes && { calls: dtypes.calls, positions: dtypes.positions, rows: dtypes.rows },
  peer,
  browser: web,
};
mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'bench.json'), JSON.stringify(result, null, 2) + '\n');

/** A table row with one cell per model, and a target cell unless `target` is null. */
const row = (label: string, cell: (s: (typeof scoring)[number]) => string, target: string | null = '') =>
  `| ${label} | ${scoring.map(cell).join(' | ')} |${target === null ? '' : ` ${target} |`}`;
const md = [
  `Measured by \`${COMMAND}\` (${result.date.slice(0, 10)}): shared 2-core machine, onnxruntime-node with 1 intra-op thread;`,
  `rates from process CPU time, medians of ${ROUNDS} interleaved rounds. Candidates: the pipeline's own propose → guard → execute`,
  `stages on ${DOCS} corpus documents (Factbook + SOTU).`,
  '',
  `| Measure | ${scoring.map((s) => s.model.name).join(' | ')} | Target |`,
  `|---|${scoring.map(() => '---').join('|')}|---|`,
  row('Candidate calls scored (positions)', (s) => `${f(s.workload.calls)} (${f(s.workload.positions)})`),
  row("1. Limit: bare ONNX Runtime forward at the scorer's batch shapes", (s) => `${f(s.limit.tokensPerSecond)} tokens/s`),
  row('2. Scorer (`scorePositions`, all calls at once)', (s) => `${f(s.scorer.callsPerSecond, 1)} calls/s, ${f(s.scorer.tokensForwardedPerSecond)} tokens/s`),
  row('Scorer / limit, tokens/s', (s) => `**${f(s.ratios.scorerOverLimit, 2)}** (${mark(s.ratios.scorerOverLimit >= 0.8)})`, '≥ 0.8'),
  row('… before (full logits back to JS, separate log-softmax graph): tokens/s / limit; scorer now / before, calls/s', (s) =>
    `${f(s.ratios.beforeOverLimit, 2)}; ${f(s.ratios.scorerOverBefore, 2)}×`,
  ),
  row('Tokens forwarded per call: with padding / without; the least with L_b, L_c common prefix once (not done)', (s) =>
    `${f(s.scorer.tokensForwardedPerCall, 1)} / ${f(s.scorer.realTokensPerCall, 1)}; ${f(s.scorer.minimumTokensPerCall, 1)}`,
  ),
  row('3. Reference: paper-literal (batch 1, 3 passes per call, JS log-softmax over full logits)', (s) =>
    `${f(s.reference.callsPerSecond, 1)} calls/s, ${f(s.reference.tokensPerSecond)} tokens/s, ${f(s.reference.tokensForwardedPerCall, 1)} tokens per call`,
  ),
  row('Scorer / reference, calls/s', (s) => `**${f(s.ratios.scorerOverReference, 2)}×** (${mark(s.ratios.scorerOverReference >= 20)})`, '≥ 20×'),
  row('… scorer called per document, as the score stage does / reference', (s) => `${f(s.ratios.perDocOverReference, 2)}×`),
  row('Largest loss difference, scorer vs reference (nats)', (s) => `${s.reference.maxAbsLossDifference.toExponential(1)}`, '≤ 1e-5 (test: pipeline/bench/reference.test.ts)'),
  '',
  'Where the speedup over the reference comes from (the three factors multiply to the ratio above):',
  '',
  `| Factor | ${scoring.map((s) => s.model.name).join(' | ')} |`,
  `|---|${scoring.map(() => '---').join('|')}|`,
  row('Fewer tokens per call (L_a once per position, no pass past the last scored token): reference / scorer tokens per call', (s) =>
    `${f(s.reference.tokensForwardedPerCall / s.scorer.tokensForwardedPerCall, 2)}×`,
    null,
  ),
  row('Batched forward vs batch 1 with JS log-softmax: limit / reference tokens/s', (s) => `${f(s.limit.tokensPerSecond / s.reference.tokensPerSecond, 2)}×`, null),
  row('Per token forwarded: LM head + log-softmax only at the scored positions, in the graph: scorer / limit tokens/s', (s) => `${f(s.ratios.scorerOverLimit, 2)}×`, null),
  '',
  `End to end (\`runAnnotate\`, ${e2e.model}, default config: paper thresholds, LM proposals on; 4× = the same ${E2E_DOCS} Factbook document(s) four times under new ids):`,
  '',
  '| Measure | 1× | 4× | Target |',
  '|---|---|---|---|',
  `| Documents | ${e2e.x1.docs} | ${e2e.x4.docs} | |`,
  `| Documents/s (CPU time; wall) | ${f(e2e.x1.docs / e2e.x1.cpuSeconds, 3)}; ${f(e2e.x1.docs / e2e.x1.seconds, 3)} | ${f(e2e.x4.docs / e2e.x4.cpuSeconds, 3)}; ${f(e2e.x4.docs / e2e.x4.seconds, 3)} | |`,
  `| Kept calls/s (CPU time), kept of scored | ${f(e2e.x1.kept / e2e.x1.cpuSeconds, 2)}, ${e2e.x1.kept} of ${e2e.x1.calls} | ${f(e2e.x4.kept / e2e.x4.cpuSeconds, 2)}, ${e2e.x4.kept} of ${e2e.x4.calls} | |`,
  `| Wall time in CausalLM.score (p_i + losses) / .sample (LM proposals) / rest | ${share(e2e.x1)} | ${share(e2e.x4)} | |`,
  `| Peak RSS (after model load) | ${f(e2e.x1.peakRssMiB)} MiB (${f(e2e.x1.rssAfterLoadMiB)}) | ${f(e2e.x4.peakRssMiB)} MiB (${f(e2e.x4.rssAfterLoadMiB)}) | |`,
  `| Peak JS heap used / ArrayBuffers (50 ms samples) | ${f(e2e.x1.heapUsedMiB)} / ${f(e2e.x1.arrayBuffersMiB)} MiB | ${f(e2e.x4.heapUsedMiB)} / ${f(e2e.x4.arrayBuffersMiB)} MiB | |`,
  `| Peak RSS 4× / 1× | | **${f(e2e.peakRssRatio, 2)}** (${mark(e2e.peakRssRatio <= 1.2)}) | ≤ 1.2 |`,
  '',
  ...(dtypes ? dtypeLines('models/default', dtypes, browserByDtype(web)) : []),
  '',
  ...(peer ? peerLines('models/default', peer) : []),
  '',
  ...browserLines(web),
  '',
].join('\n');
writeFileSync(join(OUT, 'bench.md'), md);
console.log(md);

function share(x: { seconds: number; scoreSeconds: number; sampleSeconds: number }): string {
  const pct = (v: number) => `${Math.round((100 * v) / x.seconds)}%`;
  return `${pct(x.scoreSeconds)} / ${pct(x.sampleSeconds)} / ${pct(x.seconds - x.scoreSeconds - x.sampleSeconds)}`;
}
