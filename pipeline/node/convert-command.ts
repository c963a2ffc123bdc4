/**
 * `toolformer convert <model> --to gguf [--dtype f32|f16|q8_0] [--out file.gguf]`: a model folder this project
 * writes (GPT-2, Llama, Qwen2; float32 onnx/model.onnx) as one GGUF file for llama.cpp (pipeline/gguf/). The file
 * is written beside its final name and renamed when complete, so a failed conversion leaves nothing half-written.
 */
import { open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import { describeModel } from '../core/lm/model-files.ts';
import { GGUF_DTYPES, type GgufDtype } from '../gguf/gguf-tensors.ts';
import { convertToGguf } from '../gguf/onnx-to-gguf.ts';

export interface ConvertOptions {
  to: string;
  dtype?: string;
  out?: string;
}

/** The default output: out/gguf/<model folder name>-<dtype>.gguf. */
export function defaultGgufPath(model: string, dtype: GgufDtype): string {
  return resolve('out/gguf', `${basename(resolve(model))}-${dtype}.gguf`);
}

/** Converts `model` and returns the written path; a bad model, format or dtype is one thrown line naming it. */
export async function convertCommand(model: string, options: ConvertOptions): Promise<string> {
  if (options.to !== 'gguf') throw new Error(`convert: --to ${options.to} is not a format it writes (gguf)`);
  const dtype = (options.dtype ?? 'f32') as GgufDtype;
  if (!GGUF_DTYPES.includes(dtype)) throw new Error(`convert: --dtype ${options.dtype} is not one of ${GGUF_DTYPES.join(', ')}`);
  const root = resolve(model);
  const fail = (problem: string): never => {
    throw new Error(`convert ${model}: ${problem}`);
  };
  const json = async (file: string, optional = false) => {
    const text = await readFile(join(root, file), 'utf8').catch(() => (optional ? undefined : fail(`cannot read ${file}`)));
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      return fail(`${file} is not valid JSON (${(error as Error).message})`);
    }
  };
  const description = await describeModel({ json }, 'fp32', fail);
  const onnx = await readFile(join(root, description.file)).catch(() => fail(`cannot read ${description.file} (convert reads the float32 export)`));
  const out = resolve(options.out ?? defaultGgufPath(model, dtype));
  mkdirSync(dirname(out), { recursive: true });
  const partial = `${out}.partial`;
  const handle = await open(partial, 'w');
  try {
    await convertToGguf(description, onnx, dtype, basename(root), async (chunk) => {
      await handle.write(chunk);
    });
    await handle.close();
    await rename(partial, out);
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(partial, { force: true });
    throw new Error(`convert ${model}: ${(error as Error).message}`);
  }
  return out;
}
