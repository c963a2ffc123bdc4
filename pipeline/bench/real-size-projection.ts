/**
 * How long `npm start` (30 documents) and 1,000 such documents would take with a 135M model on this machine: the
 * unit costs measured by real-size-annotate.ts (a few documents, the 135M-shape fp32 model, process CPU time) times
 * the counts of the bundled model's recorded `npm start` (pipeline/docs/results/start.json, same tokenizer, so the
 * same windows and sequence lengths):
 *
 *   positions  model-independent work (every tool that passes its pre-filter gets p_i over the whole text): the
 *              measured seconds per (document, tool) pair × start.json's pairs (Σ tools[t].docs), scaled by the
 *              documents' mean length (characters) against the measured ones
 *   scoring    seconds per scored call × start.json's scored calls (what the bundled model's positions gave)
 *   control    seconds per control check × start.json's checks (kept + below_control)
 *   sampling   none in start.json (its probe closed sampling for every tool); the line shows what it would add
 *              if a trained 135M model kept it open at the bundled run's LM positions: positions.lm × m samples
 *   probes, load once per run (the bare-text and sampling probes, in the parent; the parent and each of
 *              `npm start`'s two workers load the model)
 *   other      the rest of the CPU time (tokenizing, tools, files), per document
 *
 * Wall time: `npm start` runs one worker per core (2 here), so the per-document work divides by 2 on an idle
 * machine; the probe runs before the workers get documents.
 */
import type { RunStats } from '../core/stats.ts';
import { f } from './format.ts';

export interface StageCost {
  cpuSeconds: number;
  wallSeconds: number;
  /** LM calls (score / sample), the sequences (rows, or samples) and tokens (rows × length, or prompt + new per sample). */
  calls: number;
  sequences: number;
  tokens: number;
}

export interface AnnotateProfile {
  docs: number;
  cpuSeconds: number;
  wallSeconds: number;
  loadCpuSeconds: number;
  otherCpuSeconds: number;
  /** The process's peak resident set (VmHWM), MiB (absent in results written before it was recorded). */
  peakRssMiB?: number;
  /** The same once the sampling probe is done (before the first document). */
  peakRssAfterProbeMiB?: number;
  stages: Record<'probe' | 'positions' | 'sampling' | 'scoring' | 'control', StageCost>;
  samplingProbe: Record<string, { samples: number; parsed: number }>;
  /** The context the bare-text probe chose, and its counts (absent in results from before that probe). */
  lmContext?: string;
  bareProbe?: Record<string, { samples: number; parsed: number }>;
  stats: RunStats;
}

