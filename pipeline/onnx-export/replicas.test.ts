/**
 * The published Hugging Face dtype files, replicated from models/tiny-llama (SmolLM2's shape) by replicas.ts, read
 * by two independent readers: Transformers.js itself on the same file (its logits and greedy tokens, loaded offline
 * from the directory) and, for fp32, the PyTorch goldens (../onnx/golden/tiny-llama.json). The replicas are made here, in a
 * temporary directory, never committed.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoModelForCausalLM, AutoTokenizer, env, type Tensor } from '@huggingface/transformers';
import onnxProto from 'onnx-proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ortWeb from 'onnxruntime-web';
import { DTYPES, DTYPE_FILES, externalDataFiles, type Dtype } from '../core/lm/dtypes.ts';
import { OrtCausalLM, type OrtModule } from '../core/lm/ort-lm.ts';
import { loadModel } from '../node/model/load-model.ts';
import { writeReplicas } from './replicas.ts';

env.allowRemoteModels = false;
const TEXT = 'Price: 3 [Calculator(2 * 3) -> 6] done. The capital of';
/**
 * Largest |our log p − Transformers.js log p| over the text's tokens, per dtype. Same file, same ONNX Runtime:
 * float32 graphs agree to rounding (our scorer runs the LM head on gathered rows); float16 logits are rounded to
 * half precision (~1e-3 relative at |logit| ≈ 10) and the products are summed in another order.
 */
const TOLERANCE: Record<Dtype, number> = { fp32: 1e-4, fp16: 1e-2, q8: 1e-4, int8: 1e-4, uint8: 1e-4, q4: 1e-4, q4f16: 1e-2, bnb4: 1e-4 };

/**
 * `npm run docs:replicas` (RECORD_REPLICAS=1) writes the measured differences to results/replicas.json, the source of
 * pipeline/onnx-export/README.md's block; it needs every dtype's test to have run.
 */
const RECORD = process.env.RECORD_REPLICAS === '1';
const measured: Partial<Record<Dtype, { largest: number; tokens: number }>> = {};
const startedAt = new Date().toISOString();

let dir: string;
let golden: { logits: { ids: number[]; head: number[][]; logSumExp: number[] } };
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replicas-'));
  await writeReplicas(join(dir, 'all'));
  await writeReplicas(join(dir, 'external'), { dtypes: ['fp32', 'q4f16'], externalData: true, numLogitsToKeep: true });
  golden = JSON.parse(await readFile(join(import.meta.dirname, '../onnx/golden/tiny-llama.json'), 'utf8'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  if (!RECORD) return;
  const missing = DTYPES.filter((d) => !measured[d]);
  if (missing.length) throw new Error(`RECORD_REPLICAS: no measurement for ${missing.join(', ')} (run the whole file)`);
  const out = join(import.meta.dirname, 'results');
  await mkdir(out, { recursive: true });
  const dtypes = DTYPES.map((dtype) => ({ dtype, file: DTYPE_FILES[dtype], ...measured[dtype]!, tolerance: TOLERANCE[dtype] }));
  const pkg = join(import.meta.dirname, '../../node_modules/@huggingface/transformers/package.json');
  const transformersJs = (JSON.parse(await readFile(pkg, 'utf8')) as { version: string }).version;
  const record = { measured: startedAt, command: 'npm run docs:replicas', text: TEXT, transformersJs, dtypes };
  await writeFile(join(out, 'replicas.json'), JSON.stringify(record, null, 2) + '\n');
});

/** Transformers.js on `model` with `dtype`: log p of each next token of TEXT, and its greedy continuation. */
async function transformersJs(model: string, dtype: Dtype, newTokens: number) {
  const tokenizer = await AutoTokenizer.from_pretrained(model);
  const lm = await AutoModelForCausalLM.from_pretrained(model, { dtype });
  try {
    const input = tokenizer(TEXT);
    const ids = ((input.input_ids as Tensor).tolist() as bigint[][])[0].map(Number);
    const logits = (await lm(input)).logits.to('float32') as Tensor;
    const V = logits.dims[2];
    const data = logits.data as Float32Array;
    const logProbs = ids.slice(1).map((next, t) => {
      const row = data.subarray(t * V, (t + 1) * V);
      const max = row.reduce((a, b) => Math.max(a, b), -Infinity);
      return row[next] - max - Math.log(row.reduce((s, x) => s + Math.exp(x - max), 0));
    });
    const generated = (await lm.generate({ ...input, max_new_tokens: newTokens, do_sample: false })) as Tensor;
    return { ids, logProbs, greedy: (generated.tolist() as bigint[][])[0].slice(ids.length).map(Number) };
  } finally {
    await lm.dispose();
  }
}

