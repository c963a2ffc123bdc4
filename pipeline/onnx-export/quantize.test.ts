import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { scorePositions, type PositionToScore } from '../core/scoring/scoring.ts';
import { loadModel } from '../node/model/load-model.ts';
import { CONVERTERS, convertToFp16, quantizeDynamicInt8, toHalfBits } from './quantize.ts';
import { MODELS_DIR } from './tiny-llama.ts';

describe('toHalfBits', () => {
  it('rounds float32 to IEEE half to nearest even', () => {
    expect(toHalfBits(1)).toBe(0x3c00);
    expect(toHalfBits(-2)).toBe(0xc000);
    expect(toHalfBits(0.1)).toBe(0x2e66);
    expect(toHalfBits(65504)).toBe(0x7bff);
    expect(toHalfBits(1e6)).toBe(0x7c00);
    expect(toHalfBits(2 ** -24)).toBe(0x0001); // smallest subnormal
    expect(toHalfBits(1e-9)).toBe(0);
    expect(toHalfBits(1 + 2 ** -11)).toBe(0x3c00); // halfway: to even
    expect(toHalfBits(1 + 3 * 2 ** -11)).toBe(0x3c02);
  });
});

const cases = JSON.parse(readFileSync(join(import.meta.dirname, '../onnx/golden/cases.json'), 'utf8')) as {
  scoring: { text: string; at: number; separator: string; calls: { callOnly: string; withResult: string }[] }[];
};
const ops = (model: Uint8Array) => new Set(onnxProto.onnx.ModelProto.decode(model).graph!.node!.map((n) => n.opType!));

describe('models/default in fp16 and q8', () => {
  const fp32 = readFileSync(join(MODELS_DIR, 'default/onnx/model.onnx'));

  it.each(Object.entries(CONVERTERS))('onnx/%s is what pipeline/onnx-export/quantize.ts makes from model.onnx', (_dtype, { file, convert }) => {
    expect(Buffer.from(convert(fp32)).equals(readFileSync(join(MODELS_DIR, 'default/onnx', file)))).toBe(true);
  });

  it('fp16 stores float16 matrices with Casts; q8 has int8 MatMulIntegers and is the smallest', () => {
    const [half, q8] = [convertToFp16(fp32), quantizeDynamicInt8(fp32)];
    expect(ops(half).has('Cast')).toBe(true);
    expect([...ops(q8)]).toEqual(expect.arrayContaining(['DynamicQuantizeLinear', 'MatMulInteger']));
    expect(half.length).toBeLessThan(0.51 * fp32.length);
    expect(q8.length).toBeLessThan(half.length);
  });

  it('scores the golden calls close to fp32: fp16 within 2e-3 nats, q8 within 0.5 (measured in npm run bench)', async () => {
    const losses: Record<string, number[]> = {};
    for (const dtype of ['fp32', 'fp16', 'q8'] as const) {
      const lm = await loadModel(join(MODELS_DIR, 'default'), { dtype });
      const positions: PositionToScore[] = cases.scoring.map((c) => ({
        window: { prefix: lm.encode(c.text.slice(0, c.at)), next: lm.encode(c.text.slice(c.at)).slice(0, 5), separator: c.separator },
        calls: c.calls,
      }));
      losses[dtype] = (await scorePositions(lm, positions)).flatMap((p) => p.losses.flatMap((l) => [l.noCall, l.callOnly, l.withResult]));
      await lm.release();
    }
    const worst = (d: string) => Math.max(...losses[d].map((x, i) => Math.abs(x - losses.fp32[i])));
    expect(worst('fp16')).toBeLessThan(2e-3);
    expect(worst('fp16')).toBeGreaterThan(0); // it is a different model, not the fp32 file
    expect(worst('q8')).toBeLessThan(0.5);
  });
});
