import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import type { Tensor } from '@huggingface/transformers';
import { join } from 'node:path';
import { committedBytes, expectWrittenAsCommitted, loadOffline } from './testing/committed-model.ts';
import { TINY_RANDOM_DIR, writeTinyRandom } from './tiny-random.ts';

describe('models/tiny-random', () => {
  it('is exactly what pipeline/onnx-export/tiny-random.ts generates (run it after changing the exporter)', async () => {
    await expectWrittenAsCommitted(writeTinyRandom, TINY_RANDOM_DIR, 'tiny-random');
  });

  it('stays well under 1 MB', async () => {
    expect(await committedBytes(TINY_RANDOM_DIR)).toBeLessThan(300_000);
  });

  it('loads in Transformers.js offline: " [", "]", "->" are single tokens and generate() works', async () => {
    const { tokenizer, model } = await loadOffline(TINY_RANDOM_DIR, 'Price: 3 € [Calculator(2 * 3) -> 6] done.');
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
