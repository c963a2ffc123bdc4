/**
 * One runtime of the backends bench (backends.ts), held open in its own process so the runtimes' rounds can be
 * interleaved: it loads the model once, then answers each line on stdin with one JSON line on stdout.
 *
 *   npx tsx pipeline/bench/backends-child.ts --runtime onnx|llama.cpp|served --model M [--tokenizer DIR]
 *                                            --rows R --length L
 *
 * Requests (one word a line) and what is timed, on the R × L rows of real-size-shape.ts (ids below 256):
 *   losses   CausalLM.score, each row read at its last LOSS_READS positions (the L_a / L_b / L_c read)
 *   probe    CausalLM.score, every position read with the " [" probe id PROBE_ID (the p_i read)
 *   forward  the runtime's bare forward: ONNX Runtime a bare InferenceSession fetching the [R, L, V] logits; llama.cpp
 *            the same rows decoded with the head's output read at one position per row (node-llama-cpp reads logits
 *            only where a caller asks for them); the served backend has none (its runtime is ONNX Runtime's)
 *   logits <file>  (onnx only) the float32 logits of the first 2 rows written to <file> (PyTorch's check)
 * Answer: {"cpuSeconds", "wallSeconds"} — this process's CPU (user + system, all its threads); the served runtime's
 * server is another process, read by the parent. Before each timed request llama.cpp's sequences are filled with
 * other tokens, so no row is served from the KV cache of an earlier round.
 */
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { CausalLM, ScoreRequest } from '../core/lm/lm.ts';
import { scriptFlag } from '../io/script-flag.ts';
import { openLM } from '../node/model/lm-backends/registry.ts';
import { loadModel } from '../node/model/load-model.ts';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { LOSS_READS, PROBE_ID, rowIds } from './real-size-shape.ts';

type Runtime = 'onnx' | 'llama.cpp' | 'served';
const runtime = scriptFlag('runtime', 'onnx') as Runtime;
const model = scriptFlag('model', 'models/default');
const [R, L] = [Number(scriptFlag('rows', '16')), Number(scriptFlag('length', '128'))];
const ids = rowIds(R, L);

const lm: CausalLM & { release?(): Promise<void> } =
  runtime === 'onnx' ? await loadModel(model) : await openLM(model, runtime === 'served' ? { tokenizer: scriptFlag('tokenizer', '') } : { threads: 1 });

/** The ONNX folder's bare session (1 intra-op thread, as the scorer runs it), opened on first use. */
let bare: { session: ort.InferenceSession; feeds: Record<string, ort.Tensor> } | undefined;
async function bareSession() {
  if (bare) return bare;
  const session = await ort.InferenceSession.create(join(model, 'onnx/model.onnx'), { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' });
  return (bare = { session, feeds: forwardFeeds(session, ids) });
}

/** input_ids, attention_mask, position_ids (when the graph takes them) and empty past tensors of the graph's shapes. */
function forwardFeeds(session: ort.InferenceSession, rows: number[][]): Record<string, ort.Tensor> {
  const [r, l] = [rows.length, rows[0].length];
  const int64 = (values: number[]) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), [r, l]);
  const feeds: Record<string, ort.Tensor> = { input_ids: int64(rows.flat()), attention_mask: int64(new Array(r * l).fill(1)) };
  if (session.inputNames.includes('position_ids')) feeds.position_ids = int64(Array.from({ length: r * l }, (_, i) => i % l));
  for (const meta of session.inputMetadata) {
    if (!meta.name.startsWith('past_key_values') || !('shape' in meta)) continue;
    const dims = meta.shape.map((d, i) => (i === 0 ? r : typeof d === 'number' ? d : 0));
    feeds[meta.name] = new ort.Tensor('float32', new Float32Array(0), dims as number[]);
  }
  return feeds;
}

const losses: ScoreRequest[] = ids.map((row) => ({ ids: row, from: L - LOSS_READS }));
const probes: ScoreRequest[] = ids.map((row) => ({ ids: row, probe: PROBE_ID }));
const oneRead: ScoreRequest[] = ids.map((row) => ({ ids: row, from: L - 1 }));
/** Requests whose first token starts no row (rowIds start at 31·r mod 256 < 255): they take every sequence's cache. */
const flush: ScoreRequest[] = Array.from({ length: 16 }, () => ({ ids: [255, 254], from: 1 }));

async function run(request: string): Promise<void> {
  if (request.startsWith('logits ')) {
    const { session } = await bareSession();
    const { logits } = await session.run(forwardFeeds(session, ids.slice(0, 2)), ['logits']);
    writeFileSync(request.slice('logits '.length), new Uint8Array((logits.data as Float32Array).buffer));
    return;
  }
  if (request === 'forward' && runtime === 'onnx') {
    const { session, feeds } = await bareSession();
    await session.run(feeds, ['logits']);
    return;
  }
  const batch = request === 'losses' ? losses : request === 'probe' ? probes : request === 'forward' && runtime === 'llama.cpp' ? oneRead : undefined;
  if (!batch) throw new Error(`${runtime}: no workload ${JSON.stringify(request)}`);
  await lm.score(batch);
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const request = line.trim();
  if (request === 'exit') break;
  try {
    if (runtime === 'llama.cpp') await lm.score(flush);
    const [c0, t0] = [process.cpuUsage(), performance.now()];
    await run(request);
    const c = process.cpuUsage(c0);
    console.log(JSON.stringify({ cpuSeconds: (c.user + c.system) / 1e6, wallSeconds: (performance.now() - t0) / 1000 }));
  } catch (error) {
    console.log(JSON.stringify({ error: (error as Error).message.split('\n')[0] }));
  }
}
await bare?.session.release();
await lm.release?.();
process.exit(0);
