import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { AutoModelForCausalLM, AutoTokenizer, env, type Tensor } from '@huggingface/transformers';
import { TINY_RANDOM_DIR, writeTinyRandom } from './tiny-random.ts';

const FILES = ['config.json', 'generation_config.json', 'onnx/model.onnx', 'tokenizer.json', 'tokenizer_config.json'];

describe('models/tiny-random', () => {
  it('is exactly what pipeline/onnx-export/tiny-random.ts generates (run it after changing the exporter)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tiny-random-'));
    try {
      await writeTinyRandom(dir);
      for (const file of FILES) {
        const [fresh, committed] = await Promise.all([readFile(join(dir, file)), readFile(join(TINY_RANDOM_DIR, file))]);
        expect(fresh.equals(committed), file).toBe(true);
      }
      expect((await readdir(dir)).sort()).toEqual(['config.json', 'generation_config.json', 'onnx', 'tokenizer.json', 'tokenizer_config.json']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('stays well under 1 MB', async () => {
    const sizes = await Promise.all(FILES.map(async (f) => (await readFile(join(TINY_RANDOM_DIR, f))).length));
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThan(300_000);
  });

  it('loads in Transformers.js offline: " [", "]", "->" are single tokens and generate() works', async () => {
    env.allowRemoteModels = false;
    const tokenizer = await AutoTokenizer.from_pretrained(TINY_RANDOM_DIR);
    const model = await AutoModelForCausalLM.from_pretrained(TINY_RANDOM_DIR);
    for (const piece of [' [', ']', '->']) expect(tokenizer.encode(piece, { add_special_tokens: false })).toHaveLength(1);
    const text = 'Price: 3 € [Calculator(2 * 3) -> 6] done.';
    expect(tokenizer.decode(tokenizer.encode(text, { add_special_tokens: false }))).toBe(text);
    expect(tokenizer.pad_token_id).toBe(263);
    expect(tokenizer.eos_token_id).toBe(263);

    const inputs = tokenizer(['Hello world [', 'Out of the'], { padding: true });
    const out = (await model.generate({ ...inputs, max_new_tokens: 6, do_sample: false })) as Tensor;
    expect(out.dims).toEqual([2, inputs.input_ids.dims[1] + 6]);
    await model.dispose();
  });

  it('runs in onnxruntime-node', async () => {
    const session = await ort.InferenceSession.create(join(TINY_RANDOM_DIR, 'onnx/model.onnx'));
    const ids = [72n, 105n, 256n];
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids), [1, 3]),
      attention_mask: new ort.Tensor('int64', BigInt64Array.from([1n, 1n, 1n]), [1, 3]),
      position_ids: new ort.Tensor('int64', BigInt64Array.from([0n, 1n, 2n]), [1, 3]),
    };
    for (let i = 0; i < 2; i++) {
      for (const kv of ['key', 'value']) {
        feeds[`past_key_values.${i}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [1, 4, 0, 8]);
      }
    }
    const out = await session.run(feeds);
    expect(out.logits.dims).toEqual([1, 3, 264]);
    expect(out['present.1.value'].dims).toEqual([1, 4, 3, 8]);
    await session.release();
  });
});
