/**
 * The bench at a real model's size: a random-weight decoder of SmolLM2-135M's exact shape (30 layers, width 576,
 * 9 heads / 3 KV heads of 64, MLP 1,536, vocabulary 49,152, tied embeddings), generated here at bench time into
 * out/bench/smollm2-135m-shape/ (never committed) in the published layout — MatMul weights stored [in, out], the tied
 * head stored again (onnx-export/optimum-layout.ts): 651 MB fp32 as the real model.onnx's 654 MB — and its q4f16 file, then
 * per dtype, each in its own child process so the memory figures are its own:
 *
 *   scorer  loadModel + CausalLM.score on R rows × L tokens, two workloads as the pipeline sends them: losses (each
 *           row reads its last 5 positions, the weighted continuation of L_a / L_b / L_c) and p_i (each row reads
 *           every position and the " [" probe, the sampling-positions stage); tokens/s in process CPU time
 *           (onnxruntime-node, 1 intra-op thread); peak RSS during load and while scoring (VmHWM, reset after the
 *           load through /proc/self/clear_refs)
 *   limit   a bare InferenceSession on the same file: [R, L] forward passes fetching logits (the runtime's own speed)
 *   browser the folder opened in a Chromium tab through the web app's directory input (real-size-browser.ts), the
 *           scorer's losses rows scored there on WASM and WebGPU (a software adapter here: SwiftShader; fewer rows,
 *           --webgpu-rows), with the tab's memory
 *
 *   npx tsx pipeline/bench/real-size.ts [--rows 16] [--length 128] [--repeats 3] [--dtypes fp32,q4,q4f16]
 *                                       [--browser wasm,webgpu|none] [--browser-dtypes q4,q4f16]
 *                                       [--browser-rows 4] [--browser-repeats 2] [--webgpu-rows 2] [--webgpu-dtypes q4f16]
 *
 * Then the PyTorch peer row on the fp32 weights (real-size-peer.ts; left out with one line without python3-torch).
 *
 * Writes pipeline/bench/results/real-size.json and real-size.md. The weights are N(0, 0.02²) (norms 1), so float16
 * activations stay finite; random weights change no timing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DTYPE_FILES, type Dtype } from '../core/lm/dtypes.ts';
import { loadModel } from '../node/model/load-model.ts';
import { exportLlama } from '../onnx-export/export-llama.ts';
import { llamaWeightShapes } from '../onnx-export/llama-weights.ts';
import { foldWeightTransposes } from '../onnx-export/optimum-layout.ts';
import { mulberry32 } from '../random/mulberry32.ts';
import { VARIANT_WRITERS } from '../onnx-export/replicas.ts';
import { tinyChatTokenizer } from '../onnx-export/tiny-llama.ts';
import { f } from './format.ts';
// Type only: the browser rows import vite and playwright, which the children must not load (their RSS is measured:
// imported here they added ~180 MiB to every child's peak).
import type { BrowserRealSizeRow } from './real-size-browser.ts';
import { scriptFlag } from '../io/script-flag.ts';
import { benchRealSizePeer, realSizePeerLines } from './real-size-peer.ts';
import { LOSS_READS, PROBE_ID, rawForwardFeeds, rawSession, REAL_SIZE_DIR, rowIds, SMOLLM2_135M } from './real-size-shape.ts';

export { REAL_SIZE_DIR, SMOLLM2_135M };

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, 'pipeline/bench/results');

/** Writes the fp32 model (and the other dtypes' files) once; same code → same files. */
export async function ensureRealSizeModel(dtypes: readonly Dtype[], log: (...x: unknown[]) => void): Promise<void> {
  if (!existsSync(join(REAL_SIZE_DIR, 'onnx/model.onnx'))) await writeRealSizeModel(REAL_SIZE_DIR, { optimumLayout: true }, log);
  for (const dtype of dtypes) {
    const file = join(REAL_SIZE_DIR, 'onnx', DTYPE_FILES[dtype]);
    if (existsSync(file)) continue;
    log(`writing ${DTYPE_FILES[dtype]}`);
    writeFileSync(file, VARIANT_WRITERS[dtype](readFileSync(join(REAL_SIZE_DIR, 'onnx/model.onnx'))));
  }
}

