/**
 * The same weights through ONNX Runtime and through llama.cpp (issue 45's parity must-show): models/default converted
 * to GGUF at f32, f16 and q8_0 (`toolformer convert`), then
 * - the worked cases (`toolformer score`'s: the README's India QA call, a Calculator call): L_a, L_b, L_c per runtime;
 * - `npm start`'s annotate of corpus/sample.jsonl (its settings; the start-up probes' verdicts from the ONNX model for
 *   every runtime), in process: every scored call
 *   matched by (document, position, tool, input), the largest |Δ| of its three losses (as calls.jsonl rounds them,
 *   to 1e-4), the verdicts that flip, and how many calls sit within that |Δ| of τ_f (where a flip is possible);
 *   whether the kept calls and train.jsonl are identical.
 * Writes results/gguf-parity.json; `--markdown` renders it and gguf-parity-quantized.json into gguf-parity.md, the
 * README's block.
 *
 *   npx tsx pipeline/bench/gguf-parity.ts [--device cpu|vulkan] [--dtypes f32,f16,q8_0] [--out file]
 *   npx tsx pipeline/bench/gguf-parity.ts --markdown
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Command } from 'commander';
import type { CausalLM } from '../core/lm/lm.ts';
import { calculator } from '../core/tools/calculator/index.ts';
import { qa } from '../core/tools/qa/index.ts';
import { withVerdicts, type ProbeOutcome } from '../core/run-plan.ts';
import { configFromFlags, type AnnotateFlags } from '../node/commands/annotate-command.ts';
import { runAnnotate } from '../node/run/annotate-run.ts';
import { addRunCommands } from '../node/cli/cli-run-commands.ts';
import { convertCommand } from '../node/commands/convert-command.ts';
import { loadModel } from '../node/model/load-model.ts';
import { DEFAULT_MODEL, PACKAGE_ROOT } from '../node/system/package-paths.ts';
import { createNodeParts } from '../node/tools/parts.ts';
import { cachedProbes } from '../node/run/probe-cache.ts';
import { scoreCall } from '../node/commands/score-command.ts';
import { loadLlamaCpp, type LlamaCppDevice } from '../node/model/lm-backends/llama-cpp.ts';
import { GGUF_DTYPES, type GgufDtype } from '../gguf/gguf-tensors.ts';

const SAMPLE = join(PACKAGE_ROOT, 'corpus/sample.jsonl');

/** The worked cases of device.test.ts / the README: the longest call npm start keeps, and a Calculator call. */
export function workedCases() {
  const docs = readFileSync(SAMPLE, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; text: string });
  const area = 'Area: total: 9,826,675 sq km; land: 9,161,966 sq km; water: 664,709 sq km; note: includes only the 50 states.';
  return [
    { name: `India ${qa.name}`, text: docs.find((d) => d.id === 'factbook/south-asia/in/people-and-society/0')!.text, call: { tool: qa.name, input: 'What language is spoken in India?' }, at: 161 },
    { name: calculator.name, text: area, call: { tool: calculator.name, input: '9826675 - 9161966' }, at: area.indexOf(' 664,709') },
  ];
}

export async function workedLosses(lm: CausalLM): Promise<number[][]> {
  const config = configFromFlags(await npmStartFlags('unused'));
  const out: number[][] = [];
  for (const c of workedCases()) {
    const { losses } = await scoreCall(lm, config, c.text, c.at, c.call);
    out.push([losses.noCall, losses.callOnly!, losses.withResult]);
  }
  return out;
}

/** The flags `npm start` runs annotate with (`annotate corpus/sample.jsonl --out <out>`), defaults from the CLI itself. */
async function npmStartFlags(out: string): Promise<AnnotateFlags> {
  const program = new Command('toolformer').exitOverride();
  addRunCommands(program);
  let flags: AnnotateFlags | undefined;
  program.commands.find((c) => c.name() === 'annotate')!.action((_inputs: string[], opts: AnnotateFlags) => {
    flags = opts;
  });
  await program.parseAsync(['annotate', SAMPLE, '--out', out, '--quiet'], { from: 'user' });
  return flags!;
}

/**
 * `npm start`'s run of corpus/sample.jsonl on `lm` in process into `dir`. The start-up probes' verdicts are computed
 * once, on the ONNX model, and given to every runtime's run (`verdicts`): they choose which tools sample calls from the
 * LM, so every runtime scores the same plan; the probes sample hundreds of rows, minutes per run on llama.cpp here.
 */
export async function annotateSample(lm: CausalLM, dir: string, maxDocs: number | undefined, verdicts: ProbeOutcome): Promise<void> {
  const config = configFromFlags(await npmStartFlags(dir));
  const { parts } = await createNodeParts(lm, config);
  await runAnnotate(parts, { inputs: [SAMPLE], outDir: dir, meta: {}, config: withVerdicts(config, verdicts), maxDocs });
}

/** The start-up probes' verdicts of `npm start` on `lm`. */
export async function probeVerdicts(lm: CausalLM): Promise<ProbeOutcome> {
  const config = configFromFlags(await npmStartFlags('unused'));
  const { parts } = await createNodeParts(lm, config);
  return (await cachedProbes(parts, config, { lmContextFlag: undefined, modelDigest: () => undefined, dtype: 'fp32', use: false, notice: () => {}, warn: () => {} })).verdicts;
}

