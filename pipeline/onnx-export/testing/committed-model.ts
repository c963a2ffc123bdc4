/**
 * The committed test models (models/tiny-random, models/tiny-llama, models/tiny-qwen2) are what their writers make,
 * byte for byte (a test writes the model again into a temporary folder and compares every file), and load in
 * Transformers.js offline.
 */
import { AutoModelForCausalLM, AutoTokenizer, env } from '@huggingface/transformers';
import { expect } from 'vitest';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The files of a committed test model's folder. */
export const MODEL_FILES = ['config.json', 'generation_config.json', 'onnx/model.onnx', 'tokenizer.json', 'tokenizer_config.json'];

/** Writes the model with `write` into a fresh temporary folder: each of MODEL_FILES equals `committed`'s, and nothing else is written. */
export async function expectWrittenAsCommitted(write: (dir: string) => Promise<unknown>, committed: string, name: string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), `${name}-`));
  try {
    await write(dir);
    for (const file of MODEL_FILES) {
      const [fresh, kept] = await Promise.all([readFile(join(dir, file)), readFile(join(committed, file))]);
      expect(fresh.equals(kept), file).toBe(true);
    }
    expect((await readdir(dir)).sort()).toEqual(['config.json', 'generation_config.json', 'onnx', 'tokenizer.json', 'tokenizer_config.json']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Bytes of the committed model's MODEL_FILES, all together. */
export async function committedBytes(committed: string): Promise<number> {
  const sizes = await Promise.all(MODEL_FILES.map(async (f) => (await readFile(join(committed, f))).length));
  return sizes.reduce((a, b) => a + b, 0);
}

/**
 * The model folder loaded by Transformers.js offline, after two checks of its tokenizer: the call syntax's " [",
 * "]" and "->" are single tokens, and `text` decodes back to itself.
 */
export async function loadOffline(dir: string, text: string) {
  env.allowRemoteModels = false;
  const tokenizer = await AutoTokenizer.from_pretrained(dir);
  const model = await AutoModelForCausalLM.from_pretrained(dir);
  for (const piece of [' [', ']', '->']) expect(tokenizer.encode(piece, { add_special_tokens: false })).toHaveLength(1);
  expect(tokenizer.decode(tokenizer.encode(text, { add_special_tokens: false }))).toBe(text);
  return { tokenizer, model };
}
