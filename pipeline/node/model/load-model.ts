/**
 * Node edge of the LM runtime: reads a Hugging Face ONNX causal-LM directory (config.json, tokenizer.json,
 * [tokenizer_config.json], onnx/model.onnx or the `dtype` variant, named as Transformers.js names them:
 * core/lm/dtypes.ts) — a path, or an `org/name` id already in the local Hugging Face cache (hf-cache.ts) — and builds
 * an OrtCausalLM on onnxruntime-node. Offline: nothing is downloaded. External data (`model*.onnx_data`, models
 * over 2 GB) is read by ONNX Runtime from the directory itself: only the small graph passes through JavaScript.
 * Every failure is one line naming the directory and what it does hold.
 */
import { existsSync } from 'node:fs';
import { type FileHandle, open, readdir, stat } from 'node:fs/promises';
import { READ_CAPS, readBoundedFile } from '../../io/bounded-read.ts';
import { basename, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { Device } from '../../core/lm/devices.ts';
import type { CausalLM } from '../../core/lm/lm.ts';
import { loadOrtModel, type ModelSource } from '../../core/lm/load-model.ts';
import type { OrtCausalLM, OrtCausalLMOptions } from '../../core/lm/ort-lm.ts';
import { indexGraph, type ReadAt } from '../../onnx/graph-index.ts';
import { int8WeightRange } from '../../onnx/int8-range.ts';
import { decodeModel } from '../../onnx/onnx-edit.ts';
import { int8PairsSaturate } from './cpu-int8.ts';
import { onnxFileOf } from '../../core/lm/model-files.ts';
import { assertDeviceInstalled, deviceFailure, deviceSessionOptions } from './device.ts';
import { availableDtypes, describeDir, resolveModel, type Dtype } from './hf-cache.ts';

export interface LoadModelOptions {
  /** Intra-op threads per session. One is fastest on a busy 2-core machine (measured: two intra-op threads were slower unless spinning is off). @default 1 */
  threads?: number;
  /** Scoring batch limits and log-prob path, passed through to OrtCausalLM. */
  lm?: Pick<OrtCausalLMOptions, 'maxBatchRows' | 'maxBatchTokens' | 'logProbs' | 'hiddenStates'>;
  /**
   * Which ONNX file, by Transformers.js's dtype names: fp32 onnx/model.onnx, fp16 model_fp16, q8 model_quantized,
   * int8 model_int8, uint8 model_uint8, q4 model_q4, q4f16 model_q4f16, bnb4 model_bnb4 (.onnx). @default "fp32"
   */
  dtype?: Dtype;
  /**
   * Where the LM runs (`--device`, node/model/device.ts): cpu, webgpu or cuda. Never falls back: a device that cannot start
   * is a one-line error naming what is missing. The KV cache stays in host memory on every device (see
   * pipeline/node/README.md, Devices: onnxruntime-node 1.30 aborts when a gpu-buffer output is read back). @default "cpu"
   */
  device?: Device;
  /** Where a warning goes, one line each (an int8 export this CPU scores wrongly: int8Warning). @default console.error */
  onWarning?: (line: string) => void;
  /** Whether this CPU's int8 matmuls saturate (tests pass it). @default cpu-int8.ts int8PairsSaturate() */
  int8PairsSaturate?: boolean;
  /**
   * Whether to check an int8 file's weights and warn (int8Warning). A process whose parent loaded the same file on
   * the same CPU and said it already (the annotate pool's workers) passes false: one warning per run, and no second
   * read of the weights. @default true
   */
  checkInt8Range?: boolean;
}

/**
 * @param model a model directory, or an `org/name` id in the local Hugging Face cache (HF_HOME / HF_HUB_CACHE).
 */
export async function loadModel(model: string, options: LoadModelOptions = {}): Promise<OrtCausalLM & CausalLM> {
  const device = options.device ?? 'cpu';
  assertDeviceInstalled(device); // before any file is read: a missing provider fails at once
  const { dir: root, notInCache } = await resolveModel(model);
  const dtype = options.dtype ?? 'fp32';
  const fail = await checkModelDir(root, dtype, notInCache);
  const threads = options.threads ?? 1;
  try {
    // The sequence the web worker runs too (core/lm/load-model.ts); only the source and the session options are Node's.
    const { lm } = await loadOrtModel(ort, directorySource(model, root, fail), {
      dtype,
      refuse: fail,
      sessionOptions: {
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
        // MatMul weights are pre-packed (ONNX Runtime's default). Without it every GEMM packs its weight again on every
        // forward pass. Measured in one process (score() of 16-row batches of ~110 tokens, pre-packed against not):
        // the 135M shape 0.171 against 0.183 CPU s per sequence with 794-token passes, 0.184 against 0.210 with 1,588,
        // at a load peak of 879 MiB against 675 (both copies held until the session is ready; 669 after); the bundled
        // model widened to GPT-2 small's blocks (Transpose layout) 0.123 against 0.162 and 361 MiB loaded against 467.
        // In `npm start`'s two workers without it, scoring at GPT-2 small's cost took twice the CPU per sequence of the
        // pipeline before (pipeline/bench/results/old-vs-new-start-gpt2-small*.md).
        ...(device === 'cpu' ? {} : deviceSessionOptions(device)),
      },
      lm: options.lm,
      inspect: async ({ file }, onnx) => {
        if (device !== 'cpu' || (dtype !== 'q8' && dtype !== 'int8') || options.checkInt8Range === false) return;
        const warning = await int8Warning(root, file, onnx.model, options.int8PairsSaturate ?? int8PairsSaturate());
        if (warning) (options.onWarning ?? console.error)(warning);
      },
    });
    return lm;
  } catch (error) {
    if (isRefusal(error)) throw error;
    const message = (error as Error).message.split('\n')[0];
    const deviceProblem = deviceFailure(device, message);
    if (deviceProblem) throw new Error(deviceProblem);
    return fail((await unsupportedOperator(message, root, dtype, onnxFileOf(dtype))) ?? message);
  }
}

/**
 * The model directory as core's ModelSource: JSON files read whole, and only the ONNX file's graph passes through
 * JavaScript (onnx/graph-index.ts): every large initializer becomes an external-data reference into the file itself,
 * and ONNX Runtime, told the onnx/ folder, reads the weights from the file (and a real `<file>_data`, `_data_1`, …
 * there) — one copy of the weights, in ONNX Runtime.
 */
function directorySource(id: string, root: string, fail: Fail): ModelSource {
  return {
    id,
    json: jsonReader(root, fail),
    async onnx(file) {
      const model = await graphWithoutWeights(join(root, file)).catch((error: Error) => fail(`${file}: ${error.message}`));
      return { model, sessionOptions: { extra: { session: { model_external_initializers_file_folder_path: join(root, 'onnx') } } } };
    },
  };
}

/** Why loading fails, as one line: the problem, what the directory holds, what was expected. */
type Fail = (problem: string) => never;

/** Errors `fail` made (already one line naming the directory): passed on as they are. */
const REFUSALS = new WeakSet<object>();
const isRefusal = (error: unknown): boolean => typeof error === 'object' && error !== null && REFUSALS.has(error);
function refusal(message: string): Error {
  const error = new Error(message);
  REFUSALS.add(error);
  return error;
}

/**
 * The directory exists and holds config.json, tokenizer.json and the dtype's ONNX file, or a one-line error saying
 * which are missing (and which dtypes or legacy files it has instead). Returns the directory's `fail`.
 */
async function checkModelDir(root: string, dtype: Dtype, notInCache: string | undefined): Promise<Fail> {
  const onnxFile = onnxFileOf(dtype);
  const required = ['config.json', 'tokenizer.json', onnxFile];
  const exists = (await stat(root).catch(() => null))?.isDirectory() ?? false;
  const listing = exists ? await describeDir(root) : '';
  const fail: Fail = (problem) => {
    const has = exists ? ` The directory has: ${listing}.` : '';
    throw refusal(
      `cannot load model from ${root}: ${problem.replace(/[.\s]+$/, '')}.${has} Expected a Hugging Face ONNX causal-LM directory with ` +
        `${required.join(', ')} (run \`npx tsx pipeline/onnx-export/tiny-random.ts\` for a test model, or pass --model <dir> or an org/name in the local Hugging Face cache)`,
    );
  };
  if (!exists) fail(notInCache ? `no such directory, and ${notInCache}` : 'no such directory');
  const missing = [];
  for (const file of required) if (!(await stat(join(root, file)).catch(() => null))?.isFile()) missing.push(file);
  if (missing.length > 0) {
    const dtypes = await availableDtypes(root);
    const legacy = (await readdir(join(root, 'onnx')).catch(() => [] as string[])).filter((f) => LEGACY.test(f));
    const other = !missing.includes(onnxFile)
      ? ''
      : dtypes.length > 0
        ? ` (--dtype ${dtype}; this model has --dtype ${dtypes.join(', ')})`
        : legacy.length > 0
          ? ` (it has only the legacy ${legacy.map((f) => `onnx/${f}`).join(', ')} of older exports, which this runtime does not read; ` +
            'use a revision with onnx/model.onnx, or re-export with optimum-cli export onnx --task text-generation-with-past)'
          : '';
    fail(`missing ${missing.join(', ')}${other}`);
  }
  return fail;
}

/** Reads a JSON file of the model directory; a missing optional file is undefined, any other problem fails. */
function jsonReader(root: string, fail: Fail) {
  return async (file: string, optional = false): Promise<Record<string, unknown> | undefined> => {
    let text: string;
    try {
      // A regular file under the cap (io/bounded-read.ts): a FIFO or /dev/zero named tokenizer.json is refused.
      text = readBoundedFile(join(root, file), file, READ_CAPS.modelJson).toString('utf8');
    } catch (error) {
      return optional && !existsSync(join(root, file)) ? undefined : fail((error as Error).message.replace(/ is missing$/, ' cannot be read'));
    }
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      return fail(`${file} is not valid JSON (${(error as Error).message})`);
    }
  };
}

