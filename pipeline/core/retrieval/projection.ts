/**
 * The dense retriever's projection, trained contrastively in plain TypeScript (ToolLLM trains its retriever the same
 * way, on (instruction, API) pairs with in-batch negatives): a linear map W [P × C] from the LM's mean hidden state
 * to a P-wide space where a text's vector is near its tool's. Loss per batch of B pairs with B distinct tools
 * (InfoNCE): −mean_i log softmax_j(cos(W·q_i, W·t_j) / τ)[i]; gradients by hand through the normalisation; Adam.
 */
import type { Random } from '../../random/mulberry32.ts';

export interface ProjectionOptions {
  /** Output width P. @default the input width C */
  width?: number;
  /** Training steps (batches). @default 400 */
  steps?: number;
  /** Pairs per batch, each of a different tool. @default 32 */
  batch?: number;
  /** Softmax temperature τ. @default 0.05 */
  temperature?: number;
  /** Adam step size. @default 0.002 */
  learningRate?: number;
}

/** A (text, tool) training pair as vectors: `text` is the encoded text, `tool` the index of its tool. */
export interface TrainingPair {
  text: Float32Array;
  tool: number;
}

/** W, row-major [P × C]. */
export interface Projection {
  readonly input: number;
  readonly output: number;
  readonly weights: Float32Array;
}

/** `W·x` normalised to unit length (a zero vector stays zero). */
export function project(p: Projection, x: Float32Array): Float32Array {
  return normalise(unnormalised(p, x));
}

export function normalise(u: Float32Array): Float32Array {
  let n = 0;
  for (const v of u) n += v * v;
  n = Math.sqrt(n);
  if (n > 0) for (let i = 0; i < u.length; i++) u[i] /= n;
  return u;
}

/**
 * Train W from the identity (P = C) or a scaled random start, on `pairs` against the tools' vectors `tools[k]`.
 * Returns W and the mean loss of each tenth of the steps (for the record: it must fall).
 */
export function trainProjection(pairs: readonly TrainingPair[], tools: readonly Float32Array[], random: Random, options: ProjectionOptions = {}): { projection: Projection; losses: number[] } {
  const C = tools[0].length;
  const P = options.width ?? C;
  const steps = options.steps ?? 400;
  const B = Math.min(options.batch ?? 32, tools.length);
  const tau = options.temperature ?? 0.05;
  const lr = options.learningRate ?? 0.002;
  const W = new Float32Array(P * C);
  for (let r = 0; r < P; r++) for (let c = 0; c < C; c++) W[r * C + c] = r === c ? 1 : (random.next() - 0.5) * (P === C ? 0.01 : 2 / Math.sqrt(C));
  const adam = { m: new Float32Array(W.length), v: new Float32Array(W.length), t: 0 };
  const byTool = new Map<number, TrainingPair[]>();
  for (const pair of pairs) byTool.set(pair.tool, [...(byTool.get(pair.tool) ?? []), pair]);
  const trainedTools = [...byTool.keys()];
  const losses: number[] = [];
  let sum = 0;
  for (let step = 0; step < steps; step++) {
    const batch = sample(trainedTools, B, random).map((tool) => {
      const options = byTool.get(tool) as TrainingPair[];
      return options[Math.floor(random.next() * options.length)];
    });
    const grad = new Float32Array(W.length);
    sum += batchLoss(W, P, C, batch, tools, tau, grad);
    adamStep(W, grad, adam, lr);
    if ((step + 1) % Math.max(1, Math.floor(steps / 10)) === 0) {
      losses.push(sum / Math.max(1, Math.floor(steps / 10)));
      sum = 0;
    }
  }
  return { projection: { input: C, output: P, weights: W }, losses };
}

/** InfoNCE over the batch; adds dLoss/dW into `grad`; returns the loss. */
function batchLoss(W: Float32Array, P: number, C: number, batch: readonly TrainingPair[], tools: readonly Float32Array[], tau: number, grad: Float32Array): number {
  const B = batch.length;
  const proj = { input: C, output: P, weights: W };
  const qx = batch.map((p) => p.text);
  const tx = batch.map((p) => tools[p.tool]);
  const qu = qx.map((x) => unnormalised(proj, x));
  const tu = tx.map((x) => unnormalised(proj, x));
  const q = qu.map((u) => normalise(Float32Array.from(u)));
  const t = tu.map((u) => normalise(Float32Array.from(u)));
  const dq = q.map(() => new Float32Array(P));
  const dt = t.map(() => new Float32Array(P));
  let loss = 0;
  for (let i = 0; i < B; i++) {
    const logits = t.map((tj) => dot(q[i], tj) / tau);
    const max = Math.max(...logits);
    const exps = logits.map((l) => Math.exp(l - max));
    const z = exps.reduce((a, b) => a + b, 0);
    loss += -(logits[i] - max - Math.log(z));
    for (let j = 0; j < B; j++) {
      const g = (exps[j] / z - (i === j ? 1 : 0)) / (B * tau); // dLoss/dlogit_ij, the 1/τ folded in
      for (let k = 0; k < P; k++) {
        dq[i][k] += g * t[j][k];
        dt[j][k] += g * q[i][k];
      }
    }
  }
  accumulate(grad, C, qu, q, dq, qx);
  accumulate(grad, C, tu, t, dt, tx);
  return loss / B;
}

/** Through v = u/|u| to u = W·x: du = (dv − v (v·dv)) / |u|; dW += du ⊗ x. */
function accumulate(grad: Float32Array, C: number, us: Float32Array[], vs: Float32Array[], dvs: Float32Array[], xs: readonly Float32Array[]): void {
  for (let i = 0; i < us.length; i++) {
    const norm = Math.sqrt(dot(us[i], us[i])) || 1;
    const vd = dot(vs[i], dvs[i]);
    for (let r = 0; r < us[i].length; r++) {
      const du = (dvs[i][r] - vs[i][r] * vd) / norm;
      if (du === 0) continue;
      const row = r * C;
      const x = xs[i];
      for (let c = 0; c < C; c++) grad[row + c] += du * x[c];
    }
  }
}

function unnormalised(p: Projection, x: Float32Array): Float32Array {
  const u = new Float32Array(p.output);
  for (let r = 0; r < p.output; r++) {
    let s = 0;
    const row = r * p.input;
    for (let c = 0; c < p.input; c++) s += p.weights[row + c] * x[c];
    u[r] = s;
  }
  return u;
}

function adamStep(W: Float32Array, grad: Float32Array, state: { m: Float32Array; v: Float32Array; t: number }, lr: number): void {
  const b1 = 0.9;
  const b2 = 0.999;
  state.t++;
  const c1 = 1 - b1 ** state.t;
  const c2 = 1 - b2 ** state.t;
  for (let i = 0; i < W.length; i++) {
    state.m[i] = b1 * state.m[i] + (1 - b1) * grad[i];
    state.v[i] = b2 * state.v[i] + (1 - b2) * grad[i] * grad[i];
    W[i] -= (lr * state.m[i]) / c1 / (Math.sqrt(state.v[i] / c2) + 1e-8);
  }
}

/** `k` distinct items of `items`, uniformly (partial Fisher–Yates). */
function sample<T>(items: readonly T[], k: number, random: Random): T[] {
  const pool = [...items];
  for (let i = 0; i < Math.min(k, pool.length); i++) {
    const j = i + Math.floor(random.next() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, k);
}

export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
