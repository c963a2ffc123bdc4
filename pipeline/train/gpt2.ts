/**
 * GPT-2 forward and backward by hand over Float32Array (nanoGPT's model.py, without autograd).
 *
 * Pre-LayerNorm blocks, causal multi-head attention, tanh-GELU MLP, final LayerNorm, LM head tied to `wte`.
 * Parameters are one flat array in the exporter's layout (HF GPT-2 names, Conv1D weights [in, out]), so
 * `weights()` hands them to `exportGpt2` unchanged and the optimiser loops over one array.
 * Matmuls run in the arena's WASM SIMD kernel; the rest (LayerNorm, softmax, GELU) is plain JS.
 * Shapes in comments: B batch, T time, C = nEmbd, H heads, D = C/H, N = B·T rows, V vocab.
 */
import { Arena } from './arena.ts';
import { CausalAttention } from './attention.ts';
import { type LnActs, geluBackward, geluForward, layerNorm, layerNormBackward } from './ops.ts';
import { mulberry32 } from '../random/mulberry32.ts';
import { gpt2WeightShapes, type Gpt2Config, type Gpt2Weights } from '../onnx-export/gpt2-weights.ts';

export type { Gpt2Config, Gpt2Weights };

/** A named slice of the flat parameter array. */
export interface ParamSegment {
  name: string;
  shape: number[];
  offset: number;
  size: number;
}

interface LayerActs {
  x: Float32Array; // [N,C] block input (residual stream)
  ln1: LnActs;
  qkv: Float32Array; // [N,3C]
  att: Float32Array; // [B,H,T,T] softmax probabilities (0 above the diagonal)
  y: Float32Array; // [N,C] heads concatenated, before c_proj
  xMid: Float32Array; // [N,C] after the attention residual
  ln2: LnActs;
  fc: Float32Array; // [N,4C] before GELU
  gelu: Float32Array; // [N,4C]
  geluTanh: Float32Array; // [N,4C] the tanh inside GELU, kept for backward
}



export class Gpt2 {
  readonly arena: Arena;
  readonly segments: ParamSegment[] = [];
  readonly params: Float32Array;
  readonly grads: Float32Array;
  private readonly p = new Map<string, Float32Array>();
  private readonly g = new Map<string, Float32Array>();
  private readonly layers: LayerActs[] = [];
  private readonly lnf: LnActs;
  private readonly xOut: Float32Array; // [N,C] residual after the last block
  readonly logits: Float32Array; // [N,V]; after forward with targets: softmax probabilities
  private readonly dx: Float32Array; // [N,C] gradient of the residual stream
  private readonly dA: Float32Array; // [N,4C] scratch gradients
  private readonly dB: Float32Array; // [N,4C]
  private readonly dqkv: Float32Array; // [N,3C]
  private readonly tBuf: Float32Array; // transposes: max(N·V, N·4C, V·C)
  private readonly attention: CausalAttention;
  private tokens: Int32Array = new Int32Array(0);
  private targets: Int32Array | null = null;
  private B = 0;
  private T = 0;
  private count = 0;

  /**
   * @param maxRows capacity in tokens (B·T) of one forward pass.
   * @param threads threads the large matmuls are split over (arena.ts); results are the same bytes for any count.
   */
  constructor(readonly config: Gpt2Config, readonly maxRows: number, readonly maxT = config.nPositions, threads = 1) {
    const { vocabSize: V, nEmbd: C, nLayer: L, nHead: H } = config;
    const D = C / H;
    if (!Number.isInteger(D)) throw new Error('nEmbd must be divisible by nHead');
    const N = maxRows;
    let total = 0;
    for (const [name, shape] of gpt2WeightShapes(config)) {
      const size = shape.reduce((a, b) => a * b, 1);
      this.segments.push({ name, shape, offset: total, size });
      total += size;
    }
    const actFloats = L * (N * C * 17 + N * 2 + (N / Math.min(N, maxT)) * H * maxT * maxT) + N * (3 * C + V) + N;
    const scratch = N * C * 12 + Math.max(N * V, N * 4 * C, V * C) + 4 * maxT * D + 3 * maxT * maxT;
    // Reserved generously: untouched pages of a WebAssembly.Memory cost no RAM.
    this.arena = new Arena(Math.ceil((total * 2 + actFloats + scratch) * 4 * 1.5) + 2 ** 26, threads);
    const a = this.arena;
    this.params = a.alloc(total);
    this.grads = a.alloc(total);
    for (const s of this.segments) {
      this.p.set(s.name, this.params.subarray(s.offset, s.offset + s.size));
      this.g.set(s.name, this.grads.subarray(s.offset, s.offset + s.size));
    }
    const ln = (): LnActs => ({ xhat: a.alloc(N * C), rstd: a.alloc(N), out: a.alloc(N * C) });
    const maxB = Math.ceil(N / Math.min(N, maxT));
    for (let l = 0; l < L; l++) {
      this.layers.push({
        x: a.alloc(N * C), ln1: ln(), qkv: a.alloc(N * 3 * C), att: a.alloc(maxB * H * maxT * maxT),
        y: a.alloc(N * C), xMid: a.alloc(N * C), ln2: ln(), fc: a.alloc(N * 4 * C), gelu: a.alloc(N * 4 * C),
        geluTanh: a.alloc(N * 4 * C),
      });
    }
    this.xOut = a.alloc(N * C);
    this.lnf = ln();
    this.logits = a.alloc(N * V);
    this.dx = a.alloc(N * C);
    this.dA = a.alloc(N * 4 * C);
    this.dB = a.alloc(N * 4 * C);
    this.dqkv = a.alloc(N * 3 * C);
    this.tBuf = a.alloc(Math.max(N * V, N * 4 * C, V * C));
    this.attention = new CausalAttention(a, maxT, C, H);
  }