/** A session error that names an operator the CPU runtime lacks, said so with the dtypes to try; else undefined. */
async function unsupportedOperator(message: string, root: string, dtype: Dtype, onnxFile: string): Promise<string | undefined> {
  const op = /Could not find an implementation for (\w+)|No Op registered for (\w+)|([\w.]+:\w+)\(-?\d+\) is not a registered function\/op/.exec(message);
  if (!op) return undefined;
  const dtypes = (await availableDtypes(root)).filter((d) => d !== dtype);
  return (
    `${onnxFile} uses the operator ${op[1] ?? op[2] ?? op[3]}, which onnxruntime-node ${ort.env.versions.node} cannot run on the CPU` +
    (dtypes.length ? `; try --dtype ${dtypes.join(', ')}` : '')
  );
}

/**
 * A one-line warning when the int8 file has MatMul weights beyond ±64 and this CPU's int8 matmuls saturate (or may:
 * `saturates` undefined, an x86-64 CPU not known); else undefined. Reads the int8 weights once (onnx/int8-range.ts).
 */
async function int8Warning(root: string, onnxFile: string, graph: Uint8Array, saturates: boolean | undefined): Promise<string | undefined> {
  if (saturates === false) return undefined;
  // The weights in the ONNX file itself (graph-index.ts points them back into it) and those of any other external-data
  // file: each file opened once, on its first read (an export's `_data` file holds every weight).
  const { weights, fullRange } = await withFileReads((read) =>
    int8WeightRange(decodeModel(graph), (location, offset, length) =>
      read(basename(location) === basename(onnxFile) ? join(root, onnxFile) : join(root, 'onnx', basename(location)), offset, length)));
  if (fullRange.length === 0) return undefined;
  const cpu = saturates ? 'this CPU (x86-64 without AVX-512 VNNI or AVX-VNNI)' : 'x86-64 CPUs without AVX-512 VNNI or AVX-VNNI';
  return `warning: ${onnxFile}: ${fullRange.length} of ${weights} int8 MatMul weights use the full 8-bit range (beyond ±64); on ${cpu} ` +
    `ONNX Runtime adds pairs of uint8 × int8 products in a saturating int16, so its losses can be off by nats ` +
    `(pipeline/onnx/int8-range.ts). Use --dtype fp32, fp16 or q4, or an export with 7-bit weights (reduce_range).`;
}

