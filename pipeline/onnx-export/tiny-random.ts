/**
 * A deterministic small random-weight GPT-2 with a byte-level tokenizer, for tests across the project
 * (committed under models/tiny-random/). Regenerate with:
 *
 *   npx tsx pipeline/onnx-export/tiny-random.ts [dir]      # default: models/tiny-random
 *
 * Same code → byte-identical files. The weights are random, so its text is noise; what it guarantees is the
 * interface: " [", "]" and "->" are single tokens, "<|endoftext|>" is bos/eos/pad.
 */
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { buildByteTokenizer } from './byte-tokenizer.ts';
import { exportGpt2, type ExportedFiles } from './export.ts';
import { randomGpt2Weights, type Gpt2Config } from './gpt2-weights.ts';

export const TINY_RANDOM_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../models/tiny-random');

/** Merges in byte-unicode form ("Ġ" is a space). */
export const TINY_RANDOM_MERGES: [string, string][] = [
  ['Ġ', '['], // " ["
  ['-', '>'], // "->"
  ['Ġ', 't'],
  ['h', 'e'],
  ['Ġt', 'he'], // " the"
  ['Ġ', 'a'],
  ['i', 'n'],
];

export function tinyRandomTokenizer() {
  return buildByteTokenizer({ merges: TINY_RANDOM_MERGES, specialTokens: ['<|endoftext|>'] });
}

export function tinyRandomConfig(vocabSize: number): Gpt2Config {
  return { vocabSize, nPositions: 256, nEmbd: 32, nLayer: 2, nHead: 4, layerNormEpsilon: 1e-5 };
}

export async function writeTinyRandom(dir = TINY_RANDOM_DIR): Promise<ExportedFiles> {
  const tokenizer = tinyRandomTokenizer();
  return writeRandomGpt2(dir, tinyRandomConfig(tokenizer.vocabSize), tokenizer.json, { seed: 1234, writer: 'pipeline/onnx/tiny-random.ts', use: 'tests' });
}

/**
 * A random-weight GPT-2 (`seed`) in the export layout with `tokenizer`; config.json's _generated_by names the
 * `writer`, the seed and what the model is for (`use`: "tests", "benchmarks").
 */
export function writeRandomGpt2(dir: string, config: Gpt2Config, tokenizer: Record<string, unknown>, o: { seed: number; writer: string; use: string }): Promise<ExportedFiles> {
  return exportGpt2(dir, {
    config,
    weights: randomGpt2Weights(config, o.seed),
    tokenizer,
    extra: { _generated_by: `${o.writer} (random weights, seed ${o.seed}; for ${o.use} only)` },
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = resolve(process.argv[2] ?? TINY_RANDOM_DIR);
  const { modelBytes } = await writeTinyRandom(dir);
  console.log(`wrote ${join(dir, 'onnx/model.onnx')} (${modelBytes} bytes) and its config/tokenizer`);
}