/**
 * The fp32 SmolLM2-135M-shape model (seed 135: the same weights every time) in `dir`: in the published Optimum layout
 * (MatMul weights [in, out], what real-size.ts measures), or in this project's own layout (named [out, in] weights +
 * Transpose), which `toolformer convert --to gguf` reads (the backends bench, backends.ts).
 */
export async function writeRealSizeModel(dir: string, { optimumLayout }: { optimumLayout: boolean }, log: (...x: unknown[]) => void): Promise<void> {
  log('writing the SmolLM2-135M-shape model (random weights) to', dir);
  const rng = mulberry32(135);
  const weights = new Map<string, Float32Array>();
  for (const [name, dims] of llamaWeightShapes(SMOLLM2_135M)) {
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
    if (/norm\.weight$/.test(name)) data.fill(1);
    else for (let i = 0; i < data.length; i++) data[i] = 0.02 * rng.normal();
    weights.set(name, data);
  }
  const tokenizer = tinyChatTokenizer(); // 266 byte-level tokens; ids past them are never fed, the head is 49,152 wide
  await exportLlama(dir, {
    config: SMOLLM2_135M,
    weights,
    tokenizer: tokenizer.json,
    special: { bos: '<|endoftext|>', eos: '<|endoftext|>', pad: '<|endoftext|>' },
    extra: { _generated_by: 'pipeline/bench/real-size.ts (SmolLM2-135M shape, random weights, seed 135; for benchmarks only)' },
  });
  const file = join(dir, 'onnx/model.onnx');
  if (optimumLayout) writeFileSync(file, foldWeightTransposes(readFileSync(file)));
}

interface ChildResult {
  /** The scorer's losses workload (limit: the forward). */
  tokensPerSecond: number;
  /** The scorer's p_i workload (every position and the probe read). */
  probeTokensPerSecond?: number;
  /** MiB: peak resident set during the load, and after a reset, while scoring / forwarding. */
  peakLoadMiB: number;
  peakRunMiB: number;
  loadSeconds: number;
}

const rssPeakMiB = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;
const resetRssPeak = () => writeFileSync('/proc/self/clear_refs', '5');
const cpuSeconds = (c0: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1e6;
};

async function child(kind: 'scorer' | 'limit', dtype: Dtype, rows: number, length: number, repeats: number): Promise<ChildResult> {
  const t0 = performance.now();
  const ids = rowIds(rows, length);
  let run: () => Promise<unknown>;
  let probe: (() => Promise<unknown>) | null = null;
  let release: () => Promise<void>;
  if (kind === 'scorer') {
    const lm = await loadModel(REAL_SIZE_DIR, { dtype });
    const losses = ids.map((row) => ({ ids: row, from: length - LOSS_READS }));
    const probes = ids.map((row) => ({ ids: row, probe: PROBE_ID }));
    run = () => lm.score(losses);
    probe = () => lm.score(probes);
    release = () => lm.release();
  } else {
    const session = await rawSession(dtype);
    const feeds = rawForwardFeeds(session, ids);
    run = () => session.run(feeds, ['logits']);
    release = () => session.release();
  }
  const loadSeconds = (performance.now() - t0) / 1000;
  const peakLoadMiB = rssPeakMiB();
  resetRssPeak();
  await run(); // warm-up
  const c0 = process.cpuUsage();
  for (let r = 0; r < repeats; r++) await run();
  const seconds = cpuSeconds(c0);
  let probeTokensPerSecond: number | undefined;
  if (probe) {
    await probe();
    const p0 = process.cpuUsage();
    for (let r = 0; r < repeats; r++) await probe();
    probeTokensPerSecond = (rows * length * repeats) / cpuSeconds(p0);
  }
  const peakRunMiB = rssPeakMiB();
  await release();
  return { tokensPerSecond: (rows * length * repeats) / seconds, probeTokensPerSecond, peakLoadMiB, peakRunMiB, loadSeconds };
}

