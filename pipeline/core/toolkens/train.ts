/**
 * Training W_τ alone (ToolkenGPT: `func_embed = nn.Linear(dim, n_tools)`, the base frozen), over features cached once
 * (examples.ts). At a position with hidden state h, the logits are the concatenation [z_v ; z_τ] with z_τ = W_τ h;
 * the frozen vocabulary enters only through log Σ_v exp(z_v) and the label's own z_v, so
 *
 *   loss = log(exp(lse_v) + Σ_k exp(z_τk)) − z_label          (z_label = z_v[y] for a word, z_τk for toolken k)
 *   ∂loss/∂W_τ[k] = (softmax_k − [label = k]) · h
 *
 * Adam (β 0.9 / 0.999, the paper's optimiser) over seeded mini-batches; the records are split into train and
 * validation (seeded); the weights of the epoch with the lowest validation loss are kept, and training stops after
 * `patience` epochs without improvement. Plain TypeScript: it fits in a browser tab. Isomorphic.
 */
import { mulberry32 } from '../../random/mulberry32.ts';
import type { ToolkenFeatures } from './examples.ts';

export interface TrainToolkenOptions {
  /** Adam step size (ToolkenGPT: 1e-3 GSM8K-XL, 1e-4 FuncQA; 5e-4 in the paper). @default 1e-3 */
  lr?: number;
  /** @default 10 (the paper's) */
  epochs?: number;
  /** Positions per Adam step. @default 64 */
  batchSize?: number;
  /** Share of the records held out for validation and early stopping. @default 0.1 */
  valShare?: number;
  /** Epochs without a better validation loss before stopping. @default 2 */
  patience?: number;
  /** Seeds the initial W_τ, the split and the batch order. @default 1 */
  seed?: number;
  /** Called after each epoch (progress bars, loss curves). */
  onEpoch?: (e: EpochRecord) => void;
  signal?: AbortSignal;
}

export interface EpochRecord {
  epoch: number;
  /** Mean loss (nats) over the train positions, during the epoch. */
  trainLoss: number;
  /** Mean loss over the validation positions after it (null without validation records). */
  valLoss: number | null;
  /** Validation toolken positions where the right toolken has the largest logit of all (vocabulary included). */
  valToolkenRecall: number | null;
  /** Validation word positions where some toolken has the largest logit (a call where none was kept). */
  valFalseFire: number | null;
}

export interface TrainedToolkens {
  /** [n_tools × C] the best epoch's W_τ. */
  weights: Float32Array;
  history: EpochRecord[];
  /** Mean loss of the initial W_τ over the train and validation positions (the curve's start). */
  initialLoss: { train: number; val: number | null };
  /** The epoch whose weights are kept (0: the initial weights). */
  bestEpoch: number;
  /** Positions used for training and validation, and their toolken labels. */
  positions: { train: number; val: number; trainToolken: number; valToolken: number };
}

/** log(exp(a) + Σ exp(zs)), stably. */
function logSumExpWith(a: number, zs: Float32Array): number {
  let max = a;
  for (const z of zs) if (z > max) max = z;
  let sum = Math.exp(a - max);
  for (const z of zs) sum += Math.exp(z - max);
  return max + Math.log(sum);
}

/** z_τ = W h for position i, into `out`. */
function toolLogits(W: Float32Array, f: ToolkenFeatures, i: number, out: Float32Array): void {
  const C = f.hiddenSize;
  for (let k = 0; k < out.length; k++) {
    let dot = 0;
    for (let c = 0; c < C; c++) dot += W[k * C + c] * f.hidden[i * C + c];
    out[k] = dot;
  }
}

/** Loss and decision counts of W over positions `idx`. */
export function evaluate(W: Float32Array, f: ToolkenFeatures, nTools: number, idx: readonly number[]) {
  const z = new Float32Array(nTools);
  let loss = 0;
  let toolken = 0, recalled = 0, words = 0, fired = 0;
  for (const i of idx) {
    toolLogits(W, f, i, z);
    const label = f.label[i];
    loss += logSumExpWith(f.logSumExp[i], z) - (label < 0 ? f.wordLogit[i] : z[label]);
    let best = -1;
    let top = f.maxWordLogit[i];
    for (let k = 0; k < nTools; k++) if (z[k] > top) [best, top] = [k, z[k]];
    if (label >= 0) {
      toolken++;
      if (best === label) recalled++;
    } else {
      words++;
      if (best >= 0) fired++;
    }
  }
  const n = idx.length;
  return { loss: n ? loss / n : NaN, recall: toolken ? recalled / toolken : null, falseFire: words ? fired / words : null };
}