interface CallRow {
  docId: string;
  at: number;
  tool: string;
  input: string;
  losses?: { noCall: number; callOnly?: number; withResult: number };
  usefulness?: number;
  kept: boolean;
}

const keyOf = (c: CallRow) => `${c.docId}@${c.at} ${c.tool}(${c.input})`;
const readCalls = (dir: string): CallRow[] => readFileSync(join(dir, 'calls.jsonl'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));

/**
 * One runtime's run against the ORT run. A call's losses depend on its window, which the score stage plans beside the
 * longest call scored at the same position, so losses are compared only at positions where both runs scored the same
 * calls (`samePlanCalls`); there the largest |Δ| of a loss, the verdict flips, and how many calls sit within 2·|Δ| of
 * τ_f (usefulness = min(L_a, L_b) − L_c moves by at most twice a loss's |Δ|), where a flip is possible.
 */
export function compareRuns(ortDir: string, otherDir: string, tauF: (tool: string) => number) {
  const ortCalls = readCalls(ortDir);
  const other = readCalls(otherDir);
  const ort = new Map(ortCalls.map((c) => [keyOf(c), c]));
  const plan = (calls: CallRow[]) => {
    const at = new Map<string, string[]>();
    for (const c of calls) at.set(`${c.docId}@${c.at}`, [...(at.get(`${c.docId}@${c.at}`) ?? []), `${c.tool}(${c.input})`]);
    return new Map([...at].map(([k, v]) => [k, v.sort().join('\n')]));
  };
  const [ortPlan, otherPlan] = [plan(ortCalls), plan(other)];
  let maxAbsDelta = 0;
  const same: [CallRow, CallRow][] = [];
  const flips: string[] = [];
  for (const c of other) {
    const o = ort.get(keyOf(c));
    if (!o) continue;
    if (o.kept !== c.kept) flips.push(keyOf(c));
    const position = `${c.docId}@${c.at}`;
    if (ortPlan.get(position) !== otherPlan.get(position) || !o.losses || !c.losses) continue;
    same.push([o, c]);
    for (const k of ['noCall', 'callOnly', 'withResult'] as const) {
      if (o.losses[k] !== undefined && c.losses[k] !== undefined) maxAbsDelta = Math.max(maxAbsDelta, Math.abs(o.losses[k]! - c.losses[k]!));
    }
  }
  const near = same.filter(([o]) => o.usefulness !== undefined && Math.abs(o.usefulness - tauF(o.tool)) <= 2 * maxAbsDelta).length;
  const kept = (rows: Iterable<CallRow>) => [...rows].filter((c) => c.kept).map(keyOf).sort();
  return {
    calls: other.length,
    ortCalls: ortCalls.length,
    matched: other.filter((c) => ort.has(keyOf(c))).length,
    samePlanCalls: same.length,
    maxAbsDelta: Number(maxAbsDelta.toFixed(4)),
    flips: flips.length,
    flipped: flips,
    withinTwoDeltaOfTauF: near,
    kept: kept(other).length,
    ortKept: kept(ort.values()).length,
    keptIdentical: JSON.stringify(kept(other)) === JSON.stringify(kept(ort.values())),
    trainIdentical: readFileSync(join(ortDir, 'train.jsonl'), 'utf8') === readFileSync(join(otherDir, 'train.jsonl'), 'utf8'),
  };
}

