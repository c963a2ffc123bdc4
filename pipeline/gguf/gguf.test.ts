/**
 * `toolformer convert --to gguf` (pipeline/gguf/): the files read back with node-llama-cpp's GGUF reader (a kept
 * library: readGgufFileInfo) — metadata llama.cpp's loader reads, the tokenizer inside, tensor names, dims and
 * types per dtype, the bytes of the weights (f32 exact, f16 round to nearest even, Q8_0 within half a step) — and
 * the refusals, one line each, nothing left behind.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readGgufFileInfo, type GgufFileInfo } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGpt2Onnx, readLlamaOnnx } from '../onnx-export/onnx-weights.ts';
import { toHalfBits } from '../onnx/onnx-edit.ts';
import { halfToFloat } from '../core/lm/ort-graph-io.ts';
import { convertCommand } from '../node/commands/convert-command.ts';
import { ROOT } from '../node/testing/cli-child.ts';
import { permuteRope } from './gguf-layouts.ts';
import { dequantizeQ8_0, GgmlType, quantizeQ8_0 } from './gguf-tensors.ts';

const work = mkdtempSync(join(tmpdir(), 'gguf-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const model = (name: string) => join(ROOT, 'models', name);
const json = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8'));

const files: Record<string, { path: string; info: GgufFileInfo }> = {};
beforeAll(async () => {
  for (const [name, dtype] of [['default', 'f32'], ['default', 'f16'], ['default', 'q8_0'], ['tiny-llama', 'f32'], ['tiny-qwen2', 'q8_0']] as const) {
    const path = await convertCommand(model(name), { to: 'gguf', dtype, out: join(work, `${name}-${dtype}.gguf`) });
    files[`${name}-${dtype}`] = { path, info: await readGgufFileInfo(path, { readTensorInfo: true }) };
  }
}, 120_000);

/** The stored bytes of one tensor, from the file's data section. */
function tensorData(key: string, name: string, bytes: number): Uint8Array {
  const { path, info } = files[key];
  const t = info.fullTensorInfo!.find((x) => x.name === name)!;
  const data = readFileSync(path);
  const start = Number(t.fileOffset);
  return new Uint8Array(data.buffer, data.byteOffset + start, bytes);
}

