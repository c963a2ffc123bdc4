import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeModel, type ModelJsonFiles } from './model-files.ts';

/** A model folder as JSON files in memory (the worker's and the CLI's readers both come down to this). */
function folder(files: Record<string, Record<string, unknown>>): ModelJsonFiles {
  return {
    json: async (path, optional = false) => {
      if (path in files) return files[path];
      if (optional) return undefined;
      throw new Error(`missing ${path}`);
    },
  };
}
const QWEN2 = join(import.meta.dirname, '../../../models/tiny-qwen2');
const read = (file: string) => JSON.parse(readFileSync(join(QWEN2, file), 'utf8')) as Record<string, unknown>;
const qwen2 = () => ({ 'config.json': read('config.json'), 'tokenizer.json': read('tokenizer.json'), 'generation_config.json': read('generation_config.json') });

describe('describeModel (the loader checks the CLI and the web worker share)', () => {
  it('names the dtype’s ONNX file and its announced external data, and reads generation_config.json', async () => {
    const files = qwen2();
    const m = await describeModel(folder(files), 'q4f16');
    expect(m.file).toBe('onnx/model_q4f16.onnx');
    expect(m.generationConfig?.eos_token_id).toBe(265);
    expect(m.tokenizerConfig).toBeUndefined();
    files['config.json'] = { ...files['config.json'], 'transformers.js_config': { use_external_data_format: { 'model_q4f16.onnx': 2 } } };
    expect((await describeModel(folder(files), 'q4f16')).externalData).toEqual(['onnx/model_q4f16.onnx_data', 'onnx/model_q4f16.onnx_data_1']);
  });

  it('refuses an unknown dtype and a model that is not a decoder-only causal LM, in one line', async () => {
    await expect(describeModel(folder(qwen2()), 'fp8')).rejects.toThrow(/^unknown dtype fp8; expected one of fp32, /);
    const t5 = { ...qwen2(), 'config.json': { architectures: ['T5ForConditionalGeneration'], is_encoder_decoder: true } };
    await expect(describeModel(folder(t5))).rejects.toThrow('config.json describes T5ForConditionalGeneration, not a decoder-only causal LM');
  });
});