/** The fields of pipeline/docs/results/start.json the projection reads. */
interface StartRecord {
  seconds: number;
  stats: RunStats;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const pairs = (s: RunStats) => sum(Object.values(s.tools).map((t) => t.docs));
const scored = (s: RunStats) => sum(Object.values(s.tools).map((t) => t.scored));
const checks = (s: RunStats) => sum(Object.values(s.tools).map((t) => (t.reasons.kept ?? 0) + (t.reasons.below_control ?? 0)));
const lmPositions = (s: RunStats) => sum(Object.values(s.tools).map((t) => t.positions.lm));

export interface Projection {
  /** Per stage, CPU seconds for `npm start`'s 30 documents. */
  start: Record<'load' | 'probe' | 'positions' | 'scoring' | 'control' | 'other', number>;
  /** The unit costs used, CPU seconds. */
  units: { perPair: number; perScoredCall: number; perCheck: number; perSample: number; otherPerDoc: number };
  counts: { docs: number; pairs: number; scored: number; checks: number; lmPositions: number; meanCharsRatio: number };
  startCpuSeconds: number;
  startWallSeconds: number;
  thousandCpuSeconds: number;
  thousandWallSeconds: number;
  /** CPU seconds sampling would add to the 30 documents at m = 5 samples per LM position. */
  samplingIfOpenCpuSeconds: number;
  bundledStartSeconds: number;
}

const WORKERS = 2;
const M = 5; // PAPER_DEFAULTS.m

export function projectStart(p: AnnotateProfile, start: StartRecord, meanCharsRatio = 1): Projection {
  const s = p.stages;
  const probeSamples = sum([...Object.values(p.samplingProbe), ...Object.values(p.bareProbe ?? {})].map((c) => c.samples));
  const perSequence = s.scoring.cpuSeconds / Math.max(1, s.scoring.sequences);
  const units = {
    perPair: s.positions.cpuSeconds / Math.max(1, pairs(p.stats)),
    perScoredCall: s.scoring.cpuSeconds / Math.max(1, scored(p.stats)),
    // No check in the measured documents: one check is one L_c sequence, the scoring's cost per sequence.
    perCheck: checks(p.stats) > 0 ? s.control.cpuSeconds / checks(p.stats) : perSequence,
    perSample: probeSamples > 0 ? s.probe.cpuSeconds / probeSamples : NaN,
    otherPerDoc: p.otherCpuSeconds / p.docs,
  };
  const docs = start.stats.docsRead;
  const counts = { docs, pairs: pairs(start.stats), scored: scored(start.stats), checks: checks(start.stats), lmPositions: lmPositions(start.stats), meanCharsRatio };
  const projected = {
    load: p.loadCpuSeconds * (WORKERS + 1), // the parent (it runs the probes) and each worker load the model
    probe: s.probe.cpuSeconds,
    positions: units.perPair * counts.pairs * meanCharsRatio,
    scoring: units.perScoredCall * counts.scored,
    control: units.perCheck * counts.checks,
    other: units.otherPerDoc * docs,
  };
  const perDoc = (projected.positions + projected.scoring + projected.control + projected.other) / docs;
  const fixedWall = p.loadCpuSeconds + projected.probe;
  return {
    start: projected,
    units,
    counts,
    startCpuSeconds: sum(Object.values(projected)),
    startWallSeconds: fixedWall + (perDoc * docs) / WORKERS,
    thousandCpuSeconds: projected.load + projected.probe + perDoc * 1000,
    thousandWallSeconds: fixedWall + (perDoc * 1000) / WORKERS,
    samplingIfOpenCpuSeconds: units.perSample * counts.lmPositions * M,
    bundledStartSeconds: start.seconds,
  };
}

const counts = (c: Record<string, { samples: number; parsed: number }>) => Object.entries(c).map(([t, n]) => `${t} ${n.parsed}/${n.samples}`).join(', ');
const probeCounts = (p: AnnotateProfile) =>
  [p.bareProbe && `bare-text ${counts(p.bareProbe)} (context: ${p.lmContext})`, Object.keys(p.samplingProbe).length > 0 && `sampling ${counts(p.samplingProbe)}`].filter(Boolean).join('; ') || 'none run';

const dur = (s: number) => (s < 120 ? `${f(s)} s` : s < 7200 ? `${f(s / 60, 1)} min` : `${f(s / 3600, 1)} h`);

/** The markdown of real-size-annotate.md: the measured split and the projection. */
export function projectionLines(r: { date: string; command: string; profile: AnnotateProfile; projection: Projection }): string[] {
  const { profile: p, projection: q } = r;
  const s = p.stages;
  const inLm = sum(Object.values(s).map((c) => c.cpuSeconds));
  // Sampling rows count prompt + maxNewTokens per sample (an upper bound): no rate for them.
  const row = (name: string, c: StageCost, what: string, rate = true) =>
    `| ${name} | ${f(c.cpuSeconds, 1)} | ${f((100 * c.cpuSeconds) / p.cpuSeconds)} % | ${f(c.calls)} | ${f(c.sequences)} | ${f(c.tokens)} | ${rate && c.tokens ? f(c.tokens / c.cpuSeconds) : '—'} | ${what} |`;
  const share = (x: number) => `${f((100 * x) / q.startCpuSeconds)} %`;
  return [
    `Measured by \`${r.command}\` (${r.date.slice(0, 10)}): \`npm start\`'s annotate (the CLI's defaults) of the first ${p.docs} documents of`,
    `corpus/sample.jsonl, one process, the fp32 SmolLM2-135M-shape model (random weights, the bundled tokenizer), onnxruntime-node with`,
    `1 intra-op thread; process CPU time on the shared 2-core machine (wall ${f(p.wallSeconds)} s for ${f(p.cpuSeconds)} CPU s${p.peakRssMiB === undefined ? '' : `; peak RSS ${f(p.peakRssMiB)} MiB, ${f(p.peakRssAfterProbeMiB ?? NaN)} MiB by the end of the probe`}).`,
    '',
    '| Stage | CPU s | Share | LM calls | Sequences (rows; samples) | Tokens (rows × length; samples × (prompt + max new)) | Tokens / CPU s | |',
    '|---|---|---|---|---|---|---|---|',
    `| load | ${f(p.loadCpuSeconds, 1)} | ${f((100 * p.loadCpuSeconds) / p.cpuSeconds)} % | | | | | once per process |`,
    row('probes', s.probe, `once per run; parsed: ${probeCounts(p)}`, false),
    row('positions (p_i)', s.positions, `${f(pairs(p.stats))} (document, tool) pairs`),
    row('sampling', s.sampling, s.sampling.calls === 0 ? 'LM-proposed calls: none (the probes closed sampling)' : 'LM-proposed calls', false),
    row('scoring (L_a, L_b, L_c)', s.scoring, `${f(scored(p.stats))} calls scored`),
    row('control', s.control, `${f(checks(p.stats))} calls checked`),
    `| other (tokenizing, tools, files) | ${f(p.otherCpuSeconds, 1)} | ${f((100 * p.otherCpuSeconds) / p.cpuSeconds)} % | | | | | |`,
    `| total | ${f(p.cpuSeconds, 1)} | | | | | | in the LM: ${f((100 * inLm) / p.cpuSeconds)} % |`,
    '',
    `Projection to \`npm start\`'s ${f(q.counts.docs)} documents, with the counts of the bundled model's recorded run (start.json: ${f(q.counts.pairs)}`,
    `(document, tool) pairs, ${f(q.counts.scored)} calls scored, ${f(q.counts.checks)} control checks; the documents ${f(q.counts.meanCharsRatio, 2)}× the measured ones' mean length):`,
    '',
    '| Stage | Unit cost (CPU s) | × count | CPU s, 30 documents | Share |',
    '|---|---|---|---|---|',
    `| load (the parent and ${WORKERS} workers) | ${f(p.loadCpuSeconds, 1)} | × ${WORKERS + 1} | ${f(q.start.load)} | ${share(q.start.load)} |`,
    `| probes | | once | ${f(q.start.probe)} | ${share(q.start.probe)} |`,
    `| positions (p_i) | ${f(q.units.perPair, 2)} per pair | × ${f(q.counts.pairs)} × ${f(q.counts.meanCharsRatio, 2)} | ${f(q.start.positions)} | ${share(q.start.positions)} |`,
    `| scoring | ${f(q.units.perScoredCall, 3)} per call | × ${f(q.counts.scored)} | ${f(q.start.scoring)} | ${share(q.start.scoring)} |`,
    `| control | ${f(q.units.perCheck, 3)} per check | × ${f(q.counts.checks)} | ${f(q.start.control)} | ${share(q.start.control)} |`,
    `| other | ${f(q.units.otherPerDoc, 2)} per document | × ${f(q.counts.docs)} | ${f(q.start.other)} | ${share(q.start.other)} |`,
    `| **total** | | | **${f(q.startCpuSeconds)}** | |`,
    '',
    `- **\`npm start\` (30 documents) with a 135M model: about ${dur(q.startWallSeconds)}** on this 2-core machine when idle (${dur(q.startCpuSeconds)} of CPU over 2 workers;`,
    `  the bundled 8 MB model takes ${f(q.bundledStartSeconds)} s). **1,000 documents: about ${dur(q.thousandWallSeconds)}** (${dur(q.thousandCpuSeconds)} of CPU).`,
    `- Where the time goes: scoring ${share(q.start.scoring)}, positions ${share(q.start.positions)}, the probes ${share(q.start.probe)}, control ${share(q.start.control)}, the rest ${share(q.start.load + q.start.other)}.`,
    `- Sampling: ${s.sampling.calls === 0 ? 'off here' : `${f(s.sampling.sequences)} samples here`}, and off in start.json's run (the probe closes it when almost no sample parses). A trained model that keeps it open would add`,
    `  up to ${dur(q.samplingIfOpenCpuSeconds)} of CPU to the 30 documents (${f(q.units.perSample, 3)} s per sample, measured in the probes, × ${f(q.counts.lmPositions)} LM positions × m = ${M}).`,
    '',
  ];
}
