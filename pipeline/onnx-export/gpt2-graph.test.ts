import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { buildGpt2Onnx } from './gpt2-graph.ts';
import { checkGpt2Weights, randomGpt2Weights, type Gpt2Config, type Gpt2Weights } from './gpt2-weights.ts';


/** A plain-JS GPT-2 forward (batch 1, no cache), written from the GPT-2 definition: the independent reference. */
function referenceLogits(config: Gpt2Config, weights: Gpt2Weights, ids: number[]): Float32Array[] {
  const { nEmbd: C, nHead: H, vocabSize: V, layerNormEpsilon: eps } = config;
  const D = C / H;
  const W = (name: string) => weights.get(name)!;
  const layerNorm = (x: Float64Array, prefix: string) => {
    const g = W(`${prefix}.weight`);
    const b = W(`${prefix}.bias`);
    const mean = x.reduce((a, v) => a + v, 0) / C;
    const variance = x.reduce((a, v) => a + (v - mean) ** 2, 0) / C;
    return x.map((v, i) => ((v - mean) / Math.sqrt(variance + eps)) * g[i] + b[i]);
  };
  const linear = (x: Float64Array, prefix: string, nOut: number) => {
    const w = W(`${prefix}.weight`);
    const y = Float64Array.from(W(`${prefix}.bias`));
    for (let i = 0; i < x.length; i++) for (let j = 0; j < nOut; j++) y[j] += x[i] * w[i * nOut + j];
    return y;
  };
  const gelu = (v: number) => 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v ** 3)));

  let xs = ids.map((id, t) => {
    const x = new Float64Array(C);
    for (let c = 0; c < C; c++) x[c] = W('wte.weight')[id * C + c] + W('wpe.weight')[t * C + c];
    return x;
  });
  for (let l = 0; l < config.nLayer; l++) {
    const qkv = xs.map((x) => linear(layerNorm(x, `h.${l}.ln_1`), `h.${l}.attn.c_attn`, 3 * C));
    const ctx = xs.map(() => new Float64Array(C));
    for (let h = 0; h < H; h++) {
      for (let t = 0; t < xs.length; t++) {
        const scores = [];
        for (let s = 0; s <= t; s++) {
          let dot = 0;
          for (let d = 0; d < D; d++) dot += qkv[t][h * D + d] * qkv[s][C + h * D + d];
          scores.push(dot / Math.sqrt(D));
        }
        const max = Math.max(...scores);
        const e = scores.map((v) => Math.exp(v - max));
        const z = e.reduce((a, v) => a + v, 0);
        for (let s = 0; s <= t; s++) for (let d = 0; d < D; d++) ctx[t][h * D + d] += (e[s] / z) * qkv[s][2 * C + h * D + d];
      }
    }
    xs = xs.map((x, t) => {
      const a = linear(ctx[t], `h.${l}.attn.c_proj`, C);
      const x1 = x.map((v, i) => v + a[i]);
      const m = linear(linear(layerNorm(x1, `h.${l}.ln_2`), `h.${l}.mlp.c_fc`, 4 * C).map(gelu), `h.${l}.mlp.c_proj`, C);
      return x1.map((v, i) => v + m[i]);
    });
  }
  return xs.map((x) => {
    const h = layerNorm(x, 'ln_f');
    const logits = new Float32Array(V);
    for (let v = 0; v < V; v++) {
      let dot = 0;
      for (let c = 0; c < C; c++) dot += h[c] * W('wte.weight')[v * C + c];
      logits[v] = dot;
    }
    return logits;
  });
}

const config: Gpt2Config = { vocabSize: 40, nPositions: 24, nEmbd: 16, nLayer: 2, nHead: 2, layerNormEpsilon: 1e-5 };
const weights = randomGpt2Weights(config, 7);

const i64 = (values: number[], dims: number[]) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), dims);

async function session() {
  return ort.InferenceSession.create(buildGpt2Onnx(config, weights));
}

function feeds(rows: number[][], mask: number[][], positions: number[][], past?: ort.InferenceSession.OnnxValueMapType) {
  const B = rows.length;
  const f: Record<string, ort.Tensor> = {
    input_ids: i64(rows.flat(), [B, rows[0].length]),
    attention_mask: i64(mask.flat(), [B, mask[0].length]),
    position_ids: i64(positions.flat(), [B, positions[0].length]),
  };
  for (let i = 0; i < config.nLayer; i++) {
    for (const kv of ['key', 'value']) {
      f[`past_key_values.${i}.${kv}`] =
        (past?.[`present.${i}.${kv}`] as ort.Tensor) ?? new ort.Tensor('float32', new Float32Array(0), [B, 2, 0, 8]);
    }
  }
  return f;
}