/** The ONNX file's graph with its weights left in the file (external-data references to it). */
function graphWithoutWeights(path: string): Promise<Uint8Array> {
  return withReads(path, async (read, size) => (await indexGraph(read, size, basename(path))).model);
}

/** `use` with positioned reads of the file at `path` and its size; the file is open only meanwhile. */
async function withReads<T>(path: string, use: (read: ReadAt, size: number) => Promise<T>): Promise<T> {
  const handle = await open(path, 'r');
  try {
    return await use(readsOf(handle), (await handle.stat()).size);
  } finally {
    await handle.close();
  }
}

/** `use` with positioned reads of any file, each opened on its first read and all closed when `use` ends. */
async function withFileReads<T>(use: (read: (path: string, offset: number, length: number) => Promise<Uint8Array>) => Promise<T>): Promise<T> {
  const handles = new Map<string, Promise<FileHandle>>();
  try {
    return await use(async (path, offset, length) => {
      let handle = handles.get(path);
      if (!handle) handles.set(path, (handle = open(path, 'r')));
      return readsOf(await handle)(offset, length);
    });
  } finally {
    await Promise.all([...handles.values()].map((h) => h.then((f) => f.close(), () => undefined)));
  }
}

/** Reads of `length` bytes at `offset` (fewer at the end of the file). */
const readsOf = (handle: FileHandle): ReadAt => async (offset, length) => {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, offset);
  return buffer.subarray(0, bytesRead);
};

/** Files of older exports that hold the decoder in another layout (with and without past in one graph). */
const LEGACY = /^decoder(_with_past)?_model(_merged)?(_\w+)?\.onnx$/;
