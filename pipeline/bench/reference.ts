/**
 * The paper-literal scorer, as a straightforward port of the paper's filtering step would compute it: for every
 * call, three sequences (L_a recomputed for each call), each forwarded alone (batch 1, whole sequence), the full
 * [T, V] logits brought back to JavaScript and turned into log-probabilities there (log-softmax over every
 * position, float64), then the weighted loss over the tokens after the call position.
 *
 * It builds exactly the sequences scoring.ts builds — [bos] e(c) x_{1:i−1} x_i … — so its losses are the
 * reference the optimised scorer must match (pipeline/bench/reference.test.ts).
 */
import type { CausalLM } from '../core/lm/lm.ts';
import { type Losses, PAPER_WEIGHTS, weightedLoss } from '../core/scoring/losses.ts';
import type { OrtModule, OrtSession, OrtTensor } from '../core/lm/ort-lm.ts';
import type { DecoderSpec } from '../core/lm/ort-decoder-spec.ts';
import type { PositionToScore, ScoredPosition } from '../core/scoring/scoring.ts';

export interface ReferenceScorer {
  /** Forward passes run so far, and the tokens they forwarded. */
  readonly counts: { forwards: number; tokens: number };
  score(positions: readonly PositionToScore[]): Promise<ScoredPosition[]>;
}

/** `session` is a plain decoder session (not the scorer's), `spec` its cache geometry (OrtCausalLM.spec). */
export function referenceScorer(ort: OrtModule, session: OrtSession, lm: CausalLM, spec: DecoderSpec): ReferenceScorer {
  const counts = { forwards: 0, tokens: 0 };
  const bos = lm.bosId === undefined ? [] : [lm.bosId];

  /** log p(ids[t] | ids[<t]) for every t ≥ 1, from one batch-1 forward pass and a JS log-softmax. */
  async function tokenLogProbs(ids: readonly number[]): Promise<Float64Array> {
    const T = ids.length;
    const { logits } = await session.run(bareFeeds(ort, session, spec, BigInt64Array.from(ids, BigInt), 1, T), ['logits']);
    counts.forwards++;
    counts.tokens += T;
    const data = logits.data as Float32Array;
    const V = logits.dims[2];
    const out = new Float64Array(T);
    for (let t = 0; t + 1 < T; t++) {
      const row = data.subarray(t * V, (t + 1) * V);
      let max = -Infinity;
      for (let v = 0; v < V; v++) if (row[v] > max) max = row[v];
      let sum = 0;
      for (let v = 0; v < V; v++) sum += Math.exp(row[v] - max);
      out[t + 1] = row[ids[t + 1]] - max - Math.log(sum);
    }
    return out;
  }

  async function loss(callText: string | null, p: PositionToScore): Promise<number> {
    const call = callText === null ? [] : lm.encode(callText + p.window.separator);
    const ids = [...bos, ...call, ...p.window.prefix, ...p.window.next];
    return weightedLoss(await tokenLogProbs(ids), ids.length - p.window.next.length, PAPER_WEIGHTS);
  }

  return {
    counts,
    async score(positions) {
      const scored: ScoredPosition[] = [];
      for (const p of positions) {
        const losses: Losses[] = [];
        for (const c of p.calls) {
          losses.push({ noCall: await loss(null, p), callOnly: await loss(c.callOnly, p), withResult: await loss(c.withResult, p) });
        }
        scored.push({ noCall: losses[0]?.noCall ?? (await loss(null, p)), losses });
      }
      return scored;
    },
  };
}

/**
 * Inputs of one plain decoder run without a cache: `ids` [rows, length] row-major, a full attention mask, position
 * ids 0..length−1 when the graph takes them, empty past tensors.
 */
export function bareFeeds(
  ort: OrtModule,
  session: OrtSession,
  spec: DecoderSpec,
  ids: BigInt64Array,
  rows: number,
  length: number,
): Record<string, OrtTensor> {
  const n = rows * length;
  const feeds: Record<string, OrtTensor> = {
    input_ids: new ort.Tensor('int64', ids, [rows, length]),
    attention_mask: new ort.Tensor('int64', new BigInt64Array(n).fill(1n), [rows, length]),
  };
  if (session.inputNames.includes('position_ids')) {
    feeds.position_ids = new ort.Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt(i % length)), [rows, length]);
  }
  for (let i = 0; i < spec.numLayers; i++) {
    for (const kv of ['key', 'value']) {
      feeds[`past_key_values.${i}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [rows, spec.numKvHeads, 0, spec.headDim]);
    }
  }
  return feeds;
}
