/**
 * One plain forward pass of a GPT-2 ONNX decoder with empty past (the Optimum/Transformers.js contract: inputs
 * `input_ids`, `attention_mask`, `past_key_values.{i}.key|value`; outputs `logits`, `present.{i}.key|value`), used only to measure the runtime's raw throughput next to the scorer's. Feeds are built from the session's input
 * metadata: `past_key_values.*` get shape [batch, n_head, 0, head_dim].
 */
import type { Ort } from '../../../web/src/ort-web.ts';

type Session = Awaited<ReturnType<Ort['InferenceSession']['create']>>;

export function forwardFeeds(ort: Ort, session: Session, batch: number, length: number): Record<string, InstanceType<Ort['Tensor']>> {
  const feeds: Record<string, InstanceType<Ort['Tensor']>> = {};
  const n = batch * length;
  const ids = new BigInt64Array(n);
  for (let i = 0; i < n; i++) ids[i] = BigInt((i * 7919) % 200);
  const positions = new BigInt64Array(n);
  for (let b = 0; b < batch; b++) for (let t = 0; t < length; t++) positions[b * length + t] = BigInt(t);
  const meta = session.inputMetadata as readonly { name: string; isTensor: boolean; type?: string; shape?: readonly (number | string)[] }[];
  for (const input of meta) {
    if (input.name === 'input_ids') feeds[input.name] = new ort.Tensor('int64', ids, [batch, length]);
    else if (input.name === 'attention_mask') feeds[input.name] = new ort.Tensor('int64', new BigInt64Array(n).fill(1n), [batch, length]);
    else if (input.name === 'position_ids') feeds[input.name] = new ort.Tensor('int64', positions, [batch, length]);
    else if (input.name.startsWith('past_key_values')) {
      const dims = (input.shape ?? []).map((d, i) => (i === 0 ? batch : typeof d === 'number' ? d : 0));
      // The graph's own cache type: float16 in fp16 / q4f16 files.
      feeds[input.name] = input.type === 'float16' ? new ort.Tensor('float16', new Uint16Array(0), dims) : new ort.Tensor('float32', new Float32Array(0), dims);
    } else if (input.name === 'num_logits_to_keep') feeds[input.name] = new ort.Tensor('int64', BigInt64Array.of(0n), []);
    else if (input.name === 'use_cache_branch') feeds[input.name] = new ort.Tensor('bool', Uint8Array.of(0), [1]);
  }
  return feeds;
}

/** Tokens/s of `repeats` forward passes of [batch, length] after one warm-up pass; only `logits` is fetched. */
export async function rawForwardThroughput(ort: Ort, session: Session, batch: number, length: number, repeats: number): Promise<number> {
  const feeds = forwardFeeds(ort, session, batch, length);
  await session.run(feeds, ['logits']);
  const t0 = performance.now();
  for (let r = 0; r < repeats; r++) await session.run(feeds, ['logits']);
  return (batch * length * repeats) / ((performance.now() - t0) / 1000);
}