const arg = scriptFlag;

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [rows, length, repeats] = [Number(arg('rows', '16')), Number(arg('length', '128')), Number(arg('repeats', '3'))];
  const kind = arg('child', '');
  if (kind === 'scorer' || kind === 'limit') {
    console.log(JSON.stringify(await child(kind, arg('dtype', 'fp32') as Dtype, rows, length, repeats)));
  } else {
    const log = (...xs: unknown[]) => console.error(`[real-size ${new Date().toISOString().slice(11, 19)}]`, ...xs);
    const dtypes = arg('dtypes', 'fp32,q4,q4f16').split(',') as Dtype[];
    const started = performance.now();
    await ensureRealSizeModel(dtypes, log);
    const results = [];
    for (const dtype of dtypes) {
      const bytes = statSync(join(REAL_SIZE_DIR, 'onnx', DTYPE_FILES[dtype])).size;
      const run = (which: 'scorer' | 'limit'): ChildResult => {
        log(`${dtype} ${which}: ${rows} × ${length} tokens, ${repeats} repeats`);
        const out = execFileSync(process.execPath, [
          '--import', 'tsx', fileURLToPath(import.meta.url), '--child', which, '--dtype', dtype,
          '--rows', String(rows), '--length', String(length), '--repeats', String(repeats),
        ], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 });
        return JSON.parse(out.trim().split('\n').at(-1)!) as ChildResult;
      };
      const scorer = run('scorer');
      const limit = run('limit');
      results.push({ dtype, file: `onnx/${DTYPE_FILES[dtype]}`, bytes, scorer, limit, scorerOverLimit: scorer.tokensPerSecond / limit.tokensPerSecond });
      log(`${dtype}: scorer ${f(scorer.tokensPerSecond)} tok/s, limit ${f(limit.tokensPerSecond)} tok/s, peak RSS scoring ${f(scorer.peakRunMiB)} MiB`);
    }
    const peer = benchRealSizePeer(rows, length, repeats, log);
    if (!peer.installed) log(`PyTorch peer left out: ${peer.reason}`);
    const browserBackends = arg('browser', 'wasm,webgpu').split(',').filter((b): b is 'wasm' | 'webgpu' => b === 'wasm' || b === 'webgpu');
    const browserDtypes = arg('browser-dtypes', 'q4,q4f16').split(',').filter((d): d is Dtype => dtypes.includes(d as Dtype));
    // Fewer rows in the tab: Chromium's WASM scores this model's 4-bit files ~10× slower than Node here (the table).
    const [browserRows, browserRepeats, webgpuRows] = [Number(arg('browser-rows', '4')), Number(arg('browser-repeats', '2')), Number(arg('webgpu-rows', '2'))];
    const losses = (n: number) => rowIds(n, length).map((row) => ({ ids: row, from: length - LOSS_READS }));
    const { measureBrowser } = await import('./real-size-browser.ts');
    const browser: BrowserRealSizeRow[] = browserBackends.length === 0 || browserDtypes.length === 0 ? [] : await measureBrowser({
      dir: REAL_SIZE_DIR, dtypes: browserDtypes, backends: browserBackends, log,
      // q4 (float32 activations) on SwiftShader had not scored 2 × 128 tokens after 8 min (2026-12-01): not run there.
      webgpuDtypes: arg('webgpu-dtypes', 'q4f16').split(',') as Dtype[],
      requests: (backend) => (backend === 'webgpu'
        ? { rows: losses(Math.min(rows, webgpuRows)), repeats: 1 }
        : { rows: losses(Math.min(rows, browserRows)), repeats: browserRepeats }),
    });
    const result = {
      date: new Date().toISOString(),
      machine: 'shared 2-core VM, Node 20, onnxruntime-node 1.30, 1 intra-op thread; rates from process CPU time',
      shape: SMOLLM2_135M,
      rows, length, repeats,
      minutes: (performance.now() - started) / 60000,
      results,
      peer,
      browser,
    };
    mkdirSync(OUT, { recursive: true });
    writeFileSync(join(OUT, 'real-size.json'), JSON.stringify(result, null, 2) + '\n');
    const mib = (b: number) => b / 2 ** 20;
    const md = [
      `Measured by \`npx tsx pipeline/bench/real-size.ts --rows ${rows} --length ${length} --repeats ${repeats}\` (${result.date.slice(0, 10)},`,
      `${f(result.minutes, 1)} min): a random-weight model of SmolLM2-135M's shape (30 × 576, 9 / 3 heads, vocab 49,152), each row in its own`,
      `child process; shared 2-core machine, onnxruntime-node with 1 intra-op thread, rates from process CPU time.`,
      '',
      '| dtype (file) | File | Scorer tok/s: losses; p_i | Raw forward tok/s (limit) | Scorer / limit: losses; p_i | Peak RSS scoring (/ file) | Peak RSS loading (/ file) | Load s |',
      '|---|---|---|---|---|---|---|---|',
      ...results.map((r) =>
        `| ${r.dtype} (\`${r.file}\`) | ${f(mib(r.bytes))} MiB | ${f(r.scorer.tokensPerSecond)}; ${f(r.scorer.probeTokensPerSecond ?? NaN)} | ${f(r.limit.tokensPerSecond)} | ` +
        `**${f(r.scorerOverLimit, 2)}**; ${f((r.scorer.probeTokensPerSecond ?? NaN) / r.limit.tokensPerSecond, 2)} | ` +
        `${f(r.scorer.peakRunMiB)} MiB (${f(r.scorer.peakRunMiB / mib(r.bytes), 2)}) | ${f(r.scorer.peakLoadMiB)} MiB (${f(r.scorer.peakLoadMiB / mib(r.bytes), 2)}) | ${f(r.scorer.loadSeconds, 1)} |`,
      ),
      '',
      ...realSizePeerLines(peer, results.map((r) => ({ dtype: r.dtype, losses: r.scorer.tokensPerSecond, probe: r.scorer.probeTokensPerSecond ?? NaN, limit: r.limit.tokensPerSecond }))),
      ...browserLines(browser, results),
    ].join('\n');
    writeFileSync(join(OUT, 'real-size.md'), md);
    console.log(md);
  }
}