  /** Stops the arena's matmul workers, if any (the weights stay readable). */
  close(): void {
    this.arena.close();
  }

  param(name: string): Float32Array {
    const v = this.p.get(name);
    if (!v) throw new Error(`no parameter ${name}`);
    return v;
  }

  grad(name: string): Float32Array {
    return this.g.get(name)!;
  }

  get numParams(): number {
    return this.params.length;
  }

  /** GPT-2 init: N(0, 0.02), residual projections N(0, 0.02/√(2L)), biases 0, LayerNorm gains 1. Seeded. */
  init(seed: number): void {
    const rng = mulberry32(seed);
    const projStd = 0.02 / Math.sqrt(2 * this.config.nLayer);
    for (const s of this.segments) {
      const w = this.param(s.name);
      if (s.name.includes('ln_') && s.name.endsWith('.weight')) w.fill(1);
      else if (s.name.endsWith('.bias')) w.fill(0);
      else {
        const std = s.name.endsWith('c_proj.weight') ? projStd : 0.02;
        for (let i = 0; i < w.length; i++) w[i] = rng.normal() * std;
      }
    }
  }

  /** Copies of the parameters keyed by HF name, for the exporter and checkpoints. */
  weights(): Gpt2Weights {
    return new Map(this.segments.map((s) => [s.name, this.param(s.name).slice()]));
  }

  loadWeights(weights: Gpt2Weights): void {
    for (const s of this.segments) {
      const w = weights.get(s.name);
      if (!w || w.length !== s.size) throw new Error(`weight ${s.name} missing or of the wrong size`);
      this.param(s.name).set(w);
    }
  }

