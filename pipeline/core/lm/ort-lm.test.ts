// Node-side tests of the isomorphic OrtCausalLM, run on onnxruntime-node with models/tiny-random.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { AutoModelForCausalLM, env, type Tensor } from '@huggingface/transformers';
import { loadModel } from '../../node/model/load-model.ts';
import { TINY_RANDOM_DIR } from '../../onnx-export/tiny-random.ts';
import { tinyChatTokenizer, tinyLlamaConfig } from '../../onnx-export/tiny-llama.ts';
import { exportLlama } from '../../onnx-export/export-llama.ts';
import { randomLlamaWeights } from '../../onnx-export/llama-weights.ts';
import type { ScoreRequest } from './lm.ts';
import { bosTokenId, logSoftmaxGather, OrtCausalLM, pickToken, rowSeeds, scoreBatchTokens } from './ort-lm.ts';
import { mulberry32 } from '../../random/mulberry32.ts';
import { sampleGroupRows } from './ort-decoder.ts';
import { largestScoreGap } from '../testing/score-gap.ts';

const EOT = 263;
let lm: OrtCausalLM;
let lmJs: OrtCausalLM;
/** The raw decoder, for full re-forward references. */
let raw: ort.InferenceSession;

beforeAll(async () => {
  lm = await loadModel(TINY_RANDOM_DIR);
  lmJs = await loadModel(TINY_RANDOM_DIR, { lm: { logProbs: 'js' } });
  raw = await ort.InferenceSession.create(join(TINY_RANDOM_DIR, 'onnx/model.onnx'));
});
afterAll(async () => {
  await lm.release();
  await lmJs.release();
  await raw.release();
});

