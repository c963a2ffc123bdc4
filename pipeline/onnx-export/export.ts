/**
 * Writes a GPT-2 model in the Hugging Face ONNX layout that Transformers.js and `loadModel` read offline:
 *
 *   <dir>/config.json            model_type "gpt2", n_* fields, special ids, "transformers.js_config": {dtype: fp32}
 *   <dir>/generation_config.json special ids
 *   <dir>/tokenizer.json         as given
 *   <dir>/tokenizer_config.json  GPT2Tokenizer, bos/eos/pad/unk token strings
 *   <dir>/onnx/model.onnx        buildGpt2Onnx(config, weights)
 *
 * Node only (writes files).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildGpt2Onnx } from './gpt2-graph.ts';
import type { Gpt2Config, Gpt2Weights } from './gpt2-weights.ts';

export interface ExportGpt2Options {
  config: Gpt2Config;
  weights: Gpt2Weights;
  /** A `tokenizer.json` object (see byte-tokenizer.ts). Its `added_tokens` must hold the end-of-text token. */
  tokenizer: Record<string, unknown>;
  /** The special token used as bos, eos, pad and unk. @default "<|endoftext|>" */
  endOfText?: string;
  /** Extra fields merged into config.json (e.g. training provenance). */
  extra?: Record<string, unknown>;
}

export interface ExportedFiles {
  dir: string;
  /** Bytes of onnx/model.onnx. */
  modelBytes: number;
}

export async function exportGpt2(dir: string, options: ExportGpt2Options): Promise<ExportedFiles> {
  const { config, weights, tokenizer, extra } = options;
  const endOfText = options.endOfText ?? '<|endoftext|>';
  const added = (tokenizer.added_tokens ?? []) as { id: number; content: string }[];
  const eos = added.find((t) => t.content === endOfText);
  if (!eos) throw new Error(`exportGpt2: tokenizer.added_tokens has no "${endOfText}" token`);
  if (eos.id >= config.vocabSize) {
    throw new Error(`exportGpt2: "${endOfText}" has id ${eos.id}, outside vocabSize ${config.vocabSize}`);
  }

  const model = buildGpt2Onnx(config, weights);
  const configJson = {
    architectures: ['GPT2LMHeadModel'],
    model_type: 'gpt2',
    vocab_size: config.vocabSize,
    n_positions: config.nPositions,
    n_ctx: config.nPositions,
    n_embd: config.nEmbd,
    n_layer: config.nLayer,
    n_head: config.nHead,
    n_inner: null,
    activation_function: 'gelu_new',
    layer_norm_epsilon: config.layerNormEpsilon,
    bos_token_id: eos.id,
    eos_token_id: eos.id,
    pad_token_id: eos.id,
    tie_word_embeddings: true,
    use_cache: true,
    'transformers.js_config': { dtype: 'fp32' },
    ...extra,
  };
  const tokenizerConfig = {
    tokenizer_class: 'GPT2Tokenizer',
    add_bos_token: false,
    add_prefix_space: false,
    bos_token: endOfText,
    eos_token: endOfText,
    pad_token: endOfText,
    unk_token: endOfText,
    model_max_length: config.nPositions,
    // Decoding must give back the exact text (no " ." → "." clean-up): stop strings and offsets depend on it.
    clean_up_tokenization_spaces: false,
  };
  const generationConfig = { bos_token_id: eos.id, eos_token_id: eos.id, pad_token_id: eos.id };

  await writeModelDir(dir, { config: configJson, generationConfig, tokenizer, tokenizerConfig, model });
  return { dir, modelBytes: model.length };
}

/** The files of a Hugging Face ONNX model directory, written as the repositories lay them out. */
export async function writeModelDir(
  dir: string,
  files: {
    config: Record<string, unknown>;
    generationConfig: Record<string, unknown>;
    tokenizer: Record<string, unknown>;
    tokenizerConfig: Record<string, unknown>;
    model: Uint8Array;
  },
): Promise<void> {
  await mkdir(join(dir, 'onnx'), { recursive: true });
  const json = (value: unknown) => JSON.stringify(value, null, 2) + '\n';
  await writeFile(join(dir, 'config.json'), json(files.config));
  await writeFile(join(dir, 'generation_config.json'), json(files.generationConfig));
  await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(files.tokenizer) + '\n');
  await writeFile(join(dir, 'tokenizer_config.json'), json(files.tokenizerConfig));
  await writeFile(join(dir, 'onnx', 'model.onnx'), files.model);
}
