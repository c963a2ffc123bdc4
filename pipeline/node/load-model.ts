/**
 * Node edge of the LM runtime: reads a Hugging Face ONNX causal-LM directory (config.json, tokenizer.json,
 * [tokenizer_config.json], onnx/model.onnx) and builds an OrtCausalLM on onnxruntime-node. Offline: nothing is
 * downloaded.
 */
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { CausalLM } from '../core/lm.ts';
import { OrtCausalLM, type OrtCausalLMOptions } from '../core/ort-lm.ts';

export interface LoadModelOptions {
  /** Intra-op threads per session. One is fastest on a busy 2-core machine (NOTES §2). @default 1 */
  threads?: number;
  /** Scoring batch limits and log-prob path, passed through to OrtCausalLM. */
  lm?: Pick<OrtCausalLMOptions, 'maxBatchRows' | 'maxBatchTokens' | 'logProbs'>;
}

const REQUIRED = ['config.json', 'tokenizer.json', 'onnx/model.onnx'];

export async function loadModel(dir: string, options: LoadModelOptions = {}): Promise<OrtCausalLM & CausalLM> {
  const root = resolve(dir);
  const fail = (problem: string): never => {
    throw new Error(
      `cannot load model from ${root}: ${problem.replace(/[.\s]+$/, '')}. Expected a Hugging Face ONNX causal-LM directory with ` +
        `${REQUIRED.join(', ')} (run \`npx tsx pipeline/onnx/tiny-random.ts\` for a test model, or pass --model <dir>)`,
    );
  };
  if (!(await stat(root).catch(() => null))?.isDirectory()) fail('no such directory');
  const missing = [];
  for (const file of REQUIRED) if (!(await stat(join(root, file)).catch(() => null))?.isFile()) missing.push(file);
  if (missing.length > 0) fail(`missing ${missing.join(', ')}`);

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
  const tokenizer = (await readJson('tokenizer.json'))!;
  const tokenizerConfig = await readJson('tokenizer_config.json', true);
  const model = await readFile(join(root, 'onnx/model.onnx'));

  const threads = options.threads ?? 1;
  try {
    return await OrtCausalLM.create(ort, {
      id: dir,
      model,
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
