import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { formatCall, parseCall } from '../call-syntax.ts';
import type { CausalLM } from '../lm/lm.ts';
import type { OrtCausalLM } from '../lm/ort-lm.ts';
import { FakeLM } from '../testing/fake-lm.ts';
import { loadModel } from '../../node/model/load-model.ts';
import { loadLabelledSet } from '../../eval/data-quality/labels.ts';
import { inlineCallIds, scoreLossesInline, scorePositionsInline } from './inline-scoring.ts';
import { PAPER_WEIGHTS, weightedLoss } from './losses.ts';
import { makeWindow, type PositionToScore, scorePositionsTwoPass } from './scoring.ts';
import { planWindow } from './window.ts';

/** A fake LM that predicts "42" well only right after a call that returned it: the call must be INLINE, just before. */
const rightAfterCall = () =>
  new FakeLM((context, next) => {
    const after = context.endsWith('-> 42] ') ? 0 : context.endsWith('-> 42] 4') ? 1 : -1;
    return after < 0 ? undefined : next === '42'[after] ? 0.9 : undefined;
  });

describe('scorePositionsInline (fake LM, hand-known probabilities)', () => {
  const text = 'The answer is 42.';
  const at = text.indexOf(' 42');
  const calls = [{ callOnly: '[Calculator(6 * 7) -> ]', withResult: '[Calculator(6 * 7) -> 42]' }];

  it('scores the call between x_{1:i−1} and x_i, as x* writes it (" " + call)', async () => {
    const lm = rightAfterCall();
    const window = makeWindow(lm, text, at, { contextTokens: 64, span: 5 });
    expect(lm.decode(window.next)).toBe(' 42.');
    const [inline] = await scorePositionsInline(lm, [{ window, calls }]);
    const uniform = Math.log(1 / 128);
    // L_a, L_b: every token uniform. L_c: " " uniform, then "4" and "2" at 0.9 right after "-> 42]" (FakeLM spreads the
    // rest of the mass over the other 127 tokens, so the uniform ones are 1/128 only where no token is explicit).
    const w = PAPER_WEIGHTS;
    expect(inline.noCall).toBeCloseTo(-uniform * (w[0] + w[1] + w[2] + w[3]), 6);
    expect(inline.losses[0]).toMatchObject({ noCall: inline.noCall });
    expect((inline.losses[0] as { callOnly: number }).callOnly).toBeCloseTo(inline.noCall, 6);
    expect(inline.losses[0].withResult).toBeLessThan(inline.noCall - 1);
    // As a prefix (the paper's placement for an untrained model), the same call does not sit right before "42".
    const [prefix] = await scorePositionsTwoPass(lm, [{ window, calls }]);
    expect(prefix.losses[0].withResult).toBeCloseTo(inline.noCall, 6);
  });

  it('two passes: L_b skipped where L_a − L_c is below callOnlyFrom, L_a and L_c unchanged', async () => {
    const lm = rightAfterCall();
    const window = makeWindow(lm, text, at, { contextTokens: 64, span: 5 });
    const [all] = await scorePositionsInline(lm, [{ window, calls }]);
    const [some] = await scorePositionsInline(lm, [{ window, calls: [{ ...calls[0], callOnlyFrom: 100 }] }]);
    expect(some.losses[0]).toEqual({ noCall: all.noCall, withResult: all.losses[0].withResult });
  });
});

/** The reference: each loss from its whole sequence [bos] x_{1:i−1} e(c, ·) x_i … through score(), no shared cache. */
async function naiveInline(lm: CausalLM, p: PositionToScore, callText: string | null): Promise<number> {
  const call = callText === null ? [] : inlineCallIds(lm, callText);
  const ids = [...(lm.bosId === undefined ? [] : [lm.bosId]), ...p.window.prefix, ...call, ...p.window.next];
  const from = ids.length - p.window.next.length;
  const [r] = await lm.score([{ ids }]);
  return weightedLoss(r.tokenLogProbs, from, PAPER_WEIGHTS);
}

describe('scorePositionsInline on models/toolformer (the finetuned model) and the hand-labelled passages', () => {
  let lm: OrtCausalLM;
  let lmGraph: OrtCausalLM;
  let positions: PositionToScore[];
  beforeAll(async () => {
    const dir = resolve(import.meta.dirname, '../../../models/toolformer');
    lm = await loadModel(dir);
    lmGraph = await loadModel(dir, { lm: { logProbs: 'graph' } });
    // The first 8 labelled passages: the label's call with its true result, and with a wrong one, at the label's offset.
    positions = loadLabelledSet()
      .filter((p) => p.labels.length > 0)
      .slice(0, 8)
      .map((p) => {
        const label = p.labels[0];
        const parsed = parseCall(label.call);
        if (!parsed.ok) throw new Error(parsed.error);
        const quoted = /^\w+\("/.test(label.call);
        const texts = (result: string) => ({ callOnly: formatCall(parsed.call, { quoted, result: '' }), withResult: formatCall(parsed.call, { quoted, result }) });
        const calls = [texts(label.result), texts('17')];
        const plan = planWindow(lm, p.text, label.at, calls.map((c) => c.withResult), { contextTokens: 96 });
        if (!plan) throw new Error(`${p.id}: no room`);
        return { window: plan.window, calls };
      });
  });
  afterAll(async () => {
    await lm.release();
    await lmGraph.release();
  });

  it('gives L_a, L_b, L_c equal to the full-sequence computation within 1e-5 (in-graph head and full-logits paths)', async () => {
    expect(lm.logProbPath).toBe('head');
    // The rows of a position share one prefix cache (ScoreRequest.sharedPrefix); the reference forwards every sequence whole.
    expect(lmGraph.logProbPath).toBe('graph');
    for (const model of [lm, lmGraph]) {
      const before = model.prefixForwards;
      const scored = await scorePositionsInline(model, positions, { batchSize: 3 });
      // One prefix forward per position (distinct windows), shared by its L_a, L_c and L_b rows in both passes.
      expect(model.prefixForwards - before).toBe(positions.length);
      for (const [i, p] of positions.entries()) {
        expect(Math.abs(scored[i].noCall - (await naiveInline(model, p, null)))).toBeLessThan(1e-5);
        for (const [j, c] of p.calls.entries()) {
          const got = scored[i].losses[j] as { noCall: number; callOnly: number; withResult: number };
          expect(Math.abs(got.callOnly - (await naiveInline(model, p, c.callOnly)))).toBeLessThan(1e-5);
          expect(Math.abs(got.withResult - (await naiveInline(model, p, c.withResult)))).toBeLessThan(1e-5);
        }
      }
    }
  });

  it('the true result helps more than a wrong one somewhere, so the check is not on flat losses', async () => {
    const scored = await scorePositionsInline(lm, positions);
    const gaps = scored.map((s) => s.losses[1].withResult - s.losses[0].withResult);
    expect(gaps.some((g) => g > 0.1)).toBe(true);
  });

  it('scoreLossesInline (the control) groups requests by window and keeps their order', async () => {
    const items = positions.slice(0, 3).flatMap((p) => p.calls.map((c) => ({ window: p.window, callIds: inlineCallIds(lm, c.withResult) })));
    const reversed = await scoreLossesInline(lm, [...items].reverse());
    const scored = await scorePositionsInline(lm, positions.slice(0, 3));
    const want = scored.flatMap((s) => s.losses.map((l) => l.withResult));
    expect(Math.max(...[...reversed].reverse().map((x, i) => Math.abs(x - want[i])))).toBeLessThan(1e-5);
  });
});
