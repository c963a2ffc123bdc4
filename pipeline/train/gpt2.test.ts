import { describe, expect, it } from 'vitest';
import { Gpt2 } from './gpt2.ts';
import { mulberry32 } from '../random/mulberry32.ts';

const tiny = { vocabSize: 13, nPositions: 8, nEmbd: 16, nLayer: 2, nHead: 2, layerNormEpsilon: 1e-5 };

function batch(seed: number, B: number, T: number): { x: Int32Array; y: Int32Array } {
  const rng = mulberry32(seed);
  const x = new Int32Array(B * T).map(() => Math.floor(rng.next() * tiny.vocabSize));
  const y = new Int32Array(B * T).map(() => Math.floor(rng.next() * tiny.vocabSize));
  y[3] = -1; // an ignored position
  return { x, y };
}

describe('Gpt2 backward', () => {
  it('matches central finite differences along a random direction, for every parameter tensor', () => {
    const model = new Gpt2(tiny, 2 * 8);
    model.init(1);
    // Larger weights than the 0.02 init, so every path (attention included) carries gradient.
    const rng = mulberry32(2);
    for (let i = 0; i < model.params.length; i++) model.params[i] += rng.normal() * 0.3;
    const { x, y } = batch(3, 2, 8);
    model.zeroGrad();
    model.forward(x, 2, 8, y);
    model.backward();
    const grads = model.grads.slice();
    for (const seg of model.segments) {
      const w = model.param(seg.name);
      // Direction: the analytic gradient plus half as much random noise (unit norms), so the derivative is
      // large against float32 rounding and a gradient missing some component would still show.
      const g = grads.subarray(seg.offset, seg.offset + seg.size);
      const r = Float32Array.from({ length: seg.size }, () => rng.normal());
      const gn = Math.hypot(...g) || 1;
      const rn = Math.hypot(...r);
      const u = g.map((gi, i) => gi / gn + (0.5 * r[i]) / rn);
      const base = w.slice();
      const lossAt = (s: number): number => {
        for (let i = 0; i < w.length; i++) w[i] = base[i] + s * u[i];
        return model.forward(x, 2, 8, y);
      };
      let analytic = 0;
      for (let i = 0; i < seg.size; i++) analytic += grads[seg.offset + i] * u[i];
      // Step so the loss moves by ~0.01 (well above float32 rounding); Richardson extrapolation of two central
      // differences cancels the O(eps²) curvature term.
      const eps = Math.min(0.05, Math.max(1e-3, 0.01 / Math.abs(analytic)));
      const central = (e: number): number => (lossAt(e) - lossAt(-e)) / (2 * e);
      const numeric = (4 * central(eps / 2) - central(eps)) / 3;
      w.set(base);
      const rel = Math.abs(numeric - analytic) / Math.max(Math.abs(analytic), 1e-3);
      expect(rel, `${seg.name}: numeric ${numeric} analytic ${analytic}`).toBeLessThan(1e-3);
    }
  });
});
