/**
 * The llama.cpp backend's entry: `loadLlamaCpp(path.gguf, { device, threads, … })` → a `CausalLM` over
 * node-llama-cpp 3.21.1 (an optional dependency: its prebuilt llama.cpp binaries for CPU, Vulkan, CUDA and Metal).
 * Node only.
 *
 * What it sets and why (the scores must match ONNX Runtime's within 1e-4 nats at f32):
 * - the KV cache in float32 (node-llama-cpp's default is float16, which moves log-probs by ~1e-3) and flash attention
 *   off (its CPU kernel rounds Q to float16);
 * - a context of the model's training length (GPT-2's position table has no rows past it);
 * - `sequences` sequences in one context, each keeping its own KV cache (requests and sample rows are evaluated one at
 *   a time: llama-cpp-lm.ts oneAtATime); their count and the batch size follow the machine and the model (`contextPlan`).
 */
import { LlamaCppLM, type LlamaCppModule } from './llama-cpp-lm.ts';
import { GELU_EXACT_CMAKE_OPTIONS, isExactGeluBuild, missingBuildLine, type LlamaGelu } from './llama-gelu.ts';

export type LlamaCppDevice = 'cpu' | 'vulkan' | 'cuda' | 'metal' | 'auto';
export const LLAMA_CPP_DEVICES: readonly LlamaCppDevice[] = ['cpu', 'vulkan', 'cuda', 'metal', 'auto'];

export interface LlamaCppOptions {
  /** @default 'cpu' */
  device?: LlamaCppDevice;
  /**
   * CPU threads for evaluation. @default 1 — as ONNX Runtime's here: on a shared 2-core machine two llama.cpp threads
   * spin-wait on each other (measured: score() 3× the CPU and 3× the wall time of one thread; `annotate --max-docs 2`
   * on models/default 124 CPU s with two threads, 5 with one).
   */
  threads?: number;
  /** Sequences, each with its own KV cache (requests and sample rows). @default from the KV cache size (contextPlan) */
  sequences?: number;
  /** Most tokens per llama.cpp decode call. @default from the vocabulary size (contextPlan) */
  batchSize?: number;
  /** Model id recorded in config.json. @default the path */
  id?: string;
  /** GELU through ggml-cpu's float16 table (the prebuilt binaries) or in float32 (the local exact build; llama-gelu.ts). @default 'table' */
  gelu?: LlamaGelu;
}

/** node-llama-cpp's `gpu` option for a device: false (CPU only), a backend name, or "auto". */
export function gpuOption(device: LlamaCppDevice): false | 'vulkan' | 'cuda' | 'metal' | 'auto' {
  return device === 'cpu' ? false : device;
}

/** KV cache bytes per sequence above which fewer sequences are opened (float32 cache: 2 · layers · ctx · kvDim · 4). */
const KV_BYTES_PER_CONTEXT = 256 * 2 ** 20;
/** Logit rows one decode may return: batchSize · vocab · 4 bytes kept under this. */
const LOGITS_BYTES_PER_BATCH = 64 * 2 ** 20;

/** Sequences and batch size for a model: as many sequences (≤ 8) as fit KV_BYTES_PER_CONTEXT, a batch that fits LOGITS_BYTES_PER_BATCH. */
export function contextPlan(kvBytesPerSequence: number, contextSize: number, vocabSize: number): { sequences: number; batchSize: number } {
  const sequences = Math.max(1, Math.min(8, Math.floor(KV_BYTES_PER_CONTEXT / Math.max(1, kvBytesPerSequence))));
  const batchSize = Math.max(32, Math.min(sequences * contextSize, Math.floor(LOGITS_BYTES_PER_BATCH / (4 * vocabSize))));
  return { sequences, batchSize };
}

/**
 * Why a software Vulkan driver is not found: ggml-vulkan skips CPU-type devices unless GGML_VK_VISIBLE_DEVICES
 * names them, and needs 16-bit storage, which chromium's SwiftShader lacks (Mesa's lavapipe has it).
 */
