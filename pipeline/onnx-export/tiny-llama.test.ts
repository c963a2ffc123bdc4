import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { AutoModelForCausalLM, AutoTokenizer, env, Tensor } from '@huggingface/transformers';
import { loadModel } from '../node/model/load-model.ts';
import { TINY_LLAMA_DIR, TINY_QWEN2_DIR, writeTinyLlama, writeTinyQwen2 } from './tiny-llama.ts';

const FILES = ['config.json', 'generation_config.json', 'onnx/model.onnx', 'tokenizer.json', 'tokenizer_config.json'];

describe.each([
  ['tiny-llama', TINY_LLAMA_DIR, writeTinyLlama, { kvHeads: 2, headDim: 8, eos: 263 }],
  ['tiny-qwen2', TINY_QWEN2_DIR, writeTinyQwen2, { kvHeads: 2, headDim: 8, eos: 265 }],
] as const)('models/%s', (name, DIR, write, expected) => {
  it(`is exactly what pipeline/onnx-export/tiny-llama.ts generates (run it after changing the exporter)`, async () => {
    const dir = await mkdtemp(join(tmpdir(), `${name}-`));
    try {
      await write(dir);
      for (const file of FILES) {
        const [fresh, committed] = await Promise.all([readFile(join(dir, file)), readFile(join(DIR, file))]);
        expect(fresh.equals(committed), file).toBe(true);
      }
      expect((await readdir(dir)).sort()).toEqual(['config.json', 'generation_config.json', 'onnx', 'tokenizer.json', 'tokenizer_config.json']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('stays under 1 MB', async () => {
    const sizes = await Promise.all(FILES.map(async (f) => (await readFile(join(DIR, f))).length));
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThan(1_000_000);
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
    env.allowRemoteModels = false;
    const tokenizer = await AutoTokenizer.from_pretrained(DIR);
    const model = await AutoModelForCausalLM.from_pretrained(DIR);
    for (const piece of [' [', ']', '->']) expect(tokenizer.encode(piece, { add_special_tokens: false })).toHaveLength(1);
    const text = 'Price: 3 [Calculator(2 * 3) -> 6] done.';
    expect(tokenizer.decode(tokenizer.encode(text, { add_special_tokens: false }))).toBe(text);
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
