/**
 * `--model auto:<model>`: a model that exists in both forms — an ONNX folder and a GGUF file of the same weights
 * (what `toolformer convert <folder> --to gguf` writes) — opened on the runtime that scored it faster here.
 *
 * The pair: for a folder F, the GGUF file beside it (F.gguf) or the one .gguf inside it; for a file X.gguf, the
 * folder X beside it or the folder holding it. Two GGUF files inside one folder are ambiguous: refused in one line.
 * With one form only, that form runs (and the line says so).
 *
 * Which runtime: FASTER_RUNTIME, from the committed measurement (pipeline/bench/results/backends.json, `npm run
 * bench:backends`: the scorer's CPU seconds, losses + p_i, of ONNX Runtime and of llama.cpp at each of f32, f16 and
 * q8_0, on the same weights, at the bundled model and at SmolLM2-135M's shape). auto.test.ts fails if that file stops
 * agreeing with it, so the choice cannot drift from what was measured.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';

export const AUTO_PREFIX = 'auto:';

/** The runtime that ran the scorer faster at every measured shape (pipeline/bench/results/backends.json). */
export const FASTER_RUNTIME: 'onnx' | 'llama.cpp' = 'onnx';

export interface AutoPick {
  /** The folder or file that runs. */
  path: string;
  runtime: 'onnx' | 'llama.cpp';
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

/** Which form of `model` (auto:… or the bare path) runs, and the line saying so. */
export function pickRuntime(model: string): AutoPick {
  const target = model.startsWith(AUTO_PREFIX) ? model.slice(AUTO_PREFIX.length) : model;
  const { onnx, gguf } = findForms(target);
  const shown = (p: string) => relative(process.cwd(), p) || '.';
  const why = 'ONNX Runtime scored faster than llama.cpp (f32, f16 and q8_0) at every measured shape (pipeline/bench/results/backends.md)';
  const whyNot = 'llama.cpp scored faster than ONNX Runtime at every measured shape (pipeline/bench/results/backends.md)';
  if (onnx && gguf) {
    const runtime = FASTER_RUNTIME;
    const path = runtime === 'onnx' ? onnx : gguf;
    return { path, runtime, line: `--model auto: ${runtime} on ${shown(path)} (the model is also ${shown(runtime === 'onnx' ? gguf : onnx)}): ${runtime === 'onnx' ? why : whyNot}` };
  }
  if (onnx) return { path: onnx, runtime: 'onnx', line: `--model auto: onnx on ${shown(onnx)} (no .gguf beside or inside it)` };
  if (gguf) return { path: gguf, runtime: 'llama.cpp', line: `--model auto: llama.cpp on ${shown(gguf)} (no ONNX folder beside it)` };
  throw new Error(`--model auto:${target}: neither an ONNX folder nor a .gguf file is there`);
}