/** Documents per dtype: f32 the whole sample (npm start's run), f16 and q8_0 its first 8 (llama.cpp is slow here). */
const DOCS: Record<string, number | undefined> = { f32: undefined, f16: 8, q8_0: 8 };

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { device: { type: 'string', default: 'cpu' }, dtypes: { type: 'string', default: GGUF_DTYPES.join(',') }, docs: { type: 'string' }, reuse: { type: 'string' }, out: { type: 'string' } } });
  // --docs n: every dtype's run on the first n documents; --reuse dir: the (one) dtype's llama.cpp run is already in dir
  // (a run cut short at its checkpoint: its files truncated to the checkpoint's bytes).
  const docsOf = (dtype: string) => (values.docs ? Number(values.docs) : DOCS[dtype]);
  const dtypes = values.dtypes!.split(',') as GgufDtype[];
  const device = values.device as LlamaCppDevice;
  const out = resolve(values.out ?? join(import.meta.dirname, 'results', device === 'cpu' ? 'gguf-parity.json' : `gguf-parity-${device}.json`));
  const work = mkdtempSync(join(tmpdir(), 'gguf-parity-'));
  try {
    const ort = await loadModel(DEFAULT_MODEL);
    const ortWorked = await workedLosses(ort);
    const { parts } = await createNodeParts(ort, configFromFlags(await npmStartFlags('unused')));
    const tauF = (tool: string) => parts.registry.get(tool)!.thresholds.tauF;
    const verdicts = await probeVerdicts(ort);
    const ortRun = async (docs: number | undefined) => {
      const dir = join(work, `ort-${docs ?? 'all'}`);
      if (!existsSync(dir)) await annotateSample(ort, dir, docs, verdicts);
      return dir;
    };
    const runtimes: Record<string, unknown> = {};
    const result = {
      measured: new Date().toISOString(),
      command: `npx tsx pipeline/bench/gguf-parity.ts --device ${device} --dtypes ${dtypes.join(',')}`,
      machine: { cores: availableParallelism(), cpu: cpus()[0]?.model, loadAverage: Number(loadavg()[0].toFixed(1)) },
      model: 'models/default (GPT-2, 2 layers, 256 wide, vocab 1024)',
      device,
      workedCases: workedCases().map((c) => `${c.name}: ${c.call.tool}(${c.call.input}) at ${c.at}`),
      ort: { workedLosses: ortWorked.map((row) => row.map((x) => Number(x.toFixed(6)))) },
      llamaCpp: runtimes,
    };
    for (const dtype of dtypes) {
      const file = await convertCommand(DEFAULT_MODEL, { to: 'gguf', dtype, out: join(work, `default-${dtype}.gguf`) });
      const lm = await loadLlamaCpp(file, { device });
      const worked = await workedLosses(lm);
      const started = performance.now();
      const run = values.reuse ?? join(work, dtype);
      if (!values.reuse) await annotateSample(lm, run, docsOf(dtype), verdicts);
      const seconds = (performance.now() - started) / 1000;
      const deltas = worked.flat().map((x, i) => Math.abs(x - ortWorked.flat()[i]));
      runtimes[dtype] = {
        workedLosses: worked.map((row) => row.map((x) => Number(x.toFixed(6)))),
        workedMaxAbsDelta: Number(Math.max(...deltas).toExponential(2)),
        annotate: {
          documents: docsOf(dtype) ?? 'all',
          ...compareRuns(await ortRun(docsOf(dtype)), run, tauF),
          ...(values.reuse ? { probes: 'the llama.cpp run\'s own start-up probes (the ONNX run: ONNX Runtime\'s)' } : { llamaCppSeconds: Number(seconds.toFixed(1)) }),
        },
      };
      await lm.release();
      console.log(dtype, JSON.stringify(runtimes[dtype]));
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, JSON.stringify(result, null, 2) + '\n'); // after each dtype: a cut-short run keeps what it measured
    }
    console.log(`wrote ${out}`);
  } finally {
    if (!process.env.KEEP_PARITY_WORK) rmSync(work, { recursive: true, force: true });
    else console.log(`kept ${work}`);
  }
}

const RESULTS = join(import.meta.dirname, 'results');
const PARTS = ['gguf-parity.json', 'gguf-parity-quantized.json'];

/** results/gguf-parity.md from the committed JSON files: the README's block (`npm run docs`). */
export function parityMarkdown(files: Record<string, any>[]): string {
  const f = (x: number) => x.toFixed(4);
  const ort = files[0].ort.workedLosses as number[][];
  const rows = [`| ONNX Runtime (models/default) | ${ort.map((r) => r.map(f).join(', ')).join(' · ')} | — | — | — | — | — | — |`];
  for (const file of files) {
    for (const [dtype, r] of Object.entries(file.llamaCpp as Record<string, any>)) {
      const a = r.annotate;
      rows.push(
        `| llama.cpp ${dtype} (${file.device}) | ${(r.workedLosses as number[][]).map((x) => x.map(f).join(', ')).join(' · ')} | ${r.workedMaxAbsDelta} | ` +
          `${a.documents === 'all' ? 30 : a.documents} docs: ${a.calls} calls (ORT ${a.ortCalls}), ${a.samePlanCalls === undefined ? `${a.scoredBoth} scored in both (windows may differ)` : `${a.samePlanCalls} scored alike`} | ${a.maxAbsDelta} | ${a.flips} | ${a.withinTwoDeltaOfTauF ?? `${a.withinDeltaOfTauF} (within 1·|Δ|)`} | ${a.kept} vs ${a.ortKept ?? '?'}: ${a.keptIdentical ? 'yes' : 'no'}, ${a.trainIdentical ? 'yes' : 'no'} |`,
      );
    }
  }
  return [
    `The same weights through ONNX Runtime and llama.cpp (\`${files.map((x) => x.command).join('`, `')}\`; ${files.map((x) => x.measured.slice(0, 10)).join(', ')}; ${files[0].machine.cores} cores, load ${files.map((x) => x.machine.loadAverage).join(' / ')}).`,
    '',
    `| runtime | worked cases L_a, L_b, L_c (India ${qa.name} · ${calculator.name}) | max \\|Δ\\| there | annotate of corpus/sample.jsonl | max \\|Δ\\| of a loss (same plan) | verdict flips | calls within 2\\|Δ\\| of τ_f | kept calls (llama.cpp vs ORT): identical, train.jsonl identical |`,
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--markdown')) {
    writeFileSync(join(RESULTS, 'gguf-parity.md'), parityMarkdown(PARTS.map((p) => JSON.parse(readFileSync(join(RESULTS, p), 'utf8')))));
  } else await main();
}