/** Logits [T, V] of a full forward pass (no cache) over `ids`, batch 1. */
async function fullForward(ids: readonly number[]): Promise<Float32Array[]> {
  const T = ids.length;
  const feeds: Record<string, ort.Tensor> = {
    input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, T]),
    attention_mask: new ort.Tensor('int64', new BigInt64Array(T).fill(1n), [1, T]),
    position_ids: new ort.Tensor('int64', BigInt64Array.from(ids, (_, t) => BigInt(t)), [1, T]),
  };
  for (let i = 0; i < 2; i++) {
    for (const kv of ['key', 'value']) feeds[`past_key_values.${i}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [1, 4, 0, 8]);
  }
  const { logits } = await raw.run(feeds);
  const V = logits.dims[2];
  return Array.from({ length: T }, (_, t) => (logits.data as Float32Array).slice(t * V, (t + 1) * V));
}

function logSoftmax(row: ArrayLike<number>): number[] {
  const max = Math.max(...Array.from(row));
  const logZ = max + Math.log(Array.from(row).reduce((a, v) => a + Math.exp(v - max), 0));
  return Array.from(row, (v) => v - logZ);
}

const text = 'In 1790 the population was 3,929,214 [Calculator(3929214 / 13) -> 302247.23] or so.';
const probe = 256; // " ["

describe('OrtCausalLM.score', () => {
  it('equals log-softmax of Transformers.js logits on tiny-random (1e-4)', async () => {
    env.allowRemoteModels = false;
    const model = await AutoModelForCausalLM.from_pretrained(TINY_RANDOM_DIR);
    const ids = lm.encode(text);
    const T = ids.length;
    const { logits } = (await model({
      input_ids: new (await import('@huggingface/transformers')).Tensor('int64', BigInt64Array.from(ids, BigInt), [1, T]),
      attention_mask: new (await import('@huggingface/transformers')).Tensor('int64', new BigInt64Array(T).fill(1n), [1, T]),
    })) as { logits: Tensor };
    await model.dispose();
    const V = logits.dims[2];
    const rows = Array.from({ length: T }, (_, t) => logSoftmax((logits.data as Float32Array).subarray(t * V, (t + 1) * V)));

    const [result] = await lm.score([{ ids, probe }]);
    expect(result.tokenLogProbs[0]).toBe(0);
    for (let t = 1; t < T; t++) expect(Math.abs(result.tokenLogProbs[t] - rows[t - 1][ids[t]])).toBeLessThan(1e-4);
    for (let t = 0; t < T; t++) expect(Math.abs(result.probeLogProbs![t] - rows[t][probe])).toBeLessThan(1e-4);
  });

  it('gives the same log-probs in a padded, bucketed batch as one request at a time (1e-5)', async () => {
    const base = lm.encode(text);
    const requests: ScoreRequest[] = [
      { ids: base, probe },
      { ids: base.slice(0, 5) },
      { ids: base.slice(3, 40), probe: 93, upTo: 20 },
      { ids: [72] },
      { ids: [72], probe },
      { ids: [] },
      { ids: base.slice(10), upTo: 1 },
      { ids: lm.encode(' the cat sat on the mat'), probe: EOT },
    ];
    const small = await loadModel(TINY_RANDOM_DIR, { lm: { maxBatchRows: 3 } }); // forces several forward passes
    const together = await small.score(requests);
    await small.release();
    for (const [i, request] of requests.entries()) {
      const [alone] = await lm.score([request]);
      const upTo = Math.min(request.upTo ?? request.ids.length, request.ids.length);
      expect(together[i].tokenLogProbs).toHaveLength(request.ids.length);
      for (let t = 0; t < request.ids.length; t++) {
        expect(Math.abs(together[i].tokenLogProbs[t] - alone.tokenLogProbs[t])).toBeLessThan(1e-5);
        if (t >= upTo || t === 0) expect(together[i].tokenLogProbs[t]).toBe(0);
        else expect(together[i].tokenLogProbs[t]).toBeLessThan(0);
      }
      expect(together[i].probeLogProbs === undefined).toBe(request.probe === undefined);
      if (request.probe !== undefined) {
        for (let t = 0; t < request.ids.length; t++) {
          expect(Math.abs(together[i].probeLogProbs![t] - alone.probeLogProbs![t])).toBeLessThan(1e-5);
          if (t >= upTo) expect(together[i].probeLogProbs![t]).toBe(0);
        }
      }
    }
  });

  it('computes the same log-probs in the ONNX gather graph as in JavaScript (1e-5)', async () => {
    const requests = [0, 1, 2, 3].map((k) => ({ ids: lm.encode(text).slice(k * 5), probe: 256 + k }));
    expect(largestScoreGap(await lm.score(requests), await lmJs.score(requests))).toBeLessThan(1e-5);
  });

  it('rejects sequences longer than the model accepts, naming the limit', async () => {
    expect(lm.maxLength).toBe(256);
    await expect(lm.score([{ ids: new Array(257).fill(72) }])).rejects.toThrow(
      'score: request 0 has 257 tokens; the model accepts at most 256',
    );
    await expect(lm.score([{ ids: [72, 9999] }])).rejects.toThrow('token id 9999 is outside the vocabulary [0, 264)');
  });
});

describe('logSoftmaxGather', () => {
  it('reads log_softmax(row)[index] per position', () => {
    const logits = Float32Array.of(1, 2, 3, 0, 0, 0);
    const out = logSoftmaxGather(logits, 3, BigInt64Array.of(2n, 0n, 1n, 1n), 2);
    const lse = Math.log(Math.exp(1) + Math.exp(2) + Math.exp(3));
    expect(Array.from(out)).toEqual([3 - lse, 1 - lse, -Math.log(3), -Math.log(3)].map(Math.fround));
  });
});

describe('OrtCausalLM.sample', () => {
  const prompt = () => lm.encode('The capital of France is [QA("');

  it('is deterministic for a seed and varies with it', async () => {
    const options = { n: 4, maxNewTokens: 12, stop: ']', seed: 7 };
    const a = await lm.sample(prompt(), options);
    expect(await lm.sample(prompt(), options)).toEqual(a);
    expect(await lm.sample(prompt(), { ...options, seed: 8 })).not.toEqual(a);
    expect(a).toHaveLength(4);
  });

  it('stops a row whose text the caller says cannot become what it reads (alive), with what it had', async () => {
    const options = { n: 18, maxNewTokens: 10, stop: ']', seed: 4 };
    const all = await lm.sample(prompt(), options);
    // The character most samples write (the tiny model's samples are not English): a row dies at its first one.
    const counts = new Map<string, number>();
    for (const ch of all.flatMap((x) => [...new Set(x.text)])) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    const e = [...counts].sort((a, b) => b[1] - a[1])[0][0];
    const alive = (text: string) => !text.includes(e);
    const cut = await lm.sample(prompt(), { ...options, alive });
    all.forEach((s, r) => {
      const at = s.text.indexOf(e);
      // Rows that never wrote it are unchanged; the others end at their first one (decoded token by token).
      if (at < 0) expect(cut[r]).toEqual(s);
      else {
        expect(cut[r].stopped).toBe(false);
        expect(s.text.startsWith(cut[r].text)).toBe(true);
        expect(cut[r].text.includes(e)).toBe(true);
      }
    });
    expect(all.filter((s) => s.text.includes(e)).length).toBeGreaterThan(1);
  });

  it('with alive, stops a row at an id its tokenizer lacks (a vocabulary padded past the tokenizer), with the text before it', async () => {
    // tiny-llama's shape and tokenizer (266 ids) with 2,000 more embedding rows no token names, as a model padded
    // past its tokenizer (the 135M-shape bench model: 49,152 rows over a 1,024-token tokenizer).
    const dir = await mkdtemp(join(tmpdir(), 'padded-vocab-'));
    try {
      const tokenizer = tinyChatTokenizer();
      const config = tinyLlamaConfig(tokenizer.vocabSize + 2000);
      await exportLlama(dir, { config, weights: randomLlamaWeights(config, 7), tokenizer: tokenizer.json, special: { bos: '<|endoftext|>', eos: '<|endoftext|>', pad: '<|endoftext|>' } });
      const padded = await loadModel(dir);
      try {
        expect(padded.hasToken(tokenizer.vocabSize - 1)).toBe(true);
        expect(padded.hasToken(tokenizer.vocabSize)).toBe(false);
        const options = { n: 8, maxNewTokens: 12, stop: ']', seed: 3 };
        const ids = padded.encode('The capital of France is [');
        const forwards = () => padded.cacheStats.forwards;
        const before = forwards();
        const all = await padded.sample(ids, options);
        const full = forwards() - before;
        const cut = await padded.sample(ids, { ...options, alive: () => true });
        const cutForwards = forwards() - before - full;
        // Every row's text is a prefix of the uncut one (an unknown id decodes to nothing), none closed early, and
        // the rows stop within the first steps: most ids drawn are ones the tokenizer lacks.
        all.forEach((s, r) => expect(s.text.startsWith(cut[r].text)).toBe(true));
        cut.forEach((s, r) => expect(!s.stopped || all[r].stopped).toBe(true));
        expect(full).toBe(12); // the prefill and 11 decode steps: no row stops on its own
        expect(cutForwards).toBeLessThan(4);
      } finally {
        await padded.release();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('stops at the stop string, which it leaves out', async () => {
    const greedy = await lm.sample(prompt(), { n: 1, maxNewTokens: 16, stop: '', temperature: 0, seed: 0 });
    expect(greedy[0].stopped).toBe(false);
    const full = greedy[0].text;
    expect(full.length).toBeGreaterThan(4);
    const stop = full.slice(3, 5);
    const [cut] = await lm.sample(prompt(), { n: 1, maxNewTokens: 16, stop, temperature: 0, seed: 0 });
    expect({ text: cut.text, stopped: cut.stopped }).toEqual({ text: full.slice(0, full.indexOf(stop)), stopped: true });
  });

  it('matches a reference sampler that re-runs the full forward pass each step (KV cache, batching, early stops)', async () => {
    const p = prompt();
    for (const options of [
      { n: 6, maxNewTokens: 10, stop: 'n', seed: 3, temperature: 1 },
      { n: 5, maxNewTokens: 8, stop: ']', seed: 11, temperature: 0.7, topK: 5 },
      { n: 2, maxNewTokens: 6, stop: ']', seed: 0, temperature: 0 },
      // More rows than one group (SAMPLE_GROUP_ROWS = 16): each group decodes from its own copy of the prompt's cache.
      { n: 20, maxNewTokens: 5, stop: ']', seed: 5, temperature: 1 },
    ]) {
      const got = await lm.sample(p, options);
      const seeds = rowSeeds(options.seed, options.n);
      for (let r = 0; r < options.n; r++) {
        const rng = mulberry32(seeds[r]);
        const gen: number[] = [];
        let expected = { text: '', stopped: false };
        for (let step = 0; step < options.maxNewTokens; step++) {
          const logits = await fullForward([...p, ...gen]);
          const token = pickToken(logits[logits.length - 1], options.temperature, options.topK ?? 0, rng);
          if (token === EOT) break;
          gen.push(token);
          const decoded = lm.decode(gen);
          if (decoded.includes(options.stop)) {
            expected = { text: decoded.slice(0, decoded.indexOf(options.stop)), stopped: true };
            break;
          }
          expected = { text: decoded, stopped: false };
        }
        // The ids drawn too (Sample.ids: what a server returns as token_ids), the end-of-sequence id left out.
        expect(got[r], `options ${JSON.stringify(options)}, row ${r}`).toEqual({ ...expected, ids: gen });
      }
      // Rows that stop early leave the batch while others go on (both cases occur with these seeds).
      if (options.temperature > 0) expect(got.some((s) => s.stopped) && got.some((s) => !s.stopped)).toBe(true);
    }
  });

  it('never runs past the model length', async () => {
    const long = new Array(250).fill(72);
    const [s] = await lm.sample(long, { n: 1, maxNewTokens: 50, stop: '\u0000never', temperature: 0, seed: 1 });
    expect(lm.encode(s.text).length).toBeLessThanOrEqual(6);
    await expect(lm.sample(new Array(256).fill(72), { n: 1, maxNewTokens: 1, stop: ']', seed: 1 })).rejects.toThrow(
      'at most 256',
    );
  });
});

describe('scoreBatchTokens', () => {
  it('bounds a pass by its activations: fewer tokens the wider the model, within 256 to 4,096', () => {
    const bundled = { n_embd: 256, n_inner: null }; // models/default: MLP inner 4 × 256
    const smollm135m = { hidden_size: 576, intermediate_size: 1536 };
    const wide = { hidden_size: 4096, intermediate_size: 14336 };
    expect(scoreBatchTokens(bundled)).toBeGreaterThan(scoreBatchTokens(smollm135m));
    // 135M: at most the 1,024 tokens a pass that measured less CPU and memory than 2,048 or 4,096.
    expect(scoreBatchTokens(smollm135m)).toBeLessThanOrEqual(1024);
    expect(scoreBatchTokens(smollm135m)).toBeGreaterThanOrEqual(512);
    expect(scoreBatchTokens(wide)).toBe(256);
    expect(scoreBatchTokens({ n_embd: 8, n_inner: 8 })).toBe(4096);
    expect(scoreBatchTokens({})).toBe(4096); // widths unknown: the old default
  });
});

describe('sampleGroupRows', () => {
  it('decodes 16 rows together while their cache stays under 32 MiB, fewer (at least one) past it', () => {
    // The bundled model: 4 layers × 2 × 128 floats × 4 B = 4 KB per token; a 300-token prompt keeps 16 rows.
    expect(sampleGroupRows(4096, 300)).toBe(16);
    // SmolLM2-135M: 30 layers × 2 × 3 kv heads × 64 × 4 B = 46,080 B per token; 250 + 8 tokens is 11.9 MB a row.
    expect(sampleGroupRows(46080, 258)).toBe(2);
    expect(sampleGroupRows(46080, 2000)).toBe(1);
  });
});

describe('pickToken', () => {
  const logits = Float32Array.of(0, 3, 1, 3, -1);
  it('takes the first maximum when greedy', () => expect(pickToken(logits, 0, 0, mulberry32(1))).toBe(1));
  it('draws only from the top k', () => {
    const rng = mulberry32(5);
    const seen = new Set(Array.from({ length: 200 }, () => pickToken(logits, 1, 2, rng)));
    expect([...seen].sort()).toEqual([1, 3]);
  });
  it('follows softmax(logits / T)', () => {
    const rng = mulberry32(9);
    const counts = [0, 0, 0, 0, 0];
    for (let i = 0; i < 20000; i++) counts[pickToken(logits, 2, 0, rng)]++;
    const weights = Array.from(logits, (x) => Math.exp(x / 2));
    const z = weights.reduce((a, b) => a + b, 0);
    counts.forEach((c, v) => expect(Math.abs(c / 20000 - weights[v] / z)).toBeLessThan(0.015));
  });
});

describe('OrtCausalLM.create', () => {
  it('works from bytes and JSON alone (what the browser passes in)', async () => {
    const read = async (f: string) => JSON.parse(await readFile(join(TINY_RANDOM_DIR, f), 'utf8'));
    const model = await readFile(join(TINY_RANDOM_DIR, 'onnx/model.onnx'));
    const fromBytes = await OrtCausalLM.create(ort, {
      id: 'tiny-random',
      model,
      config: await read('config.json'),
      tokenizer: await read('tokenizer.json'),
    });
    const ids = fromBytes.encode(text);
    expect(ids).toEqual(lm.encode(text));
    expect(fromBytes.decode(ids)).toBe(text);
    expect(fromBytes.decode(fromBytes.encode('a . b , c'))).toBe('a . b , c'); // no clean-up of spaces
    const [a] = await fromBytes.score([{ ids }]);
    const [b] = await lm.score([{ ids }]);
    expect(Array.from(a.tokenLogProbs)).toEqual(Array.from(b.tokenLogProbs));
    await fromBytes.release();
  });

  it('rejects a graph whose cache does not match config.json', async () => {
    const model = await readFile(join(TINY_RANDOM_DIR, 'onnx/model.onnx'));
    const config = { ...JSON.parse(await readFile(join(TINY_RANDOM_DIR, 'config.json'), 'utf8')), n_layer: 3 };
    const tokenizer = JSON.parse(await readFile(join(TINY_RANDOM_DIR, 'tokenizer.json'), 'utf8'));
    await expect(OrtCausalLM.create(ort, { id: 'x', model, config, tokenizer })).rejects.toThrow(
      'onnx/model.onnx is not a decoder with a KV cache in the Optimum layout: no input past_key_values.2.key',
    );
  });
});

describe('bosTokenId', () => {
  it("is config.json's bos_token_id unless tokenizer_config.json says the tokenizer has none (Qwen2.5)", () => {
    expect(bosTokenId({ bos_token_id: 50256 }, { bos_token: '<|endoftext|>', add_bos_token: false })).toBe(50256); // GPT-2
    expect(bosTokenId({ bos_token_id: 151643 }, { bos_token: null, eos_token: '<|im_end|>' })).toBeUndefined(); // Qwen2.5
    expect(bosTokenId({ bos_token_id: 0 })).toBe(0);
    expect(bosTokenId({})).toBeUndefined();
  });
});
