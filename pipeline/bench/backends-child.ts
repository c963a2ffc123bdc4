/**
 * One runtime of the backends bench (backends.ts), held open in its own process so the runtimes' rounds can be
 * interleaved: it loads the model once, then answers each line on stdin with one JSON line on stdout.
 *
 *   npx tsx pipeline/bench/backends-child.ts --runtime onnx|llama.cpp|served --model M [--dtype fp32|q8]
 *                                            [--tokenizer DIR] --rows R --length L
 *
 * Requests (one word a line) and what is timed, on the R × L rows of real-size-shape.ts (ids below 256):
 *   losses      CausalLM.score, each row read at its last LOSS_READS positions (the L_a / L_b / L_c read)
 *   probe       CausalLM.score, every position read with the " [" probe id PROBE_ID (the p_i read)
 *   forwardOne  the runtime's bare forward, the LM head at each row's last position only: ONNX Runtime a bare
 *               InferenceSession on the dtype's file with num_logits_to_keep = 1 (logits-to-keep.ts adds the input
 *               when the file has none) fetching [R, 1, V]; llama.cpp the rows decoded with one output position each
 *               (backends-llama-bare.ts)
 *   forwardAll  the same with the head at every position: ONNX Runtime num_logits_to_keep = 0, the [R, L, V] logits
 *               fetched; llama.cpp every position an output. The served backend has no bare forward (its runtime is
 *               ONNX Runtime's).
 *   logits <file>    (onnx only) the float32 logits of the first 2 rows written to <file> (PyTorch's check)
 *   logprobs <file>  the probe request's log-probs (every position: next id and probe), JSON [[token], [probe]] per
 *                    row, written to <file>, untimed (the parent's largest-difference-from-f32 column)
 * Answer: {"cpuSeconds", "wallSeconds"} — this process's CPU (user + system, all its threads); the served runtime's
 * server is another process, read by the parent. Before each timed request llama.cpp's sequences are filled with
 * other tokens, so no row is served from the KV cache of an earlier round.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import * as ort from 'onnxruntime-node';
import { DTYPE_FILES, isDtype, type Dtype } from '../core/lm/dtypes.ts';
import type { CausalLM, ScoreRequest } from '../core/lm/lm.ts';
import { scriptFlag } from '../io/script-flag.ts';
import { openLM } from '../node/model/lm-backends/registry.ts';
import { loadModel } from '../node/model/load-model.ts';
import { addNumLogitsToKeepToGraph } from '../onnx/logits-to-keep.ts';
import { decodeModel, encodeModel } from '../onnx/onnx-edit.ts';
import { openLlamaBare, type Heads, type LlamaBare } from './backends-llama-bare.ts';
import { LOSS_READS, PROBE_ID, rowIds } from './real-size-shape.ts';

type Runtime = 'onnx' | 'llama.cpp' | 'served';
const runtime = scriptFlag('runtime', 'onnx') as Runtime;
const model = scriptFlag('model', 'models/default');
const dtypeFlag = scriptFlag('dtype', 'fp32');
if (!isDtype(dtypeFlag)) throw new Error(`--dtype ${dtypeFlag}: not an ONNX dtype`);
const dtype: Dtype = dtypeFlag;
const [R, L] = [Number(scriptFlag('rows', '16')), Number(scriptFlag('length', '128'))];
const ids = rowIds(R, L);

const lm: CausalLM & { release?(): Promise<void> } =
  runtime === 'onnx' ? await loadModel(model, { dtype }) : await openLM(model, runtime === 'served' ? { tokenizer: scriptFlag('tokenizer', '') } : { threads: 1 });

/** The ONNX file's bare session (1 intra-op thread, as the scorer runs it) with a num_logits_to_keep input, opened on first use. */
let bare: ort.InferenceSession | undefined;
async function bareSession(): Promise<ort.InferenceSession> {
  if (bare) return bare;
  const proto = decodeModel(readFileSync(join(model, 'onnx', DTYPE_FILES[dtype])));
  if (!proto.graph!.input!.some((i) => i.name === 'num_logits_to_keep')) addNumLogitsToKeepToGraph(proto.graph!);
  return (bare = await ort.InferenceSession.create(encodeModel(proto), { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' }));
}

/** input_ids, attention_mask, position_ids (when the graph takes them), num_logits_to_keep and empty past tensors of the graph's shapes. */
function forwardFeeds(session: ort.InferenceSession, rows: number[][], keep: number): Record<string, ort.Tensor> {
  const [r, l] = [rows.length, rows[0].length];
  const int64 = (values: number[]) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), [r, l]);
  const feeds: Record<string, ort.Tensor> = { input_ids: int64(rows.flat()), attention_mask: int64(new Array(r * l).fill(1)) };
  if (session.inputNames.includes('position_ids')) feeds.position_ids = int64(Array.from({ length: r * l }, (_, i) => i % l));
  feeds.num_logits_to_keep = new ort.Tensor('int64', BigInt64Array.of(BigInt(keep)), []);
  for (const meta of session.inputMetadata) {
    if (!meta.name.startsWith('past_key_values') || !('shape' in meta)) continue;
    const dims = meta.shape.map((d, i) => (i === 0 ? r : typeof d === 'number' ? d : 0));
    feeds[meta.name] = meta.type === 'float16' ? new ort.Tensor('float16', new Uint16Array(0), dims as number[]) : new ort.Tensor('float32', new Float32Array(0), dims as number[]);
  }
  return feeds;
}

let llamaBare: LlamaBare | undefined;
async function forward(heads: Heads): Promise<void> {
  if (runtime === 'llama.cpp') return (await (llamaBare ??= await openLlamaBare(model, L))).forward(ids, heads);
  if (runtime !== 'onnx') throw new Error(`${runtime}: no bare forward`);
  const session = await bareSession();
  await session.run(forwardFeeds(session, ids, heads === 'one' ? 1 : 0), ['logits']);
}

const losses: ScoreRequest[] = ids.map((row) => ({ ids: row, from: L - LOSS_READS }));
const probes: ScoreRequest[] = ids.map((row) => ({ ids: row, probe: PROBE_ID }));
/** Requests whose first token starts no row (rowIds start at 31·r mod 256 < 255): they take every sequence's cache. */
const flush: ScoreRequest[] = Array.from({ length: 16 }, () => ({ ids: [255, 254], from: 1 }));

/** The untimed requests: files for the parent's checks. */
async function write(request: string): Promise<boolean> {
  const [what, file] = request.split(' ');
  if (what === 'logits') {
    const session = await bareSession();
    const { logits } = await session.run(forwardFeeds(session, ids.slice(0, 2), 0), ['logits']);
    writeFileSync(file, new Uint8Array((logits.data as Float32Array).buffer));
  } else if (what === 'logprobs') {
    const scored = await lm.score(probes);
    writeFileSync(file, JSON.stringify(scored.map((s) => [Array.from(s.tokenLogProbs), Array.from(s.probeLogProbs!)])));
  } else return false;
  return true;
}

async function run(request: string): Promise<void> {
  if (request === 'forwardOne' || request === 'forwardAll') return forward(request === 'forwardOne' ? 'one' : 'all');
  if (request !== 'losses' && request !== 'probe') throw new Error(`${runtime}: no workload ${JSON.stringify(request)}`);
  await lm.score(request === 'losses' ? losses : probes);
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const request = line.trim();
  if (request === 'exit') break;
  try {
    if (await write(request)) {
      console.log('{}');
      continue;
    }
    if (runtime === 'llama.cpp') await lm.score(flush);
    const [c0, t0] = [process.cpuUsage(), performance.now()];
    await run(request);
    const c = process.cpuUsage(c0);
    console.log(JSON.stringify({ cpuSeconds: (c.user + c.system) / 1e6, wallSeconds: (performance.now() - t0) / 1000 }));
  } catch (error) {
    console.log(JSON.stringify({ error: (error as Error).message.split('\n')[0] }));
  }
}
await bare?.release();
await llamaBare?.release();
await lm.release?.();
process.exit(0);
