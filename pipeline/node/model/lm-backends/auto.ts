/**
 * `--model auto:<model>`: a model that exists in both forms — an ONNX folder and a GGUF file of the same weights
 * (what `toolformer convert <folder> --to gguf` writes) — opened on the runtime that scored it faster here.
 *
 * The pair: for a folder F, the GGUF file beside it (F.gguf) or the one .gguf inside it; for a file X.gguf, the
 * folder X beside it or the folder holding it. Two GGUF files inside one folder are ambiguous: refused in one line.
 * With one form only, that form runs (and the line says so).
 *
 * Which runtime:
 * - `--device` one runtime runs on only (vulkan, metal: llama.cpp; webgpu: ONNX Runtime): that one.
 * - a GPU both run on (cuda): llama.cpp — its npm packages carry the CUDA binaries, while ONNX Runtime's CUDA provider
 *   is a separate download this project's install denies (pipeline/node/README.md).
 * - the CPU (no --device, cpu or auto): FASTER_RUNTIME, from the committed measurement (pipeline/bench/results/
 *   backends.json, `npm run bench:backends`: the scorer's CPU seconds, losses + p_i, of ONNX Runtime and of llama.cpp
 *   at each of f32, f16 and q8_0, on the same weights, at the bundled model and at SmolLM2-135M's shape). auto.test.ts
 *   fails if that file stops agreeing with it, so the choice cannot drift from what was measured.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { Device } from '../../../core/lm/devices.ts';

export const AUTO_PREFIX = 'auto:';

export type Runtime = 'onnx' | 'llama.cpp';

/** The runtime that ran the scorer faster on the CPU at every measured shape (pipeline/bench/results/backends.json). */
export const FASTER_RUNTIME: Runtime = 'onnx';

/** On a GPU both runtimes run on: llama.cpp, whose npm packages carry the GPU binaries (see the header). */
const ON_A_SHARED_GPU: Runtime = 'llama.cpp';

/** Whether `runtime` runs on `device` (the registry passes its backends' device lists). */
export type RunsOn = (runtime: Runtime, device: Device) => boolean;

export interface AutoPick {
  /** The folder or file that runs. */
  path: string;
  runtime: Runtime;
  /** The one line that says which, and why. */
  line: string;
}

const isOnnxFolder = (p: string) => existsSync(join(p, 'config.json')) && existsSync(join(p, 'onnx'));
const isFile = (p: string) => existsSync(p) && statSync(p).isFile();

/** The ONNX folder and the GGUF file of `target` (either may be absent); more than one GGUF in the folder throws. */
export function findForms(target: string): { onnx?: string; gguf?: string } {
  const path = resolve(target.replace(/[/\\]+$/, ''));
  if (/\.gguf$/i.test(path)) {
    const beside = path.slice(0, -'.gguf'.length);
    const onnx = [beside, dirname(path)].find(isOnnxFolder);
    return { onnx, gguf: isFile(path) ? path : undefined };
  }
  if (!existsSync(path) || !statSync(path).isDirectory()) return {};
  const inside = readdirSync(path).filter((f) => /\.gguf$/i.test(f)).map((f) => join(path, f));
  if (inside.length > 1) throw new Error(`--model auto:${target}: ${inside.length} .gguf files in the folder (${inside.map((f) => basename(f)).join(', ')}); name one`);
  const gguf = isFile(`${path}.gguf`) ? `${path}.gguf` : inside[0];
  return { onnx: isOnnxFolder(path) ? path : undefined, gguf };
}

/** Which form of `model` (auto:… or the bare path) runs on `device`, and the line saying so. */
export function pickRuntime(model: string, device?: Device, runsOn: RunsOn = () => true): AutoPick {
  const target = model.startsWith(AUTO_PREFIX) ? model.slice(AUTO_PREFIX.length) : model;
  const { onnx, gguf } = findForms(target);
  const shown = (p: string) => relative(process.cwd(), p) || '.';
  if (onnx && gguf) {
    const { runtime, why } = chooseRuntime(target, device, runsOn);
    const path = runtime === 'onnx' ? onnx : gguf;
    return { path, runtime, line: `--model auto: ${runtime} on ${shown(path)} (the model is also ${shown(runtime === 'onnx' ? gguf : onnx)}): ${why}` };
  }
  if (onnx) return { path: onnx, runtime: 'onnx', line: `--model auto: onnx on ${shown(onnx)} (no .gguf beside or inside it)` };
  if (gguf) return { path: gguf, runtime: 'llama.cpp', line: `--model auto: llama.cpp on ${shown(gguf)} (no ONNX folder beside it)` };
  throw new Error(`--model auto:${target}: neither an ONNX folder nor a .gguf file is there`);
}

/** The runtime for a model in both forms on `device` (the rules in the header), and why, for the line. */
function chooseRuntime(target: string, device: Device | undefined, runsOn: RunsOn): { runtime: Runtime; why: string } {
  const onCpu = device === undefined || device === 'cpu' || device === 'auto';
  if (onCpu) {
    const faster = FASTER_RUNTIME === 'onnx' ? ['ONNX Runtime', 'llama.cpp (f32, f16 and q8_0)'] : ['llama.cpp', 'ONNX Runtime'];
    return { runtime: FASTER_RUNTIME, why: `${faster[0]} scored faster than ${faster[1]} at every measured shape (pipeline/bench/results/backends.md)` };
  }
  const able = (['onnx', 'llama.cpp'] as const).filter((r) => runsOn(r, device));
  if (able.length === 0) throw new Error(`--model auto:${target} --device ${device}: neither ONNX Runtime nor llama.cpp runs on ${device}`);
  if (able.length === 1) return { runtime: able[0], why: `--device ${device} runs on ${able[0]} only` };
  return { runtime: ON_A_SHARED_GPU, why: `both run on ${device}; llama.cpp's npm packages carry its GPU binaries, ONNX Runtime's ${device} provider is a separate download` };
}