export function trainToolkens(f: ToolkenFeatures, nTools: number, options: TrainToolkenOptions = {}): TrainedToolkens {
  const lr = options.lr ?? 1e-3;
  const epochs = options.epochs ?? 10;
  const batchSize = options.batchSize ?? 64;
  const patience = options.patience ?? 2;
  const rng = mulberry32(options.seed ?? 1);
  const C = f.hiddenSize;
  if (f.n === 0) throw new Error('toolkens: no labelled positions (no record holds a call of the chosen tools)');

  // Split by record, seeded: whole documents go to validation.
  const records = [...new Set(f.record)].sort((a, b) => a - b);
  shuffle(records, rng);
  const nVal = records.length >= 2 ? Math.max(1, Math.round(records.length * (options.valShare ?? 0.1))) : 0;
  const valRecords = new Set(records.slice(0, nVal));
  const train: number[] = [];
  const val: number[] = [];
  for (let i = 0; i < f.n; i++) (valRecords.has(f.record[i]) ? val : train).push(i);

  // nn.Linear's default initialisation: U(−1/√C, 1/√C).
  const W = Float32Array.from({ length: nTools * C }, () => (2 * rng.next() - 1) / Math.sqrt(C));
  const m = new Float32Array(W.length);
  const v = new Float32Array(W.length);
  const grad = new Float32Array(W.length);
  const z = new Float32Array(nTools);
  const [beta1, beta2, eps] = [0.9, 0.999, 1e-8];
  let step = 0;
  const history: EpochRecord[] = [];
  const initialLoss = { train: evaluate(W, f, nTools, train).loss, val: val.length ? evaluate(W, f, nTools, val).loss : null };
  let best = { loss: initialLoss.val ?? Infinity, weights: W.slice(), epoch: 0 };
  let since = 0;
  for (let epoch = 1; epoch <= epochs && !options.signal?.aborted; epoch++) {
    shuffle(train, rng);
    let total = 0;
    for (let b = 0; b < train.length; b += batchSize) {
      const batch = train.slice(b, b + batchSize);
      grad.fill(0);
      for (const i of batch) {
        toolLogits(W, f, i, z);
        const label = f.label[i];
        const lse = logSumExpWith(f.logSumExp[i], z);
        total += lse - (label < 0 ? f.wordLogit[i] : z[label]);
        for (let k = 0; k < nTools; k++) {
          const g = (Math.exp(z[k] - lse) - (label === k ? 1 : 0)) / batch.length;
          if (g === 0) continue;
          for (let c = 0; c < C; c++) grad[k * C + c] += g * f.hidden[i * C + c];
        }
      }
      step++;
      const c1 = 1 - beta1 ** step;
      const c2 = 1 - beta2 ** step;
      for (let j = 0; j < W.length; j++) {
        m[j] = beta1 * m[j] + (1 - beta1) * grad[j];
        v[j] = beta2 * v[j] + (1 - beta2) * grad[j] * grad[j];
        W[j] -= (lr * (m[j] / c1)) / (Math.sqrt(v[j] / c2) + eps);
      }
    }
    const after = val.length ? evaluate(W, f, nTools, val) : null;
    const record: EpochRecord = {
      epoch, trainLoss: total / train.length, valLoss: after?.loss ?? null, valToolkenRecall: after?.recall ?? null, valFalseFire: after?.falseFire ?? null,
    };
    history.push(record);
    options.onEpoch?.(record);
    const score = after ? after.loss : record.trainLoss;
    if (score < best.loss) {
      best = { loss: score, weights: W.slice(), epoch };
      since = 0;
    } else if (++since >= patience) break;
  }
  const count = (idx: number[]) => idx.filter((i) => f.label[i] >= 0).length;
  return { weights: best.weights, history, initialLoss, bestEpoch: best.epoch, positions: { train: train.length, val: val.length, trainToolken: count(train), valToolken: count(val) } };
}

function shuffle<T>(xs: T[], rng: { next(): number }): void {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
}