/** The text of greedy ids, up to an end-of-text token (where sample() stops). */
const greedyText = (lm: OrtCausalLM, ids: number[]) => {
  const eos = ids.findIndex((id) => lm.spec.eosTokenIds.includes(id));
  return lm.decode(eos >= 0 ? ids.slice(0, eos) : ids);
};

/** Ours on the same file: log p of each next token (one request, no padding) and the greedy continuation. */
async function ours(lm: OrtCausalLM, ids: number[], newTokens: number) {
  const [scored] = await lm.score([{ ids }]);
  const [sample] = await lm.sample(ids, { n: 1, maxNewTokens: newTokens, stop: '', seed: 1, temperature: 0 });
  return { logProbs: Array.from(scored.tokenLogProbs.subarray(1)), greedy: sample.text };
}

const worst = (a: number[], b: number[]) => Math.max(...a.map((x, i) => Math.abs(x - b[i])));
const ops = (bytes: Uint8Array) => new Set(onnxProto.onnx.ModelProto.decode(bytes).graph!.node!.map((n) => `${n.domain || ''}:${n.opType}`));

describe.each(DTYPES)('the %s replica', (dtype) => {
  it(`loads as Transformers.js loads it and scores as it does (within ${TOLERANCE[dtype]} nats), greedy tokens equal`, async () => {
    const model = join(dir, 'all');
    const reference = await transformersJs(model, dtype, 6);
    const lm = await loadModel(model, { dtype });
    try {
      expect(lm.encode(TEXT)).toEqual(reference.ids);
      const mine = await ours(lm, reference.ids, 6);
      const largest = worst(mine.logProbs, reference.logProbs);
      expect(largest).toBeLessThan(TOLERANCE[dtype]);
      expect(mine.greedy).toBe(greedyText(lm, reference.greedy));
      measured[dtype] = { largest, tokens: mine.logProbs.length }; // recorded only once its checks passed
      // The in-graph log-prob head, in the one session that also decodes — except where the LM head itself is
      // dynamically quantized over the whole [B, T, C] tensor (int8, uint8), which gathered rows would change.
      const headInGraph = dtype !== 'int8' && dtype !== 'uint8';
      expect(lm.logProbPath, 'one session scores and decodes').toBe(headInGraph ? 'head' : 'graph');
      const float16 = dtype === 'fp16' || dtype === 'q4f16';
      expect(lm.io).toMatchObject({ cacheType: float16 ? 'float16' : 'float32', logitsType: float16 ? 'float16' : 'float32' });
    } finally {
      await lm.release();
    }
  });
});

describe('the replicas are the published formats', () => {
  it('use the ops and element types the published files use', async () => {
    const file = async (d: Dtype) => readFile(join(dir, 'all/onnx', DTYPE_FILES[d]));
    expect(ops(await file('q4'))).toContain('com.microsoft:MatMulNBits');
    expect(ops(await file('q4f16'))).toContain('com.microsoft:MatMulNBits');
    expect(ops(await file('bnb4'))).toContain('com.microsoft:MatMulBnb4');
    for (const d of ['q8', 'int8', 'uint8'] as const) expect([...ops(await file(d))]).toEqual(expect.arrayContaining([':DynamicQuantizeLinear', ':MatMulInteger']));
    const half = onnxProto.onnx.ModelProto.decode(await file('fp16')).graph!;
    const FLOAT16 = onnxProto.onnx.TensorProto.DataType.FLOAT16;
    for (const name of ['past_key_values.0.key', 'logits', 'present.1.value']) {
      const info = [...half.input!, ...half.output!].find((v) => v.name === name)!;
      expect(info.type!.tensorType!.elemType, name).toBe(FLOAT16);
    }
    const sizes = await Promise.all(DTYPES.map(async (d) => [d, (await file(d)).length] as const));
    const size = Object.fromEntries(sizes);
    expect(size.q4f16).toBeLessThan(size.q4);
    expect(size.q4).toBeLessThan(0.5 * size.fp32);
  });
});

