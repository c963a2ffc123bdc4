/**
 * Trainer throughput: tokens/s of forward + backward + AdamW on random tokens, on --threads threads (matmul-threads.ts).
 * `npx tsx pipeline/train/bench.ts [--layers 2 --embd 256 --heads 4 --vocab 512 --batch 16 --seq 128 --steps 5 --threads 1]`
 */
import { parseArgs } from 'node:util';
import { Gpt2 } from './gpt2.ts';
import { AdamW } from './adamw.ts';
import { parseThreads } from './matmul-threads.ts';

const { values } = parseArgs({
  options: {
    layers: { type: 'string', default: '2' }, embd: { type: 'string', default: '256' },
    heads: { type: 'string', default: '4' }, vocab: { type: 'string', default: '512' },
    batch: { type: 'string', default: '16' }, seq: { type: 'string', default: '128' },
    steps: { type: 'string', default: '5' }, threads: { type: 'string', default: '1' },
  },
});
const [L, C, H, V, B, T, steps] = [values.layers, values.embd, values.heads, values.vocab, values.batch, values.seq, values.steps].map(Number);
const threads = parseThreads(values.threads);
const model = new Gpt2({ vocabSize: V, nPositions: T, nEmbd: C, nLayer: L, nHead: H, layerNormEpsilon: 1e-5 }, B * T, T, threads);
model.init(0);
const opt = new AdamW(model, { lr: 1e-3, warmupSteps: 1, totalSteps: 100 });
const x = new Int32Array(B * T).map((_, i) => (i * 7919) % V);
const y = new Int32Array(B * T).map((_, i) => (i * 104729 + 1) % V);
let fwd = 0;
let bwd = 0;
let t0 = performance.now();
for (let s = 0; s <= steps; s++) {
  if (s === 1) { t0 = performance.now(); fwd = 0; bwd = 0; } // step 0 warms the JIT
  const a = performance.now();
  model.zeroGrad();
  model.forward(x, B, T, y);
  const b = performance.now();
  model.backward();
  opt.step();
  fwd += b - a;
  bwd += performance.now() - b;
}
const dt = (performance.now() - t0) / 1000;
console.log(JSON.stringify({
  params: model.numParams, threads, layers: L, embd: C, heads: H, vocab: V, batch: B, seq: T,
  tokensPerSecond: Math.round((steps * B * T) / dt), msPerStep: Math.round((dt * 1000) / steps),
  forwardMs: Math.round(fwd / steps), backwardAndAdamMs: Math.round(bwd / steps),
}));
model.close();
