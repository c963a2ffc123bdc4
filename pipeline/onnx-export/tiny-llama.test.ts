import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { Tensor } from '@huggingface/transformers';
import { loadModel } from '../node/model/load-model.ts';
import { committedBytes, expectWrittenAsCommitted, loadOffline } from './testing/committed-model.ts';
import { TINY_LLAMA_DIR, TINY_QWEN2_DIR, writeTinyLlama, writeTinyQwen2 } from './tiny-llama.ts';

describe.each([
  ['tiny-llama', TINY_LLAMA_DIR, writeTinyLlama, { kvHeads: 2, headDim: 8, eos: 263 }],
  ['tiny-qwen2', TINY_QWEN2_DIR, writeTinyQwen2, { kvHeads: 2, headDim: 8, eos: 265 }],
] as const)('models/%s', (name, DIR, write, expected) => {
  it(`is exactly what pipeline/onnx-export/tiny-llama.ts generates (run it after changing the exporter)`, async () => {
    await expectWrittenAsCommitted(write, DIR, name);
  });

  it('stays under 1 MB', async () => {
    expect(await committedBytes(DIR)).toBeLessThan(1_000_000);
  });

  it('has the export layout: inputs, outputs and cache shapes as the Hugging Face ONNX repositories name them', async () => {
    const session = await ort.InferenceSession.create(join(DIR, 'onnx/model.onnx'));
    const names = ['input_ids', 'attention_mask', 'position_ids', 'past_key_values.0.key', 'past_key_values.0.value', 'past_key_values.1.key', 'past_key_values.1.value'];
    expect(session.inputNames).toEqual(names);
    expect(session.outputNames).toEqual(['logits', 'present.0.key', 'present.0.value', 'present.1.key', 'present.1.value']);
    const meta = session.inputMetadata.find((m) => m.name === 'past_key_values.0.key');
    expect(meta && 'shape' in meta ? meta.shape : null).toEqual(['batch_size', expected.kvHeads, 'past_sequence_length', expected.headDim]);
    await session.release();
  });

  it('loads in the scorer with the in-graph log-prob head', async () => {
    const lm = await loadModel(DIR);
    expect(lm.spec).toMatchObject({ numLayers: 2, numKvHeads: expected.kvHeads, headDim: expected.headDim, eosTokenIds: [expected.eos] });
    expect(Reflect.get(lm, 'scorer')).not.toBeNull(); // the scoring-graph rewrite accepted this graph
    await lm.release();
  });

  it('loads in Transformers.js offline; generate() with left padding matches its greedy output unpadded', async () => {
    const { tokenizer, model } = await loadOffline(DIR, 'Price: 3 [Calculator(2 * 3) -> 6] done.');
    tokenizer.padding_side = 'left';
    const prompts = ['The capital of', 'Out of 1400 participants, 400 (or'];
    const batch = tokenizer(prompts, { padding: true });
    const out = (await model.generate({ ...batch, max_new_tokens: 5, do_sample: false })) as Tensor;
    expect(out.dims).toEqual([2, batch.input_ids.dims[1] + 5]);
    // Row 0 was left-padded: its continuation must not depend on the padding (attention_mask + position_ids).
    const single = tokenizer(prompts[0]);
    const alone = (await model.generate({ ...single, max_new_tokens: 5, do_sample: false })) as Tensor;
    const tail = (t: Tensor, row: number) => (t.tolist() as bigint[][])[row].slice(-5).map(Number);
    expect(tail(out, 0)).toEqual(tail(alone, 0));
    // … and equals the independent PyTorch implementation's greedy continuation (../onnx/golden/<model>.json).
    const golden = JSON.parse(await readFile(join(import.meta.dirname, '../onnx/golden', `${name}.json`), 'utf8'));
    expect((single.input_ids as Tensor).tolist()[0].map(Number)).toEqual(golden.greedy.promptIds);
    expect(tail(alone, 0)).toEqual(golden.greedy.ids.slice(0, 5));
    await model.dispose();
  });
});
