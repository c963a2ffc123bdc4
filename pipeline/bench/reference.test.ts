import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrtCausalLM, OrtModule } from '../core/lm/ort-lm.ts';
import { scorePositions } from '../core/scoring/scoring.ts';
import { loadModel } from '../node/model/load-model.ts';
import { TINY_RANDOM_DIR } from '../onnx-export/tiny-random.ts';
import { referenceScorer } from './reference.ts';
import { buildWorkload, corpusDocs, type Workload } from './workload.ts';

/**
 * The optimised scorer (batched, bucketed, L_a shared, log-prob head inside the decoder graph, only the scored
 * positions through the LM head) gives the paper-literal scorer's losses within 1e-5 nats, on real candidates
 * from the sample corpus and the committed tiny-random model.
 */
let lm: OrtCausalLM;
let lmGraph: OrtCausalLM;
let bare: ort.InferenceSession;
let workload: Workload;

beforeAll(async () => {
  lm = await loadModel(TINY_RANDOM_DIR);
  lmGraph = await loadModel(TINY_RANDOM_DIR, { lm: { logProbs: 'graph' } });
  bare = await ort.InferenceSession.create(readFileSync(join(TINY_RANDOM_DIR, 'onnx/model.onnx')));
  workload = await buildWorkload(lm, corpusDocs('corpus/sample.jsonl', 4, 1));
}, 60_000);
afterAll(async () => {
  await lm.release();
  await lmGraph.release();
  await bare.release();
});

describe('optimised scorer vs paper-literal reference', () => {
  it('has real candidates to compare', () => {
    expect(workload.calls).toBeGreaterThanOrEqual(20);
    expect(workload.positions).toBeLessThan(workload.calls); // several calls share a position, so L_a is shared
  });

  it.each([
    ['log-prob head in the decoder graph (default)', () => lm],
    ['separate log-softmax graph', () => lmGraph],
  ])('%s: losses equal within 1e-5', async (_, which) => {
    const positions = workload.docs.flatMap((d) => d.positions);
    const reference = referenceScorer(ort as unknown as OrtModule, bare, lm, lm.spec);
    const expected = await reference.score(positions);
    const actual = await scorePositions(which(), positions, { batchSize: 7 });
    expect(reference.counts.forwards).toBe(3 * workload.calls);
    let compared = 0;
    expected.forEach((p, i) => {
      expect(Math.abs(actual[i].noCall - p.noCall)).toBeLessThan(1e-5);
      p.losses.forEach((l, j) => {
        const a = actual[i].losses[j];
        for (const k of ['noCall', 'callOnly', 'withResult'] as const) expect(Math.abs(a[k] - l[k])).toBeLessThan(1e-5);
        compared++;
      });
    });
    expect(compared).toBe(workload.calls);
  });

  it('forwards each distinct sequence once, up to its last scored token: L_a once per position', async () => {
    const positions = workload.docs.flatMap((d) => d.positions);
    const forwarded = async (which: OrtCausalLM) => {
      let tokens = 0;
      which.onScoreBatch = (b) => (tokens += b.tokens);
      await scorePositions(which, positions);
      which.onScoreBatch = undefined;
      return tokens;
    };
    const bos = lm.bosId === undefined ? 0 : 1;
    let sequences = 0;
    for (const p of positions) {
      const text = p.window.prefix.length + p.window.next.length;
      sequences += bos + text - 1;
      for (const c of p.calls) {
        for (const call of [c.callOnly, c.withResult]) sequences += bos + lm.encode(call + p.window.separator).length + text - 1;
      }
    }
    expect(await forwarded(lm)).toBe(sequences);
    expect(await forwarded(lmGraph)).toBe(sequences);
  });
});
