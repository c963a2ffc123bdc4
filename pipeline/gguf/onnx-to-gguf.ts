/**
 * A model folder this project writes (GPT-2, Llama or Qwen2 in the Hugging Face ONNX layout, float32 weights in
 * onnx/model.onnx) as one GGUF file for llama.cpp: the architecture's metadata and tensors (gguf-layouts.ts), the
 * tokenizer inside (gguf-tokenizer.ts), each matrix stored as the chosen dtype (gguf-tensors.ts). Isomorphic: the
 * caller passes the folder's parsed JSON files and the ONNX bytes, and writes the chunks.
 */
import type { ModelDescription } from '../core/lm/model-files.ts';
import { readGpt2Onnx, readLlamaOnnx } from '../onnx-export/onnx-weights.ts';
import { generalMetadata, gpt2Layout, llamaLayout, type GgufLayout } from './gguf-layouts.ts';
import { FILE_TYPE, storedType, type GgufDtype } from './gguf-tensors.ts';
import { specialIds, tokenizerMetadata } from './gguf-tokenizer.ts';
import { writeGguf, type GgufTensor, type GgufValue } from './gguf-writer.ts';

export type ModelJson = Pick<ModelDescription, 'config' | 'tokenizer' | 'tokenizerConfig' | 'generationConfig'>;

/** The GGUF layout of a model folder's config.json and ONNX weights; an architecture it does not write is refused. */
export function layoutOf(model: ModelJson, onnx: Uint8Array): GgufLayout {
  const type = model.config.model_type;
  if (type === 'gpt2') {
    const { config, weights } = readGpt2Onnx(onnx, model.config);
    return gpt2Layout(config, weights);
  }
  if (type === 'llama' || type === 'qwen2') {
    const { config, weights } = readLlamaOnnx(onnx, model.config);
    return llamaLayout(config, weights);
  }
  throw new Error(`config.json: model_type ${JSON.stringify(type)}; convert --to gguf writes gpt2, llama and qwen2`);
}

/** Metadata and tensors of the GGUF file for `model` at `dtype`. */
export function ggufOf(model: ModelJson, onnx: Uint8Array, dtype: GgufDtype, name: string): { metadata: Map<string, GgufValue>; tensors: GgufTensor[] } {
  const layout = layoutOf(model, onnx);
  const special = specialIds(model.tokenizer, model.config, model.tokenizerConfig, model.generationConfig);
  const metadata = new Map<string, GgufValue>([
    ...generalMetadata(layout.architecture, name, FILE_TYPE[dtype]),
    ...layout.metadata,
    ...tokenizerMetadata(model.tokenizer, layout.vocabSize, special),
  ]);
  const tensors = layout.tensors.map((t) => ({ ...t, type: storedType(dtype, t.name, t.dims) }));
  return { metadata, tensors };
}

/** Converts and writes the file through `write` (chunks in order). */
export async function convertToGguf(model: ModelJson, onnx: Uint8Array, dtype: GgufDtype, name: string, write: (chunk: Uint8Array) => Promise<void>): Promise<void> {
  const { metadata, tensors } = ggufOf(model, onnx, dtype, name);
  await writeGguf(metadata, tensors, write);
}