describe('GPT-2 (models/default) as GGUF', () => {
  it('has the metadata llama.cpp reads and the tokenizer of tokenizer.json', () => {
    const m = files['default-f32'].info.metadata as any;
    const config = json(model('default'), 'config.json');
    const tokenizer = json(model('default'), 'tokenizer.json');
    expect(m.general.architecture).toBe('gpt2');
    expect(m.general.file_type).toBe(0);
    expect(m.gpt2).toMatchObject({ context_length: config.n_positions, embedding_length: config.n_embd, feed_forward_length: 4 * config.n_embd, block_count: config.n_layer });
    expect(m.gpt2.attention.head_count).toBe(config.n_head);
    expect(m.gpt2.attention.layer_norm_epsilon).toBeCloseTo(config.layer_norm_epsilon, 12);
    expect(m.tokenizer.ggml).toMatchObject({ model: 'gpt2', pre: 'gpt-2', bos_token_id: 1023, eos_token_id: 1023, add_bos_token: false });
    const tokens: string[] = m.tokenizer.ggml.tokens;
    expect(tokens.length).toBe(config.vocab_size);
    for (const [content, id] of Object.entries(tokenizer.model.vocab as Record<string, number>)) expect(tokens[id]).toBe(content);
    expect(tokens[1023]).toBe('<|endoftext|>');
    expect(m.tokenizer.ggml.token_type[1023]).toBe(3); // CONTROL: a special added token
    expect(m.tokenizer.ggml.merges).toEqual(tokenizer.model.merges.map((x: string | string[]) => (typeof x === 'string' ? x : x.join(' '))));
    expect(files['default-f16'].info.metadata.general.file_type).toBe(1);
    expect(files['default-q8_0'].info.metadata.general.file_type).toBe(7);
  });

  it('has llama.cpp gpt2 tensors: Conv1D weights transposed to [out, in] rows, no output (tied), types by dtype', () => {
    const C = 256;
    const byName = (key: string) => new Map(files[key].info.fullTensorInfo!.map((t) => [t.name, t]));
    const f32 = byName('default-f32');
    expect(f32.size).toBe(2 + 2 * 12 + 2);
    expect(f32.has('output.weight')).toBe(false);
    expect(f32.get('token_embd.weight')!.dimensions.map(Number)).toEqual([C, 1024]);
    expect(f32.get('position_embd.weight')!.dimensions.map(Number)).toEqual([C, 128]);
    expect(f32.get('blk.0.attn_qkv.weight')!.dimensions.map(Number)).toEqual([C, 3 * C]);
    expect(f32.get('blk.1.ffn_down.weight')!.dimensions.map(Number)).toEqual([4 * C, C]);
    for (const t of f32.values()) expect(t.ggmlType).toBe(GgmlType.F32);
    const q8 = byName('default-q8_0');
    expect(q8.get('blk.0.attn_qkv.weight')!.ggmlType).toBe(GgmlType.Q8_0);
    expect(q8.get('token_embd.weight')!.ggmlType).toBe(GgmlType.Q8_0);
    // As convert_hf_to_gguf: position embeddings, norms and biases stay f32.
    for (const name of ['position_embd.weight', 'blk.0.attn_norm.weight', 'blk.0.attn_qkv.bias', 'output_norm.bias']) expect(q8.get(name)!.ggmlType).toBe(GgmlType.F32);
    expect(byName('default-f16').get('blk.1.ffn_up.weight')!.ggmlType).toBe(GgmlType.F16);
  });

  it('holds the weights: f32 exact (c_attn transposed), f16 rounded to nearest even, Q8_0 within half a step (plus d\'s float16 rounding)', () => {
    const { weights } = readGpt2Onnx(readFileSync(join(model('default'), 'onnx/model.onnx')), json(model('default'), 'config.json'));
    const C = 256;
    const cAttn = weights.get('h.0.attn.c_attn.weight')!; // [C, 3C], Conv1D
    const qkv = new Float32Array(tensorData('default-f32', 'blk.0.attn_qkv.weight', 4 * 3 * C * C).slice().buffer);
    for (const [out, inp] of [[0, 0], [5, 7], [3 * C - 1, C - 1], [400, 100]]) expect(qkv[out * C + inp]).toBe(cAttn[inp * 3 * C + out]);
    const wte = weights.get('wte.weight')!;
    const half = new Uint16Array(tensorData('default-f16', 'token_embd.weight', 2 * wte.length).slice().buffer);
    for (let i = 0; i < wte.length; i += 997) expect(half[i]).toBe(toHalfBits(wte[i]));
    const bytes = tensorData('default-q8_0', 'token_embd.weight', (wte.length / 32) * 34);
    const q = dequantizeQ8_0(bytes);
    const scales = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let b = 0; b < wte.length / 32; b++) {
      const block = wte.subarray(b * 32, (b + 1) * 32);
      const d = Math.max(...block.map(Math.abs)) / 127;
      const d16 = halfToFloat(Uint16Array.of(scales.getUint16(b * 34, true)))[0];
      // Half a step from rounding q, plus |q| ≤ 127 times d's own float16 rounding.
      for (let j = 0; j < 32; j++) expect(Math.abs(q[b * 32 + j] - block[j])).toBeLessThanOrEqual((d / 2 + 127 * Math.abs(d16 - d)) * 1.0001 + 1e-12);
    }
  });
});

