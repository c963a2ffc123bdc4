/**
 * Directories the loader refuses, each in one line that says what the directory has and what would work: only the
 * legacy decoder_model_merged.onnx, an operator ONNX Runtime cannot run, a hybrid cache, an input it cannot feed.
 */
import { cp, mkdtemp, rename, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import onnxProto from 'onnx-proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TINY_LLAMA_DIR } from '../../onnx-export/tiny-llama.ts';
import { writeReplicas } from '../../onnx-export/replicas.ts';
import { loadModel } from './load-model.ts';

const { onnx } = onnxProto;
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'load-formats-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** A copy of tiny-llama whose onnx/model.onnx is rewritten by `edit`. */
async function editedCopy(name: string, edit: (graph: onnxProto.onnx.IGraphProto) => void): Promise<string> {
  const dir = join(root, name);
  await cp(TINY_LLAMA_DIR, dir, { recursive: true });
  const proto = onnx.ModelProto.decode(await readFile(join(dir, 'onnx/model.onnx')));
  edit(proto.graph!);
  await writeFile(join(dir, 'onnx/model.onnx'), onnx.ModelProto.encode(proto).finish());
  return dir;
}

const input = (name: string, elemType: number, dims: (number | string)[]) => ({
  name,
  type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } } },
});

async function refusal(dir: string, dtype?: 'fp32' | 'q4f16' | 'q4'): Promise<string> {
  const error = await loadModel(dir, { dtype }).then(
    () => null,
    (e: Error) => e,
  );
  expect(error).toBeInstanceOf(Error);
  const message = error!.message;
  expect(message).not.toContain('\n');
  return message;
}

describe('loadModel refuses in one line', () => {
  it('a directory with only the legacy onnx/decoder_model_merged.onnx', async () => {
    const dir = join(root, 'legacy');
    await cp(TINY_LLAMA_DIR, dir, { recursive: true });
    await rename(join(dir, 'onnx/model.onnx'), join(dir, 'onnx/decoder_model_merged.onnx'));
    const message = await refusal(dir);
    expect(message).toContain('missing onnx/model.onnx (it has only the legacy onnx/decoder_model_merged.onnx of older exports');
    expect(message).toContain('onnx/{decoder_model_merged.onnx}');
  });

  it('a dtype the directory lacks, naming the dtypes it has', async () => {
    const dir = join(root, 'q4-only');
    await writeReplicas(dir, { dtypes: ['q4', 'bnb4'] });
    expect(await refusal(dir, 'q4f16')).toContain('missing onnx/model_q4f16.onnx (--dtype q4f16; this model has --dtype q4, bnb4)');
  });

  it('an operator ONNX Runtime does not know, naming it and the other dtypes', async () => {
    const dir = join(root, 'unknown-op');
    await writeReplicas(dir, { dtypes: ['fp32', 'q4'] });
    const file = join(dir, 'onnx/model_q4.onnx');
    const proto = onnx.ModelProto.decode(await readFile(file));
    for (const node of proto.graph!.node!) if (node.opType === 'MatMulNBits') node.opType = 'MatMulNBitsV9';
    await writeFile(file, onnx.ModelProto.encode(proto).finish());
    const message = await refusal(dir, 'q4');
    expect(message).toContain('onnx/model_q4.onnx uses the operator com.microsoft:MatMulNBitsV9, which onnxruntime-node 1.30.0 cannot run');
    expect(message).toContain('try --dtype fp32');
  });

  it('a hybrid cache (LFM2-style past_conv inputs)', async () => {
    const dir = await editedCopy('hybrid', (g) => g.input!.push(input('past_conv.0', onnx.TensorProto.DataType.FLOAT, ['batch_size', 48, 3])));
    expect(await refusal(dir)).toContain('onnx/model.onnx has a hybrid cache (past_conv.0): this runtime feeds only past_key_values.{i}.key|value');
  });

  it('an input it cannot feed', async () => {
    const dir = await editedCopy('extra-input', (g) => g.input!.push(input('token_type_ids', onnx.TensorProto.DataType.INT64, ['batch_size', 'sequence_length'])));
    expect(await refusal(dir)).toContain('onnx/model.onnx takes input token_type_ids, which this runtime cannot feed');
  });
});