/** The browser rows against Node's scorer on the same file and rows (Node: 1 thread, process CPU time). */
function browserLines(rows: BrowserRealSizeRow[], node: { dtype: Dtype; bytes: number; scorer: ChildResult }[]): string[] {
  if (rows.length === 0) return ['Browser: not measured (--browser none).', ''];
  const mib = (b: number) => b / 2 ** 20;
  const mem = (m: { rssMiB: number; peakRssMiB: number } | null) => (m ? `${f(m.peakRssMiB)} (${f(m.rssMiB)} now)` : '—');
  return [
    'The same folder opened in a Chromium tab through the web app\'s directory input (`real-size-browser.ts`), Node\'s losses rows scored',
    'in the tab\'s model worker. Chromium tok per CPU-s counts every Chromium process; Node\'s is the scorer row above (1 thread).',
    'WebGPU here is SwiftShader, a software adapter on the CPU, not a GPU (fewer rows): it shows the path works, not a GPU\'s speed.',
    'Memory: the renderer (page + model worker, WebAssembly heap included) and the GPU process, resident MiB, peak (VmHWM);',
    'measured: `performance.measureUserAgentSpecificMemory()` (JS and WebAssembly memory of the page and its worker).',
    '',
    '| dtype | Asked / ran | Rows × tokens | Load s | Chromium tok/s (wall) | Chromium tok per CPU-s | Node tok per CPU-s | Node / Chromium (CPU) | Renderer RSS MiB, peak (/ file) | GPU process RSS MiB, peak | Measured MiB | Note |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => {
      const n = node.find((x) => x.dtype === r.dtype)!;
      return `| ${r.dtype} | ${r.backend} / ${r.ran} | ${r.rows} × ${r.length} | ${f(r.loadSeconds, 1)} | ${f(r.tokensPerSecond)} | ${f(r.tokensPerCpuSecond)} | ` +
        `${f(n.scorer.tokensPerSecond)} | **${f(n.scorer.tokensPerSecond / r.tokensPerCpuSecond, 2)}** | ` +
        `${mem(r.renderer)}${r.renderer ? ` (${f(r.renderer.peakRssMiB / mib(n.bytes), 2)})` : ''} | ${mem(r.gpuProcess)} | ${r.measuredMiB === null ? '—' : f(r.measuredMiB)} | ${r.note} |`;
    }),
    '',
  ];
}
