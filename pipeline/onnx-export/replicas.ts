/**
 * Replicas of the published Hugging Face ONNX exports, made from a small fp32 model with this project's own ONNX
 * writers, in the layout the repositories use (file names as Transformers.js v4 `utils/dtypes.js`
 * DEFAULT_DTYPE_SUFFIX_MAPPING names them):
 *
 *   onnx/model.onnx           fp32
 *   onnx/model_fp16.onnx      fp16: float16 weights, KV cache and logits (float16.ts)
 *   onnx/model_quantized.onnx q8: dynamic int8, per column (quantize.ts)
 *   onnx/model_int8.onnx      int8: quantize_dynamic QInt8, per tensor
 *   onnx/model_uint8.onnx     uint8: quantize_dynamic QUInt8, per tensor
 *   onnx/model_q4.onnx        q4: MatMulNBits, float32 activations (matmul-nbits.ts)
 *   onnx/model_q4f16.onnx     q4f16: MatMulNBits with float16 activations and KV cache
 *   onnx/model_bnb4.onnx      bnb4: MatMulBnb4 NF4 (bnb4.ts)
 *
 * plus, on request, external data (`<file>_data` next to each file, `use_external_data_format` in config.json as
 * Transformers.js reads it) and a `num_logits_to_keep` input. config.json's `transformers.js_config.kv_cache_dtype`
 * says float16 for the float16 files, as SmolLM2-135M-Instruct's does. These are the tests' models: small, made at
 * test (or bench) time, never committed.
 *
 *   npx tsx pipeline/onnx-export/replicas.ts <out-dir> [dtypes] [--external-data] [--num-logits-to-keep] [--from <model-dir>]
 */
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DTYPE_FILES, type Dtype } from '../onnx/dtype-files.ts';
import { quantizeBnb4 } from './bnb4.ts';
import { toExternalData } from '../onnx/external-data.ts';
import { convertToFloat16 } from './float16.ts';
import { addNumLogitsToKeep } from '../onnx/logits-to-keep.ts';
import { quantizeMatMulNBits } from './matmul-nbits.ts';
import { quantizeDynamic } from './quantize.ts';
import { TINY_LLAMA_DIR } from './tiny-llama.ts';

/** dtype → the writer that makes its file from the fp32 model. */
export const VARIANT_WRITERS: Record<Dtype, (fp32: Uint8Array) => Uint8Array> = {
  fp32: (m) => m,
  fp16: convertToFloat16,
  q8: (m) => quantizeDynamic(m, 'q8'),
  int8: (m) => quantizeDynamic(m, 'int8'),
  uint8: (m) => quantizeDynamic(m, 'uint8'),
  q4: (m) => quantizeMatMulNBits(m),
  q4f16: (m) => quantizeMatMulNBits(m, { float16: true }),
  bnb4: (m) => quantizeBnb4(m),
};

/** The dtypes whose files keep a float16 KV cache and float16 logits. */
export const FLOAT16_CACHE: readonly Dtype[] = ['fp16', 'q4f16'];

export interface ReplicaOptions {
  /** Which files to write. @default every dtype */
  dtypes?: readonly Dtype[];
  /** Store each file's weights as external data (`model*.onnx_data`). @default false */
  externalData?: boolean;
  /** Give every file a `num_logits_to_keep` input. @default false */
  numLogitsToKeep?: boolean;
  /** The fp32 model directory the replicas are made from. @default models/tiny-llama */
  from?: string;
}

/** Writes the replica directory; returns the files written under onnx/ with their sizes in bytes. */
export async function writeReplicas(dir: string, options: ReplicaOptions = {}): Promise<Record<string, number>> {
  const from = options.from ?? TINY_LLAMA_DIR;
  const dtypes = options.dtypes ?? (Object.keys(VARIANT_WRITERS) as Dtype[]);
  let fp32: Uint8Array = await readFile(join(from, 'onnx/model.onnx'));
  if (options.numLogitsToKeep) fp32 = addNumLogitsToKeep(fp32);
  await mkdir(join(dir, 'onnx'), { recursive: true });
  for (const file of ['tokenizer.json', 'tokenizer_config.json', 'generation_config.json']) {
    await copyFile(join(from, file), join(dir, file)).catch(() => undefined);
  }
  const sizes: Record<string, number> = {};
  const external: Record<string, number> = {};
  for (const dtype of dtypes) {
    const file = DTYPE_FILES[dtype];
    const model = VARIANT_WRITERS[dtype](fp32);
    if (options.externalData) {
      const split = toExternalData(model, `${file}_data`);
      await writeFile(join(dir, 'onnx', file), split.model);
      await writeFile(join(dir, 'onnx', split.location), split.data);
      sizes[file] = split.model.length;
      sizes[split.location] = split.data.length;
      external[file] = 1;
    } else {
      await writeFile(join(dir, 'onnx', file), model);
      sizes[file] = model.length;
    }
  }
  const config = JSON.parse(await readFile(join(from, 'config.json'), 'utf8')) as Record<string, unknown>;
  const only = dtypes.length === 1 ? dtypes[0] : undefined;
  config['transformers.js_config'] = {
    ...(config['transformers.js_config'] as object),
    ...(only ? { dtype: only } : {}),
    ...(only && FLOAT16_CACHE.includes(only) ? { kv_cache_dtype: { [only]: 'float16' } } : {}),
    ...(options.externalData ? { use_external_data_format: external } : {}),
  };
  config._generated_by = `pipeline/onnx/replicas.ts from ${from} (${dtypes.join(', ')}${options.externalData ? ', external data' : ''}${options.numLogitsToKeep ? ', num_logits_to_keep' : ''}; for tests only)`;
  await writeFile(join(dir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
  return sizes;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const dir = args.find((a) => !a.startsWith('--'));
  if (!dir) throw new Error('usage: npx tsx pipeline/onnx-export/replicas.ts <out-dir> [fp16,q4f16,…] [--external-data] [--num-logits-to-keep] [--from <dir>]');
  const list = args.filter((a) => !a.startsWith('--') && a !== dir && a !== args[args.indexOf('--from') + 1])[0];
  const fromAt = args.indexOf('--from');
  const sizes = await writeReplicas(resolve(dir), {
    dtypes: list ? (list.split(',') as Dtype[]) : undefined,
    externalData: args.includes('--external-data'),
    numLogitsToKeep: args.includes('--num-logits-to-keep'),
    from: fromAt >= 0 ? resolve(args[fromAt + 1]) : undefined,
  });
  for (const [file, bytes] of Object.entries(sizes)) console.log(`wrote ${join(dir, 'onnx', file)} (${bytes} bytes)`);
}