  /**
   * Forward pass over tokens [B,T] (row-major). With targets (same shape, -1 = ignore) returns the mean
   * cross-entropy in nats and keeps what backward() needs; without, returns NaN and leaves logits [N,V].
   */
  forward(tokens: Int32Array, B: number, T: number, targets: Int32Array | null = null): number {
    const { vocabSize: V, nEmbd: C, nLayer: L } = this.config;
    const N = B * T;
    if (N > this.maxRows || T > this.maxT) throw new Error(`batch ${B}×${T} exceeds capacity`);
    this.tokens = tokens;
    this.targets = targets;
    this.B = B;
    this.T = T;
    const wte = this.param('wte.weight');
    const wpe = this.param('wpe.weight');
    const x0 = this.layers[0].x;
    for (let n = 0; n < N; n++) {
      const tok = tokens[n];
      if (tok < 0 || tok >= V) throw new Error(`token ${tok} out of range`);
      const t = n % T;
      for (let c = 0; c < C; c++) x0[n * C + c] = wte[tok * C + c] + wpe[t * C + c];
    }
    for (let l = 0; l < L; l++) {
      const A = this.layers[l];
      const h = `h.${l}`;
      layerNorm(A.x, this.param(`${h}.ln_1.weight`), this.param(`${h}.ln_1.bias`), A.ln1, N, this.config.nEmbd, this.config.layerNormEpsilon);
      this.linear(A.ln1.out, this.param(`${h}.attn.c_attn.weight`), this.param(`${h}.attn.c_attn.bias`), A.qkv, N, C, 3 * C);
      this.attention.forward(A.qkv, A.att, A.y, this.B, this.T);
      this.linear(A.y, this.param(`${h}.attn.c_proj.weight`), this.param(`${h}.attn.c_proj.bias`), A.xMid, N, C, C);
      for (let i = 0; i < N * C; i++) A.xMid[i] += A.x[i];
      layerNorm(A.xMid, this.param(`${h}.ln_2.weight`), this.param(`${h}.ln_2.bias`), A.ln2, N, this.config.nEmbd, this.config.layerNormEpsilon);
      this.linear(A.ln2.out, this.param(`${h}.mlp.c_fc.weight`), this.param(`${h}.mlp.c_fc.bias`), A.fc, N, C, 4 * C);
      geluForward(A.fc, A.gelu, A.geluTanh, N * 4 * C);
      const xNext = l + 1 < L ? this.layers[l + 1].x : this.xOut;
      this.linear(A.gelu, this.param(`${h}.mlp.c_proj.weight`), this.param(`${h}.mlp.c_proj.bias`), xNext, N, 4 * C, C);
      for (let i = 0; i < N * C; i++) xNext[i] += A.xMid[i];
    }
    layerNorm(this.xOut, this.param('ln_f.weight'), this.param('ln_f.bias'), this.lnf, N, this.config.nEmbd, this.config.layerNormEpsilon);
    const wteT = this.tBuf;
    this.arena.transpose(wte, wteT, V, C);
    this.arena.matmul(this.lnf.out, wteT, this.logits, N, C, V); // logits[N,V] = lnf · wteᵀ
    if (!targets) return NaN;
    // Softmax in place, loss = mean over counted rows of -log p(target).
    let loss = 0;
    let count = 0;
    const lg = this.logits;
    for (let n = 0; n < N; n++) {
      const o = n * V;
      const { sum } = expRow(lg, o, V, true);
      const inv = 1 / sum;
      for (let v = 0; v < V; v++) lg[o + v] *= inv;
      const y = targets[n];
      if (y >= 0) {
        loss -= Math.log(Math.max(lg[o + y], 1e-30));
        count++;
      }
    }
    this.count = count;
    return count > 0 ? loss / count : NaN;
  }

  zeroGrad(): void {
    this.grads.fill(0);
  }

  /** Accumulates d(loss)/d(params) into `grads` for the last forward (which must have had targets). */
  backward(): void {
    const { vocabSize: V, nEmbd: C, nLayer: L } = this.config;
    const { B, T, targets } = this;
    if (!targets) throw new Error('backward needs a forward with targets');
    const N = B * T;
    const a = this.arena;
    // dlogits = (p - onehot) / count, in place over the probabilities.
    const dl = this.logits;
    const scale = this.count > 0 ? 1 / this.count : 0;
    for (let n = 0; n < N; n++) {
      const o = n * V;
      const y = targets[n];
      if (y < 0) {
        dl.fill(0, o, o + V);
        continue;
      }
      for (let v = 0; v < V; v++) dl[o + v] *= scale;
      dl[o + y] -= scale;
    }
    const wte = this.param('wte.weight');
    const dwte = this.grad('wte.weight');
    const dlnf = this.dA; // [N,C]
    a.matmul(dl, wte, dlnf, N, V, C); // d(lnf) = dlogits · wte
    a.transpose(dl, this.tBuf, N, V);
    a.matmul(this.tBuf, this.lnf.out, dwte, V, N, C, true); // dwte += dlogitsᵀ · lnf
    const dx = this.dx;
    dx.fill(0, 0, N * C);
    layerNormBackward(dlnf, this.lnf, this.param('ln_f.weight'), this.grad('ln_f.weight'), this.grad('ln_f.bias'), dx, N, this.config.nEmbd);
    for (let l = L - 1; l >= 0; l--) {
      const A = this.layers[l];
      const h = `h.${l}`;
      // MLP: xNext = xMid + gelu(ln2 · Wfc + bfc) · Wproj + bproj; dx currently holds d(xNext).
      const dGelu = this.dA;
      this.linearBackward(dx, A.gelu, this.param(`${h}.mlp.c_proj.weight`), this.grad(`${h}.mlp.c_proj.weight`), this.grad(`${h}.mlp.c_proj.bias`), dGelu, N, 4 * C, C);
      geluBackward(A.fc, A.geluTanh, dGelu, N * 4 * C); // now d(fc)
      const dLn2 = this.dB;
      this.linearBackward(dGelu, A.ln2.out, this.param(`${h}.mlp.c_fc.weight`), this.grad(`${h}.mlp.c_fc.weight`), this.grad(`${h}.mlp.c_fc.bias`), dLn2, N, C, 4 * C);
      layerNormBackward(dLn2, A.ln2, this.param(`${h}.ln_2.weight`), this.grad(`${h}.ln_2.weight`), this.grad(`${h}.ln_2.bias`), dx, N, this.config.nEmbd);
      // Attention: xMid = x + y · Wproj + bproj; dx now holds d(xMid).
      const dy = this.dA;
      this.linearBackward(dx, A.y, this.param(`${h}.attn.c_proj.weight`), this.grad(`${h}.attn.c_proj.weight`), this.grad(`${h}.attn.c_proj.bias`), dy, N, C, C);
      this.attention.backward(A.qkv, A.att, dy, this.dqkv, this.B, this.T);
      const dLn1 = this.dB;
      this.linearBackward(this.dqkv, A.ln1.out, this.param(`${h}.attn.c_attn.weight`), this.grad(`${h}.attn.c_attn.weight`), this.grad(`${h}.attn.c_attn.bias`), dLn1, N, C, 3 * C);
      layerNormBackward(dLn1, A.ln1, this.param(`${h}.ln_1.weight`), this.grad(`${h}.ln_1.weight`), this.grad(`${h}.ln_1.bias`), dx, N, this.config.nEmbd);
    }
    // Embeddings: x0 = wte[tok] + wpe[t].
    const dwpe = this.grad('wpe.weight');
    for (let n = 0; n < N; n++) {
      const tok = this.tokens[n];
      const t = n % T;
      for (let c = 0; c < C; c++) {
        const d = dx[n * C + c];
        dwte[tok * C + c] += d;
        dwpe[t * C + c] += d;
      }
    }
  }

