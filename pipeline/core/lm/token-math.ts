/**
 * Pure arithmetic on rows of logits, shared by the ONNX scorer (ort-scorer.ts) and sampler (ort-decoder.ts), by
 * generate.ts and by their tests.
 */
import { mulberry32, type Random } from '../../random/mulberry32.ts';

/**
 * Seeds of the n sample rows' own random streams: row r draws only from its stream, so its sample depends on
 * (seed, r) and the model — not on n or on when other rows stop.
 */
export function rowSeeds(seed: number, n: number): number[] {
  const master = mulberry32(seed);
  return Array.from({ length: n }, () => Math.floor(master.next() * 4294967296));
}

/**
 * The JS reference for the log-prob graph: out[p, j] = log_softmax(logits[p, :])[indices[p, j]] for each of the
 * logits.length / V positions p, computed in float64.
 */
export function logSoftmaxGather(logits: Float32Array, V: number, indices: BigInt64Array, K: number): Float32Array {
  const positions = logits.length / V;
  const out = new Float32Array(positions * K);
  for (let p = 0; p < positions; p++) {
    const row = logits.subarray(p * V, (p + 1) * V);
    const logZ = logPartition(row);
    for (let j = 0; j < K; j++) out[p * K + j] = row[Number(indices[p * K + j])] - logZ;
  }
  return out;
}

/** log Σ_v exp(row[v]) in float64, shifted by the row's max: log_softmax(row)[v] = row[v] − logPartition(row). */
export function logPartition(row: Float32Array): number {
  let max = -Infinity;
  for (let v = 0; v < row.length; v++) if (row[v] > max) max = row[v];
  let sum = 0;
  for (let v = 0; v < row.length; v++) sum += Math.exp(row[v] - max);
  return max + Math.log(sum);
}

/**
 * One token from a row of logits: argmax when temperature is 0, else a draw from softmax(logits / temperature)
 * restricted to the topK largest logits (0 = all). Ties in top-k go to the lower id.
 */
export function pickToken(logits: Float32Array, temperature: number, topK: number, rng: Random): number {
  const V = logits.length;
  if (temperature === 0) {
    let best = 0;
    for (let v = 1; v < V; v++) if (logits[v] > logits[best]) best = v;
    return best;
  }
  let candidates: number[];
  if (topK > 0 && topK < V) {
    // Keep the k best ids in a small array sorted by logit (descending); most ids fail the first comparison.
    candidates = [];
    for (let v = 0; v < V; v++) {
      const x = logits[v];
      if (candidates.length === topK && x <= logits[candidates[topK - 1]]) continue;
      let i = candidates.length === topK ? topK - 1 : candidates.length;
      while (i > 0 && logits[candidates[i - 1]] < x) i--;
      candidates.splice(i, 0, v);
      if (candidates.length > topK) candidates.pop();
    }
    candidates.sort((a, b) => a - b); // draw in id order, independent of how ties were inserted
  } else {
    candidates = Array.from({ length: V }, (_, v) => v);
  }
  let max = -Infinity;
  for (const v of candidates) if (logits[v] > max) max = logits[v];
  const weights = candidates.map((v) => Math.exp((logits[v] - max) / temperature));
  let r = rng.next() * weights.reduce((a, b) => a + b, 0);
  for (let i = 0; i < candidates.length; i++) {
    r -= weights[i];
    if (r < 0) return candidates[i];
  }
  return candidates[candidates.length - 1];
}