const VULKAN_HINT =
  ' (a software driver is used only with GGML_VK_VISIBLE_DEVICES=0; chromium\'s SwiftShader lacks the 16-bit storage llama.cpp needs: ' +
  'use Mesa\'s lavapipe, apt-get install mesa-vulkan-drivers, VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json)';

export async function importNodeLlamaCpp(): Promise<LlamaCppModule> {
  try {
    return (await import('node-llama-cpp')) as unknown as LlamaCppModule;
  } catch (error) {
    throw new Error(`a .gguf model needs node-llama-cpp, which did not load (${(error as Error).message.split('\n')[0]}); it is an optional dependency: npm install`);
  }
}

/** node-llama-cpp's prebuilt binaries for `device` (never a build). */
async function prebuiltLlama(lib: LlamaCppModule, device: LlamaCppDevice) {
  try {
    return await lib.getLlama({ gpu: gpuOption(device), build: 'never', logLevel: lib.LlamaLogLevel.error, progressLogs: false });
  } catch (error) {
    throw new Error(`--device ${device}: llama.cpp cannot use it here: ${(error as Error).message.split('\n')[0]}${device === 'vulkan' ? VULKAN_HINT : ''}`);
  }
}

/**
 * The exact-GELU local build, CPU only; never the prebuilt table build in its place (`usePrebuiltBinaries: false`, and
 * what loaded is checked): a missing build is one line naming the command that makes it.
 */
export async function exactGeluLlama(lib: LlamaCppModule, device: LlamaCppDevice) {
  if (device !== 'cpu') throw new Error(`--llama-gelu exact is a CPU build of llama.cpp: use --device cpu (not ${device})`);
  let llama;
  try {
    llama = await lib.getLlama({ gpu: false, build: 'never', usePrebuiltBinaries: false, cmakeOptions: { ...GELU_EXACT_CMAKE_OPTIONS }, logLevel: lib.LlamaLogLevel.error, progressLogs: false });
  } catch (error) {
    const e = error as Error;
    throw new Error(missingBuildLine(e instanceof lib.NoBinaryFoundError ? "no local build with its cmake options in node-llama-cpp's llama/localBuilds" : `node-llama-cpp: ${e.message.split('\n')[0]}`));
  }
  if (!isExactGeluBuild(llama)) {
    await llama.dispose();
    throw new Error(missingBuildLine(`node-llama-cpp loaded a ${llama.buildType} build without its cmake options`));
  }
  return llama;
}

/** Loads a GGUF model with llama.cpp; a missing device, file or package is one thrown line naming it. */
export async function loadLlamaCpp(path: string, options: LlamaCppOptions = {}): Promise<LlamaCppLM> {
  const device = options.device ?? 'cpu';
  if (!LLAMA_CPP_DEVICES.includes(device)) throw new Error(`--device ${device} is not a llama.cpp device (${LLAMA_CPP_DEVICES.join(', ')})`);
  const lib = await importNodeLlamaCpp();
  const llama = options.gelu === 'exact' ? await exactGeluLlama(lib, device) : await prebuiltLlama(lib, device);
  if (device !== 'auto' && llama.gpu !== gpuOption(device)) {
    throw new Error(`--device ${device}: llama.cpp loaded ${llama.gpu === false ? 'the CPU build' : llama.gpu} instead`);
  }
  if (device !== 'cpu' && llama.gpu !== false && (await llama.getGpuDeviceNames()).length === 0) {
    throw new Error(`--device ${device}: llama.cpp found no ${llama.gpu} device${llama.gpu === 'vulkan' ? VULKAN_HINT : ''}`);
  }
  let model;
  try {
    // On a GPU every layer is offloaded; the count is forced (a software Vulkan driver reports 0 B of VRAM and the
    // automatic count would keep everything on the CPU).
    model = await llama.loadModel({ modelPath: path, gpuLayers: device === 'cpu' ? 0 : 'max', ignoreMemorySafetyChecks: device !== 'cpu' });
  } catch (error) {
    throw new Error(`${path}: llama.cpp cannot load it (${(error as Error).message.split('\n')[0]})`);
  }
  return LlamaCppLM.create(lib, llama, model, { ...options, id: options.id ?? path, threads: options.threads ?? 1 }, contextPlan);
}
