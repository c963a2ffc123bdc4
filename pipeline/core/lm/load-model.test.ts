// The one loading sequence (core/lm/load-model.ts) with a source that is not the Node directory loader's: the whole
// ONNX file in memory, as the web worker hands it over. Run on onnxruntime-node with models/tiny-random.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../node/model/load-model.ts';
import { TINY_RANDOM_DIR } from '../../onnx-export/tiny-random.ts';
import { loadOrtModel, readOnce, type ModelSource, type OnnxFile } from './load-model.ts';
import type { HiddenStateLM } from './lm.ts';
import type { OrtModule } from './ort-lm.ts';
import { withDecoderFeeds } from './wrap-decoder.ts';

/** The folder read whole into memory, counting ONNX reads. */
function memorySource(dir: string): ModelSource & { onnxReads: number } {
  const source = {
    id: `memory:${dir}`,
    onnxReads: 0,
    async json(path: string, optional = false) {
      const text = await readFile(join(dir, path), 'utf8').catch(() => undefined);
      if (text === undefined && !optional) throw new Error(`no ${path}`);
      return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
    },
    async onnx(file: string): Promise<OnnxFile> {
      source.onnxReads++;
      return { model: new Uint8Array(await readFile(join(dir, file))), sessionOptions: {} };
    },
  };
  return source;
}

const IDS = [10, 20, 30, 40, 50, 60];

describe('loadOrtModel: one sequence, the platform passes the source', () => {
  it('a model read whole from memory scores as the directory loader does, and says what its folder described', async () => {
    const viaDirectory = await loadModel(TINY_RANDOM_DIR);
    const source = memorySource(TINY_RANDOM_DIR);
    const { lm, model } = await loadOrtModel(ort as unknown as OrtModule, source);
    expect(model.file).toBe('onnx/model.onnx');
    expect(lm.id).toBe(source.id);
    const [a] = await viaDirectory.score([{ ids: IDS, probe: 5 }]);
    const [b] = await lm.score([{ ids: IDS, probe: 5 }]);
    for (let t = 1; t < IDS.length; t++) {
      expect(Math.abs(a.tokenLogProbs[t] - b.tokenLogProbs[t])).toBeLessThan(1e-5);
      expect(Math.abs(a.probeLogProbs![t] - b.probeLogProbs![t])).toBeLessThan(1e-5);
    }
    await Promise.all([viaDirectory.release(), lm.release()]);
  });

  it('an unknown dtype is refused through the platform`s refusal, before any ONNX byte is read', async () => {
    const source = memorySource(TINY_RANDOM_DIR);
    const refuse = (problem: string): never => {
      throw new Error(`refused: ${problem}`);
    };
    await expect(loadOrtModel(ort as unknown as OrtModule, source, { dtype: 'fp8', refuse })).rejects.toThrow(/unknown dtype fp8/);
    expect(source.onnxReads).toBe(0);
  });

  it('readOnce: a second load through the same wrapper reads the ONNX file once', async () => {
    const source = memorySource(TINY_RANDOM_DIR);
    const once = readOnce(source);
    const first = await loadOrtModel(ort as unknown as OrtModule, once);
    const second = await loadOrtModel(ort as unknown as OrtModule, once, { lm: { logProbs: 'js' } });
    expect(source.onnxReads).toBe(1);
    await Promise.all([first.lm.release(), second.lm.release()]);
  });
});

describe('withDecoderFeeds: the LM as it is, with its decoder feeds counted', () => {
  it('counts every token fed after the prompt and passes every other member through, a HiddenStateLM`s too', async () => {
    const lm = (await loadModel(TINY_RANDOM_DIR, { lm: { hiddenStates: true } })) as unknown as HiddenStateLM;
    const seen: number[] = [];
    const counted = withDecoderFeeds(lm, (total) => seen.push(total));
    expect(counted.id).toBe(lm.id);
    expect(counted.hiddenSize).toBe(lm.hiddenSize);
    expect(counted.encode('hello world')).toEqual(lm.encode('hello world'));
    const state = await counted.openDecoder([1, 2, 3]);
    await state.feed([4]);
    await state.feed([5, 6]);
    expect(seen).toEqual([1, 3]);
    expect(state.length).toBe(6);
    expect(state.hidden?.length).toBe(lm.hiddenSize);
    const plain = await lm.openDecoder([1, 2, 3, 4, 5, 6]);
    // The same logits as one decoder fed everything as its prompt (KV-cache steps round differently: within 1e-4).
    const most = Math.max(...Array.from(state.logits, (x, v) => Math.abs(x - plain.logits[v])));
    expect(most).toBeLessThan(1e-4);
    state.release?.();
    plain.release?.();
  });
});