const row = (logits: ort.Tensor, b: number, t: number) => {
  const [, S, V] = logits.dims;
  return (logits.data as Float32Array).subarray((b * S + t) * V, (b * S + t + 1) * V);
};

describe('buildGpt2Onnx', () => {
  it('rejects weights that do not match the config', () => {
    const broken = new Map(weights);
    broken.delete('h.1.mlp.c_fc.bias');
    broken.set('wpe.weight', new Float32Array(3));
    expect(() => checkGpt2Weights(config, broken)).toThrow(/wpe\.weight has 3 values, \[24,16\] needs 384; missing h\.1\.mlp\.c_fc\.bias/);
  });

  it('names the first few problems of a foreign layout and counts the rest, in one short line', () => {
    const foreign = new Map([...weights.values()].map((w, i) => [`onnx::MatMul_${i}`, w]));
    let message = '';
    try {
      checkGpt2Weights(config, foreign);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/none of the weights is there by name: not a layout this project writes/);
    expect(message).toMatch(new RegExp(`… ${2 * weights.size - 5} more \\(${weights.size} of ${weights.size} weights missing\\)$`));
    expect(message.length).toBeLessThan(600);
    expect(message).not.toContain('\n');
  });

  it('declares the Optimum / Transformers.js decoder inputs and outputs', async () => {
    const s = await session();
    expect(s.inputNames).toEqual([
      'input_ids', 'attention_mask', 'position_ids',
      'past_key_values.0.key', 'past_key_values.0.value', 'past_key_values.1.key', 'past_key_values.1.value',
    ]);
    expect(s.outputNames).toEqual(['logits', 'present.0.key', 'present.0.value', 'present.1.key', 'present.1.value']);
    const meta = Object.fromEntries(s.inputMetadata.map((m) => [m.name, m.isTensor ? m.shape : null]));
    expect(meta['attention_mask']).toEqual(['batch_size', 'past_sequence_length + sequence_length']);
    expect(meta['past_key_values.1.value']).toEqual(['batch_size', 2, 'past_sequence_length', 8]);
  });

  it('computes the same logits as a plain-JS GPT-2 forward (1e-4)', async () => {
    const ids = [3, 17, 0, 39, 22, 5, 5, 11];
    const expected = referenceLogits(config, weights, ids);
    const out = await (await session()).run(feeds([ids], [ids.map(() => 1)], [ids.map((_, t) => t)]));
    expect(out.logits.dims).toEqual([1, ids.length, config.vocabSize]);
    for (let t = 0; t < ids.length; t++) {
      const got = row(out.logits, 0, t);
      for (let v = 0; v < config.vocabSize; v++) expect(got[v]).toBeCloseTo(expected[t][v], 4);
    }
  });

  it('gives the same logits step by step through the KV cache as in one pass', async () => {
    const s = await session();
    const ids = [1, 2, 3, 4, 5, 6];
    const full = await s.run(feeds([ids], [ids.map(() => 1)], [ids.map((_, t) => t)]));
    let out = await s.run(feeds([ids.slice(0, 3)], [[1, 1, 1]], [[0, 1, 2]]));
    for (let t = 3; t < ids.length; t++) {
      out = await s.run(feeds([[ids[t]]], [Array(t + 1).fill(1)], [[t]], out));
      expect(out['present.0.key'].dims).toEqual([1, 2, t + 1, 8]);
      const got = row(out.logits, 0, 0);
      const want = row(full.logits, 0, t);
      for (let v = 0; v < config.vocabSize; v++) expect(got[v]).toBeCloseTo(want[v], 5);
    }
  });

  it('ignores padded positions (left padding, position ids from the mask) without NaN', async () => {
    const s = await session();
    const alone = await s.run(feeds([[9, 8, 7]], [[1, 1, 1]], [[0, 1, 2]]));
    const padded = await s.run(feeds([[0, 0, 9, 8, 7], [1, 2, 3, 4, 5]], [[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]], [[1, 1, 0, 1, 2], [0, 1, 2, 3, 4]]));
    expect(Array.from(padded.logits.data as Float32Array).every(Number.isFinite)).toBe(true);
    for (let t = 0; t < 3; t++) {
      const got = row(padded.logits, 0, t + 2);
      const want = row(alone.logits, 0, t);
      for (let v = 0; v < config.vocabSize; v++) expect(got[v]).toBeCloseTo(want[v], 5);
    }
  });
});
