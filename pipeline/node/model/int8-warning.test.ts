/**
 * The loader warns when an int8 export has full-range MatMul weights and the CPU's int8 matmuls saturate
 * (onnx/int8-range.ts): once per load, in one line, once per annotate run however many worker processes load it,
 * and never for the project's own 7-bit q8 file.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toExternalData } from '../../onnx/external-data.ts';
import { int8WeightRange, S8_MAX } from '../../onnx/int8-range.ts';
import { decodeModel, encodeModel, T } from '../../onnx/onnx-edit.ts';
import { int8PairsSaturate, int8PairsSaturateFromCpuinfo } from './cpu-int8.ts';
import { loadModel } from './load-model.ts';
import { runCli } from '../testing/cli-child.ts';

let root: string;
let fullRange: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'int8-warning-'));
  // models/default with its q8 file changed in one weight of the first MatMulInteger: 127, as an export without
  // reduce_range would store its largest weight.
  fullRange = join(root, 'full-range');
  await cp('models/default', fullRange, { recursive: true });
  const file = join(fullRange, 'onnx/model_quantized.onnx');
  const proto = decodeModel(await readFile(file));
  const name = proto.graph!.node!.find((n) => n.opType === 'MatMulInteger')!.input![1];
  const weight = proto.graph!.initializer!.find((t) => t.name === name)!;
  expect(weight.dataType).toBe(T.INT8);
  weight.rawData![7] = 127;
  await writeFile(file, encodeModel(proto));
}, 120_000);
afterAll(() => rm(root, { recursive: true, force: true }));

async function warnings(dir: string, saturates: boolean): Promise<string[]> {
  const lines: string[] = [];
  const lm = await loadModel(dir, { dtype: 'q8', int8PairsSaturate: saturates, onWarning: (line) => lines.push(line) });
  await lm.release();
  return lines;
}

describe('int8 exports on CPUs whose int8 matmuls saturate', () => {
  it('a full-range weight is found among the int8 MatMul weights; the bundled q8 has none', async () => {
    const dir = join(fullRange, 'onnx');
    const read = async (location: string, offset: number, length: number) =>
      new Uint8Array(await readFile(join(dir, location))).subarray(offset, offset + length);
    const own = await int8WeightRange(decodeModel(await readFile('models/default/onnx/model_quantized.onnx')), read);
    expect(own.weights).toBeGreaterThan(4);
    expect(own.fullRange).toEqual([]);
    const changed = await int8WeightRange(decodeModel(await readFile(join(dir, 'model_quantized.onnx'))), read);
    expect(changed.weights).toBe(own.weights);
    expect(changed.fullRange).toHaveLength(1);
    expect(S8_MAX).toBe(64);
  });

  it('loading it (its weights read through the external-data references the loader makes) warns in one line on such a CPU, not on another; the bundled q8 never warns', async () => {
    const [line, ...more] = await warnings(fullRange, true);
    expect(more).toEqual([]);
    expect(line).toMatch(/^warning: onnx\/model_quantized\.onnx: 1 of \d+ int8 MatMul weights use the full 8-bit range .*this CPU .*--dtype fp32/);
    expect(line).not.toContain('\n');
    expect(await warnings(fullRange, false)).toEqual([]);
    expect(await warnings('models/default', true)).toEqual([]);
  }, 120_000);

  it('an export whose weights sit in an external `_data` file (the layout of large Hugging Face exports) warns the same', async () => {
    const external = join(root, 'external-data');
    await cp(fullRange, external, { recursive: true });
    const file = join(external, 'onnx/model_quantized.onnx');
    const { model, data, location } = toExternalData(new Uint8Array(await readFile(file)), 'model_quantized.onnx_data');
    await writeFile(file, model);
    await writeFile(join(external, 'onnx', location), data);
    expect(decodeModel(model).graph!.initializer!.filter((t) => t.dataType === T.INT8 && t.externalData?.length).length).toBeGreaterThan(4);
    const [line, ...more] = await warnings(external, true);
    expect(more).toEqual([]);
    expect(line).toMatch(/^warning: onnx\/model_quantized\.onnx: 1 of \d+ int8 MatMul weights use the full 8-bit range/);
  }, 120_000);

  it('checkInt8Range: false (a pool worker, whose parent warned) does not warn', async () => {
    const lines: string[] = [];
    const lm = await loadModel(fullRange, { dtype: 'q8', int8PairsSaturate: true, checkInt8Range: false, onWarning: (line) => lines.push(line) });
    await lm.release();
    expect(lines).toEqual([]);
  }, 120_000);

  it('an annotate run with two worker processes says it once, from the parent, on a CPU that saturates (none on one that does not)', async () => {
    const sample = (await readFile('corpus/sample.jsonl', 'utf8')).trim().split('\n');
    await writeFile(join(root, 'two.jsonl'), sample.slice(0, 2).join('\n') + '\n');
    const run = await runCli(
      ['annotate', 'two.jsonl', '--model', fullRange, '--dtype', 'q8', '--out', 'annotated', '--tools', 'Calculator', '--m', '2', '--workers', '2', '--chunk', '1', '--quiet'],
      root,
    );
    expect(run.code).toBe(0);
    const said = run.stderr.split('\n').filter((line) => line.startsWith('warning: onnx/model_quantized.onnx:'));
    // This process's CPU is the child's: before the fix each of the two workers said it too (three lines).
    expect(said).toHaveLength(int8PairsSaturate() === false ? 0 : 1);
    const config = JSON.parse(await readFile(join(root, 'annotated/config.json'), 'utf8'));
    expect(config.modelDtype).toBe('q8');
  }, 600_000);

  it('reads the CPU from /proc/cpuinfo flags: VNNI (AVX-512 or AVX) or not', () => {
    expect(int8PairsSaturateFromCpuinfo('processor\t: 0\nflags\t\t: fpu sse2 avx2 fma\n')).toBe(true);
    expect(int8PairsSaturateFromCpuinfo('flags\t\t: fpu avx2 avx512f avx512_vnni\n')).toBe(false);
    expect(int8PairsSaturateFromCpuinfo('flags\t\t: fpu avx2 avx_vnni\n')).toBe(false);
    expect(int8PairsSaturateFromCpuinfo('Features\t: fp asimd\n')).toBeUndefined();
  });
});