  /** Log-probabilities [N,V] of the last forward without targets (overwrites logits). */
  logSoftmaxInPlace(N: number): Float32Array {
    const V = this.config.vocabSize;
    const lg = this.logits;
    for (let n = 0; n < N; n++) {
      const o = n * V;
      const { max, sum } = expRow(lg, o, V, false);
      const lse = max + Math.log(sum);
      for (let v = 0; v < V; v++) lg[o + v] -= lse;
    }
    return lg.subarray(0, N * V);
  }

  // --- building blocks -------------------------------------------------------------------------------------

  /** out[N,outDim] = x[N,inDim] · w[inDim,outDim] + b. */
  private linear(x: Float32Array, w: Float32Array, b: Float32Array, out: Float32Array, N: number, inDim: number, outDim: number): void {
    this.arena.matmul(x, w, out, N, inDim, outDim);
    for (let n = 0; n < N; n++) {
      const o = n * outDim;
      for (let j = 0; j < outDim; j++) out[o + j] += b[j];
    }
  }

  /** Given dout[N,outDim]: dx[N,inDim] = dout · wᵀ (overwritten), dw += xᵀ · dout, db += Σ_n dout. */
  private linearBackward(dout: Float32Array, x: Float32Array, w: Float32Array, dw: Float32Array, db: Float32Array,
    dx: Float32Array, N: number, inDim: number, outDim: number): void {
    const a = this.arena;
    a.transpose(w, this.tBuf, inDim, outDim);
    a.matmul(dout, this.tBuf, dx, N, outDim, inDim);
    a.transpose(x, this.tBuf, N, inDim);
    a.matmul(this.tBuf, dout, dw, inDim, N, outDim, true);
    for (let n = 0; n < N; n++) {
      const o = n * outDim;
      for (let j = 0; j < outDim; j++) db[j] += dout[o + j];
    }
  }
}

/**
 * One row of logits, lg[o .. o+V): its max and Σ exp(x − max) (summed in order: the softmax and the log-softmax
 * agree to the bit); with `store`, each exp(x − max) replaces its logit (the unnormalised softmax).
 */
function expRow(lg: Float32Array, o: number, V: number, store: boolean): { max: number; sum: number } {
  let max = -Infinity;
  for (let v = 0; v < V; v++) if (lg[o + v] > max) max = lg[o + v];
  let sum = 0;
  for (let v = 0; v < V; v++) {
    const e = Math.exp(lg[o + v] - max);
    if (store) lg[o + v] = e;
    sum += e;
  }
  return { max, sum };
}
