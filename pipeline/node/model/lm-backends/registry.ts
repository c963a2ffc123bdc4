/**
 * The LM backends, chosen by what `--model` names — the only list of them:
 *
 *   an ONNX folder (or org/name in the local Hugging Face cache)  → onnx       (onnxruntime-node, in this process)
 *   a `.gguf` file                                              → llama.cpp  (node-llama-cpp, in this process)
 *   an `http(s)://…/v1` base URL                                → server     (an OpenAI-compatible server with prompt log-probs)
 *   `auto:<folder or .gguf>` (a model in both forms)            → onnx or llama.cpp: the one for --device, else the faster (auto.ts)
 *
 * Every backend gives the same CausalLM (core/lm/lm.ts), so the pipeline, its losses and its kept calls do not know
 * which ran. A backend lists the devices it runs on; any other `--device` is one line naming those.
 */
import { relative, resolve } from 'node:path';
import type { Device } from '../../../core/lm/devices.ts';
import type { LMBackend, LoadedLM, ModelRef, OpenLMOptions } from './types.ts';
import { AUTO_PREFIX, pickRuntime, type AutoPick, type RunsOn } from './auto.ts';

export type { LMBackend, LoadedLM, ModelOpen, ModelRef, OpenLMOptions } from './types.ts';

const serverBackend: LMBackend = {
  name: 'server',
  names: 'an http(s)://…/v1 base URL of an OpenAI-compatible server with prompt log-probs (vLLM, SGLang, `toolformer serve`)',
  claims: (model) => /^https?:\/\//i.test(model),
  // Where the model runs is the server's business; `auto` (and the commands' default cpu) mean "as served".
  devices: ['auto', 'cpu'],
  open: async (model, o) => (await import('./server/open.ts')).openServerModel(model, o),
  ref: async (model, o) => (await import('./server/open.ts')).serverModelRef(serverBackend, model, o),
};

const onnxBackend: LMBackend = {
  name: 'onnx',
  names: 'a Hugging Face ONNX causal-LM folder, or an org/name in the local Hugging Face cache',
  claims: () => true,
  devices: ['cpu', 'webgpu', 'cuda', 'auto'],
  open: async (model, o) => {
    const { loadModel } = await import('../load-model.ts');
    // auto: ONNX Runtime's CPU provider (a GPU provider is used only when asked for).
    const device = o.device === undefined || o.device === 'auto' ? 'cpu' : o.device;
    return loadModel(model, { ...o, device: device as 'cpu' | 'webgpu' | 'cuda' });
  },
  ref: async (model, o) => {
    const [{ resolveModel }, { modelDigest }, { modelFilesDigest }] = await Promise.all([import('../hf-cache.ts'), import('../../run/run-digest.ts'), import('../../run/probe-cache.ts')]);
    const resolved = await resolveModel(model);
    return {
      backend: onnxBackend,
      recorded: resolved.cache ? `${resolved.cache.id}@${resolved.cache.revision}` : relative(process.cwd(), resolve(model)) || '.',
      path: resolved.dir,
      digest: () => modelDigest(resolved.dir),
      probeDigest: () => modelFilesDigest(resolved.dir, o.dtype ?? 'fp32'),
    };
  },
};

const llamaCppBackend: LMBackend = {
  name: 'llama.cpp',
  names: 'a .gguf file (llama.cpp through node-llama-cpp, an optional dependency)',
  claims: (model) => /\.gguf$/i.test(model),
  devices: ['cpu', 'vulkan', 'cuda', 'metal', 'auto'],
  open: async (model, o) => {
    const { loadLlamaCpp } = await import('./llama-cpp.ts');
    const path = resolve(model);
    return loadLlamaCpp(path, { device: (o.device ?? 'cpu') as 'cpu' | 'vulkan' | 'cuda' | 'metal' | 'auto', threads: o.threads, id: relative(process.cwd(), path), gelu: o.llamaGelu });
  },
  ref: async (model, o) => {
    const { modelDigest, digestOf } = await import('../../run/run-digest.ts');
    const path = resolve(model);
    // The file is the model: its bytes are what every worker and the probes' cache must share; the exact-GELU build
    // computes other losses from them, so it is part of what identifies the model (the table build's digest is the file's).
    const digest = () => (o.llamaGelu === 'exact' ? digestOf({ gguf: modelDigest(path), llamaGelu: 'exact' }) : modelDigest(path));
    return { backend: llamaCppBackend, recorded: relative(process.cwd(), path), path, digest, probeDigest: digest };
  },
};

/** Whether a runtime's backend runs on a device (its `devices` list). */
const runsOn: RunsOn = (runtime, device) => (runtime === 'onnx' ? onnxBackend : llamaCppBackend).devices.includes(device);

/** auto:… resolved once per process and device; the pick is said in one line (stderr) the first time. */
const picks = new Map<string, AutoPick>();
function picked(model: string, device: Device | undefined): AutoPick {
  const key = `${device ?? ''}\u0000${model}`;
  let pick = picks.get(key);
  if (!pick) {
    pick = pickRuntime(model, device, runsOn);
    picks.set(key, pick);
    console.error(`toolformer: ${pick.line}`);
  }
  return pick;
}

const autoBackend: LMBackend = {
  name: 'auto',
  names: 'auto:<folder or .gguf>, a model in both forms (an ONNX folder and its .gguf): the runtime for --device, measured faster on the CPU',
  claims: (model) => model.startsWith(AUTO_PREFIX),
  // Any device either runtime runs on; the form picked checks it again when it opens.
  devices: [...new Set([...onnxBackend.devices, ...llamaCppBackend.devices])],
  open: async (model, o) => openLM(picked(model, o.device).path, o),
  ref: async (model, o) => modelRef(picked(model, o.device).path, o),
};

/** First match wins: the ONNX folder, which claims whatever else is named, comes last. */
export const LM_BACKENDS: readonly LMBackend[] = [autoBackend, serverBackend, llamaCppBackend, onnxBackend];

export function backendFor(model: string): LMBackend {
  return LM_BACKENDS.find((b) => b.claims(model))!;
}

/** What `--model` names, resolved on its backend (nothing is loaded). */
export function modelRef(model: string, options: OpenLMOptions = {}): Promise<ModelRef> {
  return backendFor(model).ref(model, options);
}

/** Opens what `--model` names on its backend, or fails in one line (a device the backend does not run on, …). */
export async function openLM(model: string, options: OpenLMOptions = {}): Promise<LoadedLM> {
  const backend = backendFor(model);
  if (options.llamaGelu === 'exact' && backend !== llamaCppBackend && backend !== autoBackend) {
    throw new Error(`--llama-gelu exact is for a .gguf model on llama.cpp; ${model} runs on the ${backend.name} backend`);
  }
  if (options.device !== undefined && !backend.devices.includes(options.device)) {
    throw new Error(`--device ${options.device}: the ${backend.name} backend (${model}) runs on ${backend.devices.join(', ')}; ${deviceHint(options.device)}`);
  }
  return backend.open(model, options);
}

/** Which backend a device belongs to, for the refusal (auto:… only borrows its two runtimes' devices). */
function deviceHint(device: Device): string {
  const owners = LM_BACKENDS.filter((b) => b !== autoBackend && b.devices.includes(device)).map((b) => `${b.name} (${b.names})`);
  return owners.length > 0 ? `${device} is for ${owners.join('; ')}` : `no backend here runs on ${device}`;
}
