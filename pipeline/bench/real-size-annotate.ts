/**
 * `npm start` at a real model's size: annotate of corpus/sample.jsonl as `npm start` configures it (the CLI's
 * defaults: every tool, the sampling probe, the control), on the first --docs documents, with the fp32
 * SmolLM2-135M-shape model of real-size.ts, in one process, the LM's time split by stage:
 *
 *   probe      the probes before the run (annotate-command.ts runProbes: the bare-text probe, which decides
 *              --lm-context auto, then the sampling probe of 100 samples per tool; their p_i and samples; once per run)
 *   positions  p_i over each document under each tool's prompt (lm.score with a probe id)
 *   sampling   LM-proposed calls at the selected positions (lm.sample)
 *   scoring    L_a / L_b / L_c of every executed call (lm.score, no probe)
 *   control    the distractor's L_c of the calls that reach τ_f (lm.score during the control stage)
 *   other      the rest of the process's CPU time: tokenizing, tools, files
 *
 * The model directory out/bench/smollm2-135m-shape-bpe/ holds the same onnx/model.onnx (hard-linked) with the
 * bundled model's tokenizer (models/default: BPE, 1,024 ids, all below 49,152), so every window, sequence and
 * candidate has the token length it has in `npm start`'s own run. Random weights still change what the model
 * decides — which positions pass τ_s, whether the probe lets sampling run, which calls reach τ_f — so the projection
 * (real-size-projection.ts) multiplies the unit costs measured here by the counts of the bundled model's recorded
 * `npm start` (pipeline/docs/results/start.json).
 *
 *   npx tsx pipeline/bench/real-size-annotate.ts [--docs 3]     (--render: the .md again from the .json, no run)
 *
 * Writes pipeline/bench/results/real-size-annotate.json and .md (with the projection).
 */
import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ScoreRequest, SampleOptions } from '../core/lm/lm.ts';
import type { StageProgress } from '../core/stages/stages.ts';
import { configFromFlags } from '../node/commands/annotate-command.ts';
import { runProbes } from '../node/run/run-probes.ts';
import { withVerdicts } from '../core/run-plan.ts';
import { runAnnotate } from '../node/run/annotate-run.ts';
import { loadModel } from '../node/model/load-model.ts';
import { createNodeParts } from '../node/tools/parts.ts';
import { scriptFlag } from '../io/script-flag.ts';
import { ensureRealSizeModel, REAL_SIZE_DIR } from './real-size.ts';
import { projectStart, projectionLines, type AnnotateProfile, type StageCost } from './real-size-projection.ts';

const ROOT = resolve(import.meta.dirname, '../..');
export const ANNOTATE_MODEL_DIR = join(ROOT, 'out/bench/smollm2-135m-shape-bpe');
const BUNDLED = join(ROOT, 'models/default');
const OUT = join(ROOT, 'pipeline/bench/results');

/** The 135M-shape weights with the bundled tokenizer (its special ids in config.json); the ONNX file hard-linked. */
export function ensureAnnotateModelDir(): void {
  mkdirSync(join(ANNOTATE_MODEL_DIR, 'onnx'), { recursive: true });
  const onnx = join(ANNOTATE_MODEL_DIR, 'onnx/model.onnx');
  if (!existsSync(onnx)) {
    try {
      linkSync(join(REAL_SIZE_DIR, 'onnx/model.onnx'), onnx);
    } catch {
      copyFileSync(join(REAL_SIZE_DIR, 'onnx/model.onnx'), onnx); // another file system
    }
  }
  for (const file of ['tokenizer.json', 'tokenizer_config.json', 'generation_config.json']) copyFileSync(join(BUNDLED, file), join(ANNOTATE_MODEL_DIR, file));
  const bundled = JSON.parse(readFileSync(join(BUNDLED, 'config.json'), 'utf8')) as Record<string, unknown>;
  const config = JSON.parse(readFileSync(join(REAL_SIZE_DIR, 'config.json'), 'utf8')) as Record<string, unknown>;
  for (const key of ['bos_token_id', 'eos_token_id', 'pad_token_id']) config[key] = bundled[key];
  config._generated_by = 'pipeline/bench/real-size-annotate.ts (the SmolLM2-135M-shape random weights with models/default\'s tokenizer; for benchmarks only)';
  writeFileSync(join(ANNOTATE_MODEL_DIR, 'config.json'), JSON.stringify(config, null, 2) + '\n');
}

/** VmHWM, MiB (Linux). */
const peakRssMiB = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) / 1024;

type Stage = 'probe' | 'positions' | 'sampling' | 'scoring' | 'control';
const cpu = (c0: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1e6;
};

