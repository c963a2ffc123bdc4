/**
 * The same weights through every LM backend (issue 45's parity must-show): models/default through ONNX Runtime (and
 * its fp16 and q8 files, `--dtype`), through `toolformer serve` over HTTP (the server backend), converted to GGUF at f32, f16 and q8_0 through llama.cpp's
 * CPU build, the f32 GGUF through llama.cpp's Vulkan build on Mesa's lavapipe, and — the control that names the cause
 * of the GPT-2 gap — ONNX Runtime on the same weights with llama.cpp's float16 GELU table written into the graph
 * (gelu-table.ts). Each run is `npm start`'s (`toolformer annotate corpus/sample.jsonl`, a child process per run, its
 * own start-up probes) with `--model` naming the backend. Reported:
 * - `toolformer score`'s worked cases (the README's India QA call, a Calculator call): L_a, L_b, L_c per runtime;
 * - every scored call of each run paired with the reference run's by identity (parity-compare.ts): max |Δ| of L_a,
 *   L_b, L_c, the verdict flips with their distance to τ_f, whether the kept calls and train.jsonl are identical —
 *   against ONNX Runtime, and the quantized and Vulkan runs also against the f32 GGUF on the CPU;
 * - the first parity run's pairing replayed (calls keyed without their result): the whole-nat L_c "differences".
 * - the exact-GELU llama.cpp build (`--llama-gelu exact`), the f32 GGUF again, as a run and on the sample's tokens.
 * Writes results/gguf-parity.json; `--markdown` renders it into gguf-parity.md, the README's block.
 *
 *   npx tsx pipeline/bench/gguf-parity.ts [--work dir] [--runs ort,served,…,gelu-tokens,gelu-exact-tokens] [--docs f16=10,…] [--vulkan-icd manifest.json]
 *   npx tsx pipeline/bench/gguf-parity.ts --markdown
 * --work: where the runs go (kept; a run whose folder already holds stats.json is reused, and said so).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CausalLM } from '../core/lm/lm.ts';
import { calculator } from '../core/tools/calculator/index.ts';
import { qa } from '../core/tools/qa/index.ts';
import { convertCommand } from '../node/commands/convert-command.ts';
import { configFromFlags } from '../node/commands/annotate-command.ts';
import { scoreCall } from '../node/commands/score-command.ts';
import { BUILD_RECORD, exactGeluBuildFolder } from '../node/model/lm-backends/llama-gelu-build.ts';
import { openLM } from '../node/model/lm-backends/registry.ts';
import { DEFAULT_MODEL, PACKAGE_ROOT } from '../node/system/package-paths.ts';
import { Command } from 'commander';
import { addRunCommands } from '../node/cli/cli-run-commands.ts';
import type { AnnotateFlags } from '../node/commands/annotate-command.ts';
import { exactBuildEvidence, geluEvidence, ggmlGeluModel } from './gelu-table.ts';
import { compareRuns, oldKeyPairing } from './parity-compare.ts';
import { startServe } from './backends-rows.ts';
import { parityMarkdown } from './gguf-parity-format.ts';

const SAMPLE = join(PACKAGE_ROOT, 'corpus/sample.jsonl');
/**
 * The Vulkan driver of the vulkan run, by its manifest's path (`--vulkan-icd`): Debian mesa-vulkan-drivers' lavapipe
 * (llama.cpp cannot use chromium's SwiftShader). GGML_VK_VISIBLE_DEVICES=0 lets ggml-vulkan use a CPU-type device.
 */
const vulkanIcd = process.argv.includes('--vulkan-icd') ? process.argv[process.argv.indexOf('--vulkan-icd') + 1] : '/usr/share/vulkan/icd.d/lvp_icd.x86_64.json';
const BIN = join(PACKAGE_ROOT, 'pipeline/node/bin.mjs');
export const RESULT = join(import.meta.dirname, 'results/gguf-parity.json');

/** The worked cases of device.test.ts / the README: the longest call npm start keeps, and a Calculator call. */
export function workedCases() {
  const docs = readFileSync(SAMPLE, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; text: string });
  const area = 'Area: total: 9,826,675 sq km; land: 9,161,966 sq km; water: 664,709 sq km; note: includes only the 50 states.';
  return [
    { name: `India ${qa.name}`, text: docs.find((d) => d.id === 'factbook/south-asia/in/people-and-society/0')!.text, call: { tool: qa.name, input: 'What language is spoken in India?' }, at: 161 },
    { name: calculator.name, text: area, call: { tool: calculator.name, input: '9826675 - 9161966' }, at: area.indexOf(' 664,709') },
  ];
}