describe('Llama and Qwen2 layouts', () => {
  it('Llama: q and k rows permuted to interleaved RoPE pairs (convert_hf_to_gguf LlamaModel.permute), GQA heads and metadata', () => {
    const dir = model('tiny-llama');
    const config = json(dir, 'config.json');
    const m = files['tiny-llama-f32'].info.metadata as any;
    expect(m.general.architecture).toBe('llama');
    expect(m.llama.attention).toMatchObject({ head_count: config.num_attention_heads, head_count_kv: config.num_key_value_heads, key_length: config.head_dim });
    expect(m.llama.rope).toMatchObject({ dimension_count: config.head_dim, freq_base: config.rope_theta });
    const { weights } = readLlamaOnnx(readFileSync(join(dir, 'onnx/model.onnx')), config);
    const C = config.hidden_size;
    const D = config.head_dim;
    const k = weights.get('model.layers.1.self_attn.k_proj.weight')!; // [KV·D, C]
    const stored = new Float32Array(tensorData('tiny-llama-f32', 'blk.1.attn_k.weight', 4 * k.length).slice().buffer);
    // Head h, rotate-half row t·D/2 + j → row 2j + t.
    for (const [h, t, j] of [[0, 0, 0], [0, 1, 0], [1, 0, 3], [1, 1, 2]]) {
      const from = (h * D + t * (D / 2) + j) * C;
      const to = (h * D + 2 * j + t) * C;
      expect(Array.from(stored.subarray(to, to + C))).toEqual(Array.from(k.subarray(from, from + C)));
    }
    const v = weights.get('model.layers.1.self_attn.v_proj.weight')!;
    expect(new Float32Array(tensorData('tiny-llama-f32', 'blk.1.attn_v.weight', 4 * v.length).slice().buffer)).toEqual(v); // v is not permuted
  });

  it('permuteRope is the permutation of LlamaModel.permute on a [heads·D, cols] matrix', () => {
    // reshape(H, 2, D/2, cols).swapaxes(1, 2): rows (h, t, j) → (h, j, t); 2 heads, D 4, 1 column.
    expect(Array.from(permuteRope(Float32Array.from([0, 1, 2, 3, 4, 5, 6, 7]), 2, 1))).toEqual([0, 2, 1, 3, 4, 6, 5, 7]);
  });

  it('Qwen2: q/k/v biases, no permutation, its eos; Q8_0 falls back to f16 where a row is not whole blocks', () => {
    const info = files['tiny-qwen2-q8_0'].info;
    const m = info.metadata as any;
    expect(m.general.architecture).toBe('qwen2');
    expect(m.tokenizer.ggml).toMatchObject({ eos_token_id: 265, bos_token_id: 263 });
    const byName = new Map(info.fullTensorInfo!.map((t) => [t.name, t]));
    expect(byName.get('blk.0.attn_q.bias')!.dimensions.map(Number)).toEqual([64]);
    expect(byName.get('blk.0.attn_q.weight')!.ggmlType).toBe(GgmlType.Q8_0); // rows of 64
    expect(byName.get('blk.0.ffn_down.weight')!.ggmlType).toBe(GgmlType.Q8_0); // rows of 160 = 5 blocks
    expect(files['tiny-llama-f32'].info.fullTensorInfo!.length).toBeGreaterThan(0);
  });
});

describe('Q8_0 blocks as ggml-quants.c writes them', () => {
  it('d = max|x| / 127 as f16, q = roundf(x / d) half away from zero', () => {
    const x = Float32Array.from({ length: 32 }, (_, j) => (j - 16) * 0.5); // max |x| = 8
    const bytes = quantizeQ8_0(x, 32);
    expect(bytes.length).toBe(34);
    const view = new DataView(bytes.buffer);
    expect(view.getUint16(0, true)).toBe(toHalfBits(Math.fround(8 / 127)));
    const id = Math.fround(1 / Math.fround(8 / 127));
    for (let j = 0; j < 32; j++) {
      const v = Math.fround(x[j] * id);
      expect(view.getInt8(2 + j)).toBe(Math.sign(v) * Math.floor(Math.abs(v) + 0.5));
    }
    expect(view.getInt8(2)).toBe(-127);
    expect(Array.from(quantizeQ8_0(new Float32Array(32), 32))).toEqual(new Array(34).fill(0)); // an all-zero block: d 0, q 0
    expect(() => quantizeQ8_0(new Float32Array(48), 48)).toThrow(/multiple of 32/);
  });
});

describe('refusals: one line naming the thing, nothing written', () => {
  it('an unknown format or dtype, a model type it does not write, a folder without model.onnx', async () => {
    const out = join(work, 'refused');
    await expect(convertCommand(model('default'), { to: 'onnx', out: join(out, 'a.gguf') })).rejects.toThrow(/^convert: --to onnx is not a format it writes \(gguf\)$/);
    await expect(convertCommand(model('default'), { to: 'gguf', dtype: 'q4_0', out: join(out, 'b.gguf') })).rejects.toThrow(/^convert: --dtype q4_0 is not one of f32, f16, q8_0$/);
    const bert = join(work, 'bert');
    cpSync(model('default'), bert, { recursive: true });
    writeFileSync(join(bert, 'config.json'), JSON.stringify({ ...json(model('default'), 'config.json'), model_type: 'gptj', architectures: ['GPTJForCausalLM'] }));
    await expect(convertCommand(bert, { to: 'gguf', out: join(out, 'c.gguf') })).rejects.toThrow(/^convert .*bert: config\.json: model_type "gptj"; convert --to gguf writes gpt2, llama and qwen2$/);
    rmSync(join(bert, 'onnx'), { recursive: true });
    writeFileSync(join(bert, 'config.json'), JSON.stringify(json(model('default'), 'config.json')));
    await expect(convertCommand(bert, { to: 'gguf', out: join(out, 'd.gguf') })).rejects.toThrow(/cannot read onnx\/model\.onnx/);
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]); // no .gguf and no .partial left
  });
});