/** One process: load, probe, annotate the first `docs` documents; the LM's CPU and wall seconds by stage. */
async function profileAnnotate(docs: number, log: (...x: unknown[]) => void): Promise<AnnotateProfile> {
  // What `npm start` passes: the CLI's defaults (pipeline/node/cli/cli.ts) — seed 0, batches of 16, 4 concurrent tools,
  // --lm-context auto (undefined below), the search budget's default.
  const flagsConfig = configFromFlags({ seed: 0, batchSize: 16, concurrency: 4, lmProposals: true, out: '' } as Parameters<typeof configFromFlags>[0]);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const lm = await loadModel(ANNOTATE_MODEL_DIR);
  const loadCpuSeconds = cpu(c0);
  const costs = Object.fromEntries((['probe', 'positions', 'sampling', 'scoring', 'control'] as Stage[]).map((s) => [s, { cpuSeconds: 0, wallSeconds: 0, calls: 0, sequences: 0, tokens: 0 }])) as Record<Stage, StageCost>;
  let stage: StageProgress['stage'] | 'probe' = 'probe';
  const timed = async <T>(which: Stage, sequences: number, tokens: number, run: () => Promise<T>): Promise<T> => {
    const [c, t] = [process.cpuUsage(), performance.now()];
    try {
      return await run();
    } finally {
      const cost = costs[which];
      cost.cpuSeconds += cpu(c);
      cost.wallSeconds += (performance.now() - t) / 1000;
      cost.calls++;
      cost.sequences += sequences;
      cost.tokens += tokens;
    }
  };
  const score = lm.score.bind(lm);
  const sample = lm.sample.bind(lm);
  lm.score = (batch: readonly ScoreRequest[]) => {
    const which: Stage = stage === 'probe' ? 'probe' : batch.some((r) => r.probe !== undefined) ? 'positions' : stage === 'control' ? 'control' : 'scoring';
    return timed(which, batch.length, batch.reduce((s, r) => s + (r.upTo ?? r.ids.length), 0), () => score(batch));
  };
  lm.sample = (prompt: readonly number[], options: SampleOptions) =>
    timed(stage === 'probe' ? 'probe' : 'sampling', options.n, options.n * (prompt.length + options.maxNewTokens), () => sample(prompt, options));
  const { parts } = await createNodeParts(lm, flagsConfig);
  parts.progress = (step) => (stage = step.stage);
  log('the probes before the run (bare-text, then sampling), as annotate runs them');
  // The run's config is the plan's: the flags' config with the probes' verdicts.
  const config = withVerdicts(flagsConfig, await runProbes(parts, flagsConfig, undefined, (line) => log(line)));
  const peakRssAfterProbeMiB = peakRssMiB();
  stage = 'positions';
  log(`annotate: the first ${docs} documents of corpus/sample.jsonl`);
  const outDir = join(ROOT, 'out/bench/real-size-annotate');
  rmSync(outDir, { recursive: true, force: true });
  const stats = await runAnnotate(parts, { inputs: [join(ROOT, 'corpus/sample.jsonl')], outDir, meta: { model: ANNOTATE_MODEL_DIR }, config, maxDocs: docs });
  const cpuSeconds = cpu(c0);
  await lm.release();
  const inLm = Object.values(costs).reduce((s, c) => s + c.cpuSeconds, 0);
  return {
    docs: stats.docsRead,
    cpuSeconds, wallSeconds: (performance.now() - t0) / 1000, loadCpuSeconds,
    otherCpuSeconds: cpuSeconds - loadCpuSeconds - inLm,
    peakRssMiB: peakRssMiB(),
    peakRssAfterProbeMiB,
    stages: costs,
    samplingProbe: config.samplingProbe ?? {},
    lmContext: config.lmContext,
    bareProbe: config.bareProbe,
    stats,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const log = (...xs: unknown[]) => console.error(`[real-size-annotate ${new Date().toISOString().slice(11, 19)}]`, ...xs);
  const docs = Number(scriptFlag('docs', '3'));
  const json = join(OUT, 'real-size-annotate.json');
  let result: Parameters<typeof projectionLines>[0];
  if (process.argv.includes('--render')) {
    result = JSON.parse(readFileSync(json, 'utf8')); // the .md again from the committed .json, no run
  } else {
    await ensureRealSizeModel([], log);
    ensureAnnotateModelDir();
    const profile = await profileAnnotate(docs, log);
    const start = JSON.parse(readFileSync(join(ROOT, 'pipeline/docs/results/start.json'), 'utf8'));
    const texts = readFileSync(join(ROOT, 'corpus/sample.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { text: string }).text.length);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const projection = projectStart(profile, start, mean(texts) / mean(texts.slice(0, profile.docs)));
    result = { date: new Date().toISOString(), command: `npx tsx pipeline/bench/real-size-annotate.ts --docs ${docs}`, profile, projection };
    mkdirSync(OUT, { recursive: true });
    writeFileSync(json, JSON.stringify(result, null, 2) + '\n');
  }
  const md = projectionLines(result).join('\n');
  writeFileSync(join(OUT, 'real-size-annotate.md'), md);
  console.log(md);
}