/** The flags `npm start` runs annotate with, defaults from the CLI itself. */
async function npmStartFlags(): Promise<AnnotateFlags> {
  const program = new Command('toolformer').exitOverride();
  addRunCommands(program);
  let flags: AnnotateFlags | undefined;
  program.commands.find((c) => c.name() === 'annotate')!.action((_inputs: string[], opts: AnnotateFlags) => {
    flags = opts;
  });
  await program.parseAsync(['annotate', SAMPLE, '--out', 'unused', '--quiet'], { from: 'user' });
  return flags!;
}

/** [case][L_a, L_b, L_c] of the worked cases on `lm`, with `npm start`'s settings. */
export async function workedLosses(lm: CausalLM): Promise<number[][]> {
  const config = configFromFlags(await npmStartFlags());
  const out: number[][] = [];
  for (const c of workedCases()) {
    const { losses } = await scoreCall(lm, config, c.text, c.at, c.call);
    out.push([losses.noCall, losses.callOnly!, losses.withResult]);
  }
  return out;
}

/** One annotate run: the --model it names, its device, the environment it needs, and what it is compared with. */
interface RunSpec {
  name: string;
  what: string;
  model: (work: string) => Promise<string>;
  extra?: string[];
  env?: NodeJS.ProcessEnv;
  /**
   * Run on one core (`taskset -c 0`): llama.cpp's threads default to os.availableParallelism(), which follows the
   * affinity. On this loaded 2-core machine its spinning thread pool made a scored request 20× slower with 2 threads
   * than with 1 (1.6 s against 80 ms, measured); the numbers do not depend on it.
   */
  oneCore?: boolean;
  /** Runs it is compared with (`ort` always). */
  against: string[];
  /** In-process model for the worked cases (undefined: none, e.g. a device chosen per process). */
  worked?: (model: string) => Promise<CausalLM & { release?(): Promise<void> }>;
}

const gguf = (dtype: string) => async (work: string) => {
  const out = join(work, `default-${dtype}.gguf`);
  return existsSync(out) ? out : convertCommand(DEFAULT_MODEL, { to: 'gguf', dtype: dtype as 'f32', out });
};
const open = (model: string) => openLM(model, { threads: 1 });
/** The exact-GELU llama.cpp build (`npx toolformer build-llama --gelu exact` made it; lm-backends/llama-gelu.ts). */
const openExact = (model: string) => openLM(model, { threads: 1, llamaGelu: 'exact' });
/** The model's other ONNX file for a Transformers.js dtype (`--dtype`), in-process. */
const openDtype = (dtype: 'fp16' | 'q8') => (model: string) => openLM(model, { dtype });

export const RUNS: RunSpec[] = [
  { name: 'ort', what: 'ONNX Runtime (models/default)', model: async () => DEFAULT_MODEL, against: [], worked: open },
  { name: 'ort-fp16', what: "ONNX Runtime fp16 (models/default's onnx/model_fp16.onnx, `--dtype fp16`)", model: async () => DEFAULT_MODEL, extra: ['--dtype', 'fp16'], against: [], worked: openDtype('fp16') },
  { name: 'ort-q8', what: "ONNX Runtime q8 (models/default's onnx/model_quantized.onnx, `--dtype q8`: 8-bit weights, Transformers.js's q8)", model: async () => DEFAULT_MODEL, extra: ['--dtype', 'q8'], against: [], worked: openDtype('q8') },
  { name: 'served', what: '`toolformer serve` over HTTP (models/default on ONNX Runtime)', model: async () => DEFAULT_MODEL, against: ['ort'] },
  { name: 'f32', what: 'llama.cpp f32 (CPU)', model: gguf('f32'), oneCore: true, against: ['ort'], worked: open },
  { name: 'ggml-gelu', what: "ONNX Runtime with ggml-cpu's float16 GELU table in the graph", model: async (work) => ggmlGeluModel(DEFAULT_MODEL, join(work, 'ggml-gelu-model')), against: ['ort', 'f32'], worked: open },
  { name: 'f16', what: 'llama.cpp f16 (CPU)', model: gguf('f16'), oneCore: true, against: ['ort', 'f32'], worked: open },
  { name: 'q8_0', what: 'llama.cpp q8_0 (CPU)', model: gguf('q8_0'), oneCore: true, against: ['ort', 'f32'], worked: open },
  { name: 'f32-exact-gelu', what: 'llama.cpp f32, the exact-GELU build (CPU; `--llama-gelu exact`)', model: gguf('f32'), extra: ['--llama-gelu', 'exact'], oneCore: true, against: ['ort', 'f32'], worked: openExact },
  { name: 'vulkan-f32', what: `llama.cpp f32, Vulkan on Mesa lavapipe (VK_ICD_FILENAMES=${vulkanIcd})`, model: gguf('f32'), extra: ['--device', 'vulkan'], env: { ...process.env, VK_ICD_FILENAMES: vulkanIcd, GGML_VK_VISIBLE_DEVICES: '0' }, against: ['ort', 'f32'] },
];

