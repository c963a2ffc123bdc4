/**
 * The committed parity results (results/gguf-parity.json and gguf-parity-quantized.json, written by gguf-parity.ts) against a fresh measurement of
 * its worked cases: models/default through ONNX Runtime and through llama.cpp at f32, f16 and q8_0, the L_a, L_b, L_c
 * of `toolformer score`'s two worked calls — the same numbers again (within 1e-5), and the annotate comparison's
 * counts consistent with themselves (the flipped calls listed).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GGUF_DTYPES } from '../gguf/gguf-tensors.ts';
import { convertCommand } from '../node/commands/convert-command.ts';
import { loadModel } from '../node/model/load-model.ts';
import { DEFAULT_MODEL } from '../node/system/package-paths.ts';
import { workedLosses } from './gguf-parity.ts';
import { loadLlamaCpp } from '../node/model/lm-backends/llama-cpp.ts';

// f32 over the whole sample (npm start's run); f16 and q8_0 over its first 10 documents, measured in a second process.
const files = ['results/gguf-parity.json', 'results/gguf-parity-quantized.json'].map((f) => JSON.parse(readFileSync(join(import.meta.dirname, f), 'utf8')));
const result = { ort: files[0].ort, llamaCpp: Object.assign({}, ...files.map((f) => f.llamaCpp)) };
const work = mkdtempSync(join(tmpdir(), 'gguf-parity-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const close = (a: number[][], b: number[][], tolerance: number) => a.flat().every((x, i) => Math.abs(x - b.flat()[i]) <= tolerance);

describe('results/gguf-parity*.json', () => {
  it('ORT: the worked cases give the recorded L_a, L_b, L_c', async () => {
    expect(close(await workedLosses(await loadModel(DEFAULT_MODEL)), result.ort.workedLosses, 1e-5)).toBe(true);
  }, 300_000);

  it.each(GGUF_DTYPES.filter((d) => result.llamaCpp[d]))('llama.cpp %s: the worked cases give the recorded losses; the annotate counts hold together', async (dtype) => {
    const recorded = result.llamaCpp[dtype];
    const file = await convertCommand(DEFAULT_MODEL, { to: 'gguf', dtype, out: join(work, `${dtype}.gguf`) });
    const lm = await loadLlamaCpp(file, { threads: 1 });
    try {
      const losses = await workedLosses(lm);
      expect(close(losses, recorded.workedLosses, 1e-5)).toBe(true);
      const delta = Math.max(...losses.flat().map((x, i) => Math.abs(x - result.ort.workedLosses.flat()[i])));
      expect(delta).toBeCloseTo(recorded.workedMaxAbsDelta, 4);
    } finally {
      await lm.release();
    }
    const a = recorded.annotate;
    expect(a.samePlanCalls ?? a.scoredBoth).toBeGreaterThan(50); // a comparison of a handful of calls would prove little
    expect(a.flips).toBe(a.flipped.length);
  }, 300_000);
});
