import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { AutoModelForCausalLM, AutoTokenizer, env, Tensor } from '@huggingface/transformers';

const DIR = fileURLToPath(new URL('../../models/default', import.meta.url));

describe('models/default (the bundled model)', () => {
  it('loads offline in Transformers.js, has single-token call markers, and generate() works', async () => {
    env.allowRemoteModels = false;
    const tokenizer = await AutoTokenizer.from_pretrained(DIR);
    const model = await AutoModelForCausalLM.from_pretrained(DIR);
    try {
      for (const piece of [' [', ']', '->']) expect(tokenizer.encode(piece, { add_special_tokens: false })).toHaveLength(1);
      const text = 'The capital of Ohio is Columbus. [Calculator(400 / 1400) -> 0.29]';
      expect(tokenizer.decode(tokenizer.encode(text, { add_special_tokens: false }))).toBe(text);
      const inputs = tokenizer('The number of members was');
      const out = (await model.generate({ ...inputs, max_new_tokens: 8, do_sample: false })) as Tensor;
      expect(out.dims).toEqual([1, inputs.input_ids.dims[1] + 8]);

      // It copies in context: a random number is far more likely at its second mention than at its first.
      const bos = tokenizer.eos_token_id as number;
      const a = tokenizer.encode('The record lists 58213 as the code. Later, the code was', { add_special_tokens: false });
      const num = tokenizer.encode(' 58213', { add_special_tokens: false });
      const ids = [bos, ...a];
      const firstAt = ids.findIndex((_, i) => num.every((t, j) => ids[i + j] === t));
      const full = [...ids, ...num];
      const { logits } = (await model({
        input_ids: new Tensor('int64', BigInt64Array.from(full.map(BigInt)), [1, full.length]),
        attention_mask: new Tensor('int64', new BigInt64Array(full.length).fill(1n), [1, full.length]),
      })) as { logits: Tensor };
      const V = logits.dims[2];
      const data = logits.data as Float32Array;
      const logProb = (t: number): number => {
        // log p(full[t] | full[<t]) from the logits at t-1
        const row = data.subarray((t - 1) * V, t * V);
        let max = -Infinity;
        for (const v of row) max = Math.max(max, v);
        let sum = 0;
        for (const v of row) sum += Math.exp(v - max);
        return row[full[t]] - max - Math.log(sum);
      };
      expect(firstAt).toBeGreaterThan(0);
      let first = 0;
      let second = 0;
      for (let j = 1; j < num.length; j++) {
        first += logProb(firstAt + j);
        second += logProb(ids.length + j);
      }
      expect((second - first) / (num.length - 1)).toBeGreaterThan(1);
    } finally {
      await model.dispose();
    }
  });
});