/** `toolformer <args>` as a child process; resolves with its stderr, rejects with it on a non-zero exit. */
function toolformer(args: string[], env: NodeJS.ProcessEnv = process.env, oneCore = false): Promise<string> {
  return new Promise((done, fail) => {
    const [command, ...rest] = [...(oneCore ? ['taskset', '-c', '0'] : []), process.execPath, BIN, ...args];
    const child = spawn(command, rest, { cwd: PACKAGE_ROOT, env, stdio: ['ignore', 'inherit', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d;
      process.stderr.write(d);
    });
    child.on('close', (code) => (code === 0 ? done(stderr) : fail(new Error(`toolformer ${args.slice(0, 2).join(' ')} exited ${code}: ${stderr.trim().split('\n').pop()}`))));
  });
}

/** `toolformer serve --model <model> --port 0` (backends-rows.ts startServe); its /v1 URL and how to stop it. */
async function serve(model: string): Promise<{ url: string; stop: () => void }> {
  const { child, url } = await startServe(model);
  return { url, stop: () => child.kill('SIGTERM') };
}

/** The annotate run of `spec` into work/<name> (reused when complete); its command line and seconds. */
async function annotate(spec: RunSpec, work: string, maxDocs: number | undefined, model: string, url?: string) {
  const dir = join(work, spec.name);
  const args = ['annotate', SAMPLE, '--out', dir, '--overwrite', '--quiet', '--model', url ?? model, ...(url ? ['--tokenizer', model] : []), ...(spec.extra ?? []), ...(maxDocs ? ['--max-docs', String(maxDocs)] : [])];
  const command = `${spec.env?.VK_ICD_FILENAMES ? `VK_ICD_FILENAMES=${spec.env.VK_ICD_FILENAMES} GGML_VK_VISIBLE_DEVICES=0 ` : ''}${spec.oneCore ? 'taskset -c 0 ' : ''}toolformer ${args.join(' ')}`.replaceAll(work, '<work>').replaceAll(PACKAGE_ROOT + '/', '');
  // A finished run left its record beside its files (bench-run.json): a later invocation reuses both.
  const record = join(dir, 'bench-run.json');
  if (existsSync(record) && existsSync(join(dir, 'stats.json'))) return { dir, ...JSON.parse(readFileSync(record, 'utf8')) };
  const started = performance.now();
  const stderr = await toolformer(args, spec.env, spec.oneCore);
  const run = { command, seconds: Math.round((performance.now() - started) / 1000), probes: stderr.split('\n').filter((l) => / of 100 calls sampled /.test(l)) };
  writeFileSync(record, JSON.stringify(run));
  return { dir, ...run };
}

/** The first `n` document ids of the sample (a run cut by --max-docs covers these), or all of them. */
function sampleDocs(n: number | undefined): Set<string> | undefined {
  if (n === undefined) return undefined;
  return new Set(readFileSync(SAMPLE, 'utf8').trim().split('\n').slice(0, n).map((l) => (JSON.parse(l) as { id: string }).id));
}

async function measure(spec: RunSpec, work: string, maxDocs: number | undefined) {
  const model = await spec.model(work);
  const server = spec.name === 'served' ? await serve(model) : undefined;
  try {
    let worked: number[][] | undefined;
    const lm = server ? await openLM(server.url, { tokenizer: model }) : spec.worked ? await spec.worked(model) : undefined;
    if (lm) {
      worked = (await workedLosses(lm)).map((row) => row.map((x) => Number(x.toFixed(6))));
      await (lm as { release?(): Promise<void> }).release?.();
    }
    return { what: spec.what, documents: maxDocs ?? 'all', workedLosses: worked, ...(await annotate(spec, work, maxDocs, model, server?.url)) };
  } finally {
    server?.stop();
  }
}

/** `spec`'s run against ONNX Runtime's and the others it names, over the documents both covered. */
function compareWith(spec: RunSpec, work: string, runs: Record<string, { documents: number | 'all' }>) {
  const comparisons: Record<string, unknown> = {};
  const done = (name: string) => existsSync(join(work, name, 'stats.json'));
  for (const against of spec.name === 'ort' ? [] : ['ort', ...spec.against.filter((a) => a !== 'ort')]) {
    if (!done(spec.name) || !done(against)) continue;
    const counts = [runs[spec.name].documents, runs[against]?.documents].filter((n): n is number => typeof n === 'number');
    const subset = sampleDocs(counts.length ? Math.min(...counts) : undefined);
    comparisons[against] = { documents: subset?.size ?? 'all', ...compareRuns(join(work, against), join(work, spec.name), subset), keyedWithoutResult: oldKeyPairing(join(work, against), join(work, spec.name), subset) };
  }
  return comparisons;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'vulkan-icd': { type: 'string' }, work: { type: 'string' }, runs: { type: 'string' }, docs: { type: 'string' }, out: { type: 'string' } } });
  const work = resolve(values.work ?? join(tmpdir(), 'gguf-parity'));
  mkdirSync(work, { recursive: true });
  const names = values.runs ? values.runs.split(',') : [...RUNS.map((r) => r.name), 'gelu-tokens', 'gelu-exact-tokens'];
  const docs = Object.fromEntries((values.docs ?? '').split(',').filter(Boolean).map((kv) => [kv.split('=')[0], Number(kv.split('=')[1])]));
  const out = resolve(values.out ?? RESULT);
  const previous = existsSync(out) && JSON.parse(readFileSync(out, 'utf8')).runs ? JSON.parse(readFileSync(out, 'utf8')) : { runs: {} };
  const result = {
    measured: new Date().toISOString(),
    // Every invocation that measured what the file holds (a run is reused from --work by later ones).
    commands: [...new Set([...(previous.commands ?? (previous.command ? [previous.command] : [])), `npx tsx pipeline/bench/gguf-parity.ts${values.runs ? ` --runs ${values.runs}` : ''}${values.docs ? ` --docs ${values.docs}` : ''}`])],
    machine: { cores: availableParallelism(), cpu: cpus()[0]?.model, loadAverage: Number(loadavg()[0].toFixed(1)) },
    model: 'models/default (GPT-2, 2 layers, 256 wide, vocab 1024)',
    workedCases: workedCases().map((c) => `${c.name}: ${c.call.tool}(${c.call.input}) at ${c.at}`),
    runs: previous.runs as Record<string, any>,
    geluTable: previous.geluTable as unknown,
    geluExactBuild: previous.geluExactBuild as unknown,
  };
  if (names.includes('gelu-tokens')) {
    result.geluTable = await geluEvidence(SAMPLE, DEFAULT_MODEL, await gguf('f32')(work), work, open);
    console.log('gelu-tokens', JSON.stringify(result.geluTable));
  }
  if (names.includes('gelu-exact-tokens')) {
    const folder = exactGeluBuildFolder();
    const build = folder && existsSync(join(folder, BUILD_RECORD)) ? JSON.parse(readFileSync(join(folder, BUILD_RECORD), 'utf8')) : null;
    result.geluExactBuild = { build, ...(await exactBuildEvidence(SAMPLE, DEFAULT_MODEL, await gguf('f32')(work), (model, exact) => (exact ? openExact(model) : open(model)))) };
    console.log('gelu-exact-tokens', JSON.stringify(result.geluExactBuild));
  }
  for (const spec of RUNS.filter((r) => names.includes(r.name))) {
    const { dir: _, ...run } = await measure(spec, work, docs[spec.name]);
    result.runs[spec.name] = run;
    writeFileSync(out, JSON.stringify(result, null, 2) + '\n'); // after each run: a cut-short bench keeps what it measured
  }
  // A comparison whose runs are not in this --work keeps what an earlier invocation measured.
  for (const spec of RUNS.filter((r) => result.runs[r.name])) result.runs[spec.name].comparisons = { ...result.runs[spec.name].comparisons, ...compareWith(spec, work, result.runs) };
  writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  console.log(`wrote ${out}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--markdown')) writeFileSync(join(import.meta.dirname, 'results/gguf-parity.md'), parityMarkdown(JSON.parse(readFileSync(RESULT, 'utf8'))));
  else await main();
}
