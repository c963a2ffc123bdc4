/**
 * `toolformer convert <model> --to gguf [--dtype f32|f16|q8_0] [--out file.gguf]`: a model folder this project
 * writes (GPT-2, Llama, Qwen2; float32 onnx/model.onnx) as one GGUF file for llama.cpp (pipeline/gguf/). The file
 * is written beside its final name and renamed when complete, so a failed conversion leaves nothing half-written.
 */
import { open, rename, rm } from 'node:fs/promises';
import { READ_CAPS, readBoundedFile } from '../../io/bounded-read.ts';
import { basename, dirname, join, resolve } from 'node:path';
import { existsSync, mkdirSync } from 'node:fs';
import { describeModel } from '../../core/lm/model-files.ts';
import { GGUF_DTYPES, type GgufDtype } from '../../gguf/gguf-tensors.ts';
import { convertToGguf } from '../../gguf/onnx-to-gguf.ts';

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
    // io/bounded-read.ts: a FIFO or /dev/zero named config.json is refused, not waited on or read for ever.
    if (optional && !existsSync(join(root, file))) return undefined;
    let text: string;
    try {
      text = readBoundedFile(join(root, file), file, READ_CAPS.modelJson).toString('utf8');
    } catch (error) {
      return fail(`cannot read ${file} (${(error as Error).message})`);
    }
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      return fail(`${file} is not valid JSON (${(error as Error).message})`);
    }
  };
  const description = await describeModel({ json }, 'fp32', fail);
  const onnx = readOnnx(join(root, description.file), description.file, fail);
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

/** The float32 ONNX export through io/bounded-read.ts (a regular file under protobuf's 2 GiB), or `fail`. */
function readOnnx(path: string, file: string, fail: (problem: string) => never): Uint8Array {
  try {
    return readBoundedFile(path, file, READ_CAPS.onnx);
  } catch (error) {
    return fail(`cannot read ${file} (convert reads the float32 export): ${(error as Error).message}`);
  }
}
