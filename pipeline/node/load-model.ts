/**
 * Node edge of the LM runtime: reads a Hugging Face ONNX causal-LM directory (config.json, tokenizer.json,
 * [tokenizer_config.json], onnx/model.onnx or the `dtype` variant) — a path, or an `org/name` id already in the
 * local Hugging Face cache (hf-cache.ts) — and builds an OrtCausalLM on onnxruntime-node. Offline: nothing is
 * downloaded. Every failure is one line naming the directory and what it does hold.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { CausalLM } from '../core/lm/lm.ts';
import { OrtCausalLM, type OrtCausalLMOptions } from '../core/lm/ort-lm.ts';
import { availableDtypes, describeDir, DTYPE_FILES, resolveModel, type Dtype } from './hf-cache.ts';

export interface LoadModelOptions {
  /** Intra-op threads per session. One is fastest on a busy 2-core machine (measured: two intra-op threads were slower unless spinning is off). @default 1 */
  threads?: number;
  /** Scoring batch limits and log-prob path, passed through to OrtCausalLM. */
  lm?: Pick<OrtCausalLMOptions, 'maxBatchRows' | 'maxBatchTokens' | 'logProbs'>;
  /** Which ONNX file: fp32 onnx/model.onnx, fp16 model_fp16.onnx, q8 model_quantized.onnx, q4 model_q4.onnx. @default "fp32" */
  dtype?: Dtype;
}

/** Causal-LM architectures by their Hugging Face class-name suffix. */
const CAUSAL_LM = /(ForCausalLM|LMHeadModel)$/;

/**
 * @param model a model directory, or an `org/name` id in the local Hugging Face cache (HF_HOME / HF_HUB_CACHE).
 */
export async function loadModel(model: string, options: LoadModelOptions = {}): Promise<OrtCausalLM & CausalLM> {
  const { dir: root, notInCache } = await resolveModel(model);
  const dtype = options.dtype ?? 'fp32';
  if (!(dtype in DTYPE_FILES)) throw new Error(`unknown dtype ${dtype}; expected one of ${Object.keys(DTYPE_FILES).join(', ')}`);
  const onnxFile = `onnx/${DTYPE_FILES[dtype]}`;
  const required = ['config.json', 'tokenizer.json', onnxFile];
  const exists = (await stat(root).catch(() => null))?.isDirectory() ?? false;
  const listing = exists ? await describeDir(root) : '';
  const fail = (problem: string): never => {
    const has = exists ? ` The directory has: ${listing}.` : '';
    throw new Error(
      `cannot load model from ${root}: ${problem.replace(/[.\s]+$/, '')}.${has} Expected a Hugging Face ONNX causal-LM directory with ` +
        `${required.join(', ')} (run \`npx tsx pipeline/onnx/tiny-random.ts\` for a test model, or pass --model <dir> or an org/name in the local Hugging Face cache)`,
    );
  };
  if (!exists) fail(notInCache ? `no such directory, and ${notInCache}` : 'no such directory');
  const missing = [];
  for (const file of required) if (!(await stat(join(root, file)).catch(() => null))?.isFile()) missing.push(file);
  if (missing.length > 0) {
    const dtypes = await availableDtypes(root);
    const other = missing.includes(onnxFile) && dtypes.length > 0 ? ` (--dtype ${dtype}; this model has --dtype ${dtypes.join(', ')})` : '';
    fail(`missing ${missing.join(', ')}${other}`);
  }

  const readJson = async (file: string, optional = false): Promise<Record<string, unknown> | undefined> => {
    let text: string;
    try {
      text = await readFile(join(root, file), 'utf8');
    } catch {
      return optional ? undefined : fail(`cannot read ${file}`);
    }
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      return fail(`${file} is not valid JSON (${(error as Error).message})`);
    }
  };
  const config = (await readJson('config.json'))!;
  const architectures = Array.isArray(config.architectures) ? (config.architectures as unknown[]).map(String) : [];
  if (config.is_encoder_decoder === true || (architectures.length > 0 && !architectures.some((a) => CAUSAL_LM.test(a)))) {
    fail(`config.json describes ${architectures.join(', ') || `model_type ${String(config.model_type)}`}, not a decoder-only causal LM (…ForCausalLM / …LMHeadModel)`);
  }
  const tokenizer = (await readJson('tokenizer.json'))!;
  const tokenizerConfig = await readJson('tokenizer_config.json', true);
  const bytes = await readFile(join(root, onnxFile));

  const threads = options.threads ?? 1;
  try {
    return await OrtCausalLM.create(ort, {
      id: model,
      model: bytes,
      config,
      tokenizer,
      tokenizerConfig,
      sessionOptions: {
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
      },
      ...options.lm,
    });
  } catch (error) {
    return fail((error as Error).message.split('\n')[0]);
  }
}
