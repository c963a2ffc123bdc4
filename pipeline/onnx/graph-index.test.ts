import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { indexGraph } from './graph-index.ts';
import { TINY_LLAMA_DIR } from '../onnx-export/tiny-llama.ts';

const { onnx } = onnxProto;

describe('indexGraph', async () => {
  const file = join(TINY_LLAMA_DIR, 'onnx/model.onnx');
  const bytes = await readFile(file);
  let reads = 0;
  const read = async (offset: number, length: number) => {
    reads++;
    return bytes.subarray(offset, offset + length);
  };
  const index = await indexGraph(read, bytes.length, 'model.onnx');

  it('keeps the graph and points every large initializer at its raw_data in the file', () => {
    const [before, after] = [onnx.ModelProto.decode(bytes), onnx.ModelProto.decode(index.model)];
    expect(after.graph!.node).toEqual(before.graph!.node);
    expect(after.graph!.input).toEqual(before.graph!.input);
    expect(after.graph!.output).toEqual(before.graph!.output);
    expect(after.opsetImport).toEqual(before.opsetImport);
    expect(index.model.length).toBeLessThan(bytes.length / 10);
    let moved = 0;
    after.graph!.initializer!.forEach((t, i) => {
      const original = before.graph!.initializer![i];
      expect([t.name, t.dims, t.dataType]).toEqual([original.name, original.dims, original.dataType]);
      if (t.dataLocation !== onnx.TensorProto.DataLocation.EXTERNAL) {
        expect(Buffer.from(t.rawData!).equals(Buffer.from(original.rawData!))).toBe(true);
        return;
      }
      moved++;
      const kv = Object.fromEntries(t.externalData!.map((e) => [e.key, e.value]));
      expect(kv.location).toBe('model.onnx');
      const at = Number(kv.offset);
      expect(Buffer.from(bytes.subarray(at, at + Number(kv.length))).equals(Buffer.from(original.rawData!))).toBe(true);
    });
    expect(moved).toBe(index.external);
    expect(moved).toBeGreaterThan(10);
  });

  it('reads the file in a few small windows, not whole', () => {
    expect(reads).toBeLessThan(index.external + 5);
  });

  it('loads in ONNX Runtime with the folder as the external-data path and gives the same logits', async () => {
    const folder = join(TINY_LLAMA_DIR, 'onnx');
    const [plain, indexed] = await Promise.all([
      ort.InferenceSession.create(file),
      ort.InferenceSession.create(index.model, { extra: { session: { model_external_initializers_file_folder_path: folder } } }),
    ]);
    const T = 4;
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', BigInt64Array.of(3n, 1n, 4n, 1n), [1, T]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(T).fill(1n), [1, T]),
      position_ids: new ort.Tensor('int64', BigInt64Array.of(0n, 1n, 2n, 3n), [1, T]),
    };
    for (let i = 0; i < 2; i++) for (const kv of ['key', 'value']) feeds[`past_key_values.${i}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [1, 2, 0, 8]);
    const [a, b] = [(await plain.run(feeds)).logits.data, (await indexed.run(feeds)).logits.data];
    expect(Array.from(b as Float32Array)).toEqual(Array.from(a as Float32Array));
    await Promise.all([plain.release(), indexed.release()]);
  });

  it('says where a truncated file ends', async () => {
    const cut = bytes.subarray(0, 5000);
    await expect(indexGraph(async (o, n) => cut.subarray(o, o + n), cut.length, 'model.onnx')).rejects.toThrow(/ONNX file: .* (past the end|truncated)/);
  });
});
