/**
 * Deterministic small random-weight Llama and Qwen2 models in the Hugging Face ONNX export layout, for tests
 * (committed under models/tiny-llama/ and models/tiny-qwen2/). Regenerate with:
 *
 *   npx tsx pipeline/onnx-export/tiny-llama.ts [models-dir]      # default: models/
 *
 * Same code → byte-identical files. Shapes follow the real models at a tiny scale:
 *   - tiny-llama: SmolLM2's shape — grouped-query attention with 3 query heads per KV head, RoPE (θ = 100000),
 *     RMSNorm, SwiGLU, tied embeddings, no biases;
 *   - tiny-qwen2: Qwen2.5's — q/k/v biases, 4 query heads per KV head, θ = 1e6, RMSNorm ε = 1e-6, tied embeddings.
 * The byte-level tokenizer is tiny-random's plus the chat special tokens. Golden numbers for both come from an
 * independent PyTorch implementation (pipeline/onnx/golden/make_goldens.py).
 */
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { buildByteTokenizer } from './byte-tokenizer.ts';
import { exportLlama } from './export-llama.ts';
import type { ExportedFiles } from './export.ts';
import { randomLlamaWeights, type LlamaConfig } from './llama-weights.ts';
import { TINY_RANDOM_MERGES } from './tiny-random.ts';

export const MODELS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../models');
export const TINY_LLAMA_DIR = join(MODELS_DIR, 'tiny-llama');
export const TINY_QWEN2_DIR = join(MODELS_DIR, 'tiny-qwen2');

const SPECIAL = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'];

export function tinyChatTokenizer() {
  return buildByteTokenizer({ merges: TINY_RANDOM_MERGES, specialTokens: SPECIAL });
}

export function tinyLlamaConfig(vocabSize: number): LlamaConfig {
  return {
    modelType: 'llama',
    vocabSize,
    hiddenSize: 48,
    intermediateSize: 128,
    numLayers: 2,
    numHeads: 6,
    numKvHeads: 2,
    headDim: 8,
    maxPositions: 256,
    rmsNormEps: 1e-5,
    ropeTheta: 100000,
    attentionBias: false,
    tieWordEmbeddings: true,
  };
}

export function tinyQwen2Config(vocabSize: number): LlamaConfig {
  return {
    modelType: 'qwen2',
    vocabSize,
    hiddenSize: 64,
    intermediateSize: 160,
    numLayers: 2,
    numHeads: 8,
    numKvHeads: 2,
    headDim: 8,
    maxPositions: 256,
    rmsNormEps: 1e-6,
    ropeTheta: 1000000,
    attentionBias: true,
    tieWordEmbeddings: true,
  };
}

/** A random-weight model in the Llama export layout with the tiny chat tokenizer; `seed` names it in config.json. */
function writeTinyLlamaLayout(dir: string, configFor: (vocabSize: number) => LlamaConfig, seed: number, eos: string): Promise<ExportedFiles> {
  const tokenizer = tinyChatTokenizer();
  const config = configFor(tokenizer.vocabSize);
  return exportLlama(dir, {
    config,
    weights: randomLlamaWeights(config, seed),
    tokenizer: tokenizer.json,
    special: { bos: '<|endoftext|>', eos, pad: '<|endoftext|>' },
    extra: { _generated_by: `pipeline/onnx/tiny-llama.ts (random weights, seed ${seed}; for tests only)` },
  });
}

export const writeTinyLlama = (dir = TINY_LLAMA_DIR) => writeTinyLlamaLayout(dir, tinyLlamaConfig, 2024, '<|endoftext|>');
export const writeTinyQwen2 = (dir = TINY_QWEN2_DIR) => writeTinyLlamaLayout(dir, tinyQwen2Config, 2025, '<|im_end|>');

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? MODELS_DIR);
  for (const [name, write] of [['tiny-llama', writeTinyLlama], ['tiny-qwen2', writeTinyQwen2]] as const) {
    const { modelBytes } = await write(join(root, name));
    console.log(`wrote ${join(root, name, 'onnx/model.onnx')} (${modelBytes} bytes) and its config/tokenizer`);
  }
}
