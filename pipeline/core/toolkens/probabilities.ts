/**
 * p(toolken) at every position of a text — what the explorer draws beside p_i(" ["): the probability of each
 * toolken under the concatenated softmax over [z_v ; z_τ + bias], from one forward pass (HiddenStateLM). Isomorphic.
 */
import type { HiddenStateLM } from '../lm/lm.ts';
import { toolkenLogits, type Toolkens } from './file.ts';

/** [T × n_tools] row-major: p(toolken k | ids[0..t]) for each position t. */
export async function toolkenProbabilities(lm: HiddenStateLM, toolkens: Toolkens, ids: readonly number[], bias = 0): Promise<Float32Array> {
  const { hidden, logits, hiddenSize: C, vocabSize: V } = await lm.hiddenStates(ids);
  if (C !== toolkens.hiddenSize) throw new Error(`toolkens: made for hidden size ${toolkens.hiddenSize}, the model's is ${C}`);
  const n = toolkens.tools.length;
  const T = ids.length;
  const out = new Float32Array(T * n);
  for (let t = 0; t < T; t++) {
    const z = toolkenLogits(toolkens, hidden, bias, t * C);
    let max = -Infinity;
    for (let v = 0; v < V; v++) max = Math.max(max, logits[t * V + v]);
    for (const x of z) max = Math.max(max, x);
    let sum = 0;
    for (let v = 0; v < V; v++) sum += Math.exp(logits[t * V + v] - max);
    for (const x of z) sum += Math.exp(x - max);
    for (let k = 0; k < n; k++) out[t * n + k] = Math.exp(z[k] - max) / sum;
  }
  return out;
}
