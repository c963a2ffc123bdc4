/**
 * A deterministic small random-weight GPT-2 with a byte-level tokenizer, for tests across the project
 * (committed under models/tiny-random/). Regenerate with:
 *
 *   npx tsx pipeline/onnx/tiny-random.ts [dir]      # default: models/tiny-random
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
  const config = tinyRandomConfig(tokenizer.vocabSize);
  return exportGpt2(dir, {
    config,
    weights: randomGpt2Weights(config, 1234),
    tokenizer: tokenizer.json,
    extra: { _generated_by: 'pipeline/onnx/tiny-random.ts (random weights, seed 1234; for tests only)' },
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = resolve(process.argv[2] ?? TINY_RANDOM_DIR);
  const { modelBytes } = await writeTinyRandom(dir);
  console.log(`wrote ${join(dir, 'onnx/model.onnx')} (${modelBytes} bytes) and its config/tokenizer`);
}