describe('external data and num_logits_to_keep', () => {
  it('fp32 with external data and a num_logits_to_keep input gives the PyTorch golden logits (1e-4)', async () => {
    const model = join(dir, 'external');
    const graph = await readFile(join(model, 'onnx/model.onnx'));
    const data = await readFile(join(model, 'onnx/model.onnx_data'));
    expect(graph.length).toBeLessThan(data.length / 4); // the weights are outside the graph
    const lm = await loadModel(model);
    try {
      expect(lm.io.hasNumLogitsToKeep).toBe(true);
      const { ids, head, logSumExp } = golden.logits;
      const [scored] = await lm.score([{ ids }]);
      // log p(ids[t+1] | ids[≤t]) from the golden: head holds the first logits of each row, so use ids within it.
      ids.slice(1).forEach((next, t) => {
        if (next < head[t].length) expect(Math.abs(scored.tokenLogProbs[t + 1] - (head[t][next] - logSumExp[t]))).toBeLessThan(1e-4);
      });
    } finally {
      await lm.release();
    }
  });

  it.each(['fp32', 'q4f16'] as const)('%s with external data loads in Transformers.js and scores as it does', async (dtype) => {
    const model = join(dir, 'external');
    const reference = await transformersJs(model, dtype, 4);
    const lm = await loadModel(model, { dtype });
    try {
      const mine = await ours(lm, reference.ids, 4);
      expect(worst(mine.logProbs, reference.logProbs)).toBeLessThan(TOLERANCE[dtype]);
      expect(mine.greedy).toBe(greedyText(lm, reference.greedy));
    } finally {
      await lm.release();
    }
  });
});

/**
 * onnxruntime-web's WASM backend (run here in Node: what the browser's WASM path runs) against onnxruntime-node on
 * the same file, given the bytes the way the web worker gives them (externalData: the config's <file>_data and the
 * file itself under its own name). int8's MatMulInteger rounds differently in the WASM build (measured 2.4e-2).
 */
const WEB_TOLERANCE: Record<Dtype, number> = { fp32: 1e-4, fp16: 1e-2, q8: 1e-4, int8: 5e-2, uint8: 1e-4, q4: 1e-4, q4f16: 1e-2, bnb4: 1e-4 };

describe.each([
  ...DTYPES.map((d) => ['all', d] as const),
  ['external', 'fp32'] as const,
  ['external', 'q4f16'] as const,
])('onnxruntime-web (WASM) on the %s/%s replica', (which, dtype) => {
  it('loads as the web worker loads it and scores the worked Calculator call as onnxruntime-node does', async () => {
    ortWeb.env.wasm.numThreads = 1;
    const model = join(dir, which);
    const json = async (file: string) => JSON.parse(await readFile(join(model, file), 'utf8'));
    const config = await json('config.json');
    const file = DTYPE_FILES[dtype];
    const bytes = await readFile(join(model, 'onnx', file));
    const external = await Promise.all(externalDataFiles(config, file).map(async (path) => ({ path, data: await readFile(join(model, 'onnx', path)) })));
    expect(external.length).toBe(which === 'external' ? 1 : 0);
    const web = await OrtCausalLM.create(ortWeb as unknown as OrtModule, {
      id: `${which}/${dtype}`,
      model: bytes,
      file: `onnx/${file}`,
      weightsFile: file,
      config,
      tokenizer: await json('tokenizer.json'),
      tokenizerConfig: await json('tokenizer_config.json'),
      sessionOptions: { externalData: [...external, { path: file, data: bytes }] },
    });
    const node = await loadModel(model, { dtype });
    try {
      const ids = node.encode('Price: 3 [Calculator(2 * 3) -> 6] done.');
      const [a] = await web.score([{ ids, probe: 256 }]);
      const [b] = await node.score([{ ids, probe: 256 }]);
      expect(worst(Array.from(a.tokenLogProbs), Array.from(b.tokenLogProbs))).toBeLessThan(WEB_TOLERANCE[dtype]);
      expect(worst(Array.from(a.probeLogProbs!), Array.from(b.probeLogProbs!))).toBeLessThan(WEB_TOLERANCE[dtype]);
    } finally {
      await web.release();
      await node.release();
    }
  });
});
