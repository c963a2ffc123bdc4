/**
 * ggml-cpu's GELU, written into an ONNX GPT-2: the CPU build of llama.cpp computes GELU (vec.h, `GGML_GELU_FP16`,
 * defined unconditionally in node-llama-cpp 3.21.1's llama.cpp) as
 *   y = 0 for x ≤ −10, y = x for x ≥ 10, else y = fp16(gelu_tanh(fp16(x)))   (a 65,536-entry float16 table)
 * where ONNX Runtime computes gelu_tanh(x) in float32. `emulateGgmlGelu` rewrites every GELU of a GPT-2 graph written
 * by pipeline/onnx/gpt2-graph.ts (input: the Add of `mlp.c_fc.bias`, output: the first input of the `mlp.c_proj`
 * MatMul) into that form with Cast and Where nodes, so ONNX Runtime runs llama.cpp's arithmetic for it and float32
 * everywhere else: if the two runtimes then agree where they did not, the table is the cause (gguf-parity.ts).
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { onnx as P } from 'onnx-proto';
import type { CausalLM, ScoreResult } from '../core/lm/lm.ts';
import { decodeModel, encodeModel, intAttr, T } from '../onnx/onnx-edit.ts';

const scalar = (name: string, value: number): P.ITensorProto => ({ name, dataType: T.FLOAT, dims: [], floatData: [value] });

/** The model's bytes with each GELU computed as ggml-cpu does (see the file's comment). Throws when none is found. */
export function emulateGgmlGelu(model: Uint8Array, options: { nudge?: boolean } = {}): Uint8Array {
  const proto = decodeModel(model);
  const graph = proto.graph!;
  const nodes = graph.node!;
  const inputs = nodes.filter((n) => n.opType === 'Add' && n.input!.some((i) => /mlp\.c_fc\.bias$/.test(i))).map((n) => n.output![0]);
  const projBias = nodes.filter((n) => n.opType === 'Add' && n.input!.some((i) => /mlp\.c_proj\.bias$/.test(i)));
  const projMatMuls = projBias.map((add) => nodes.find((n) => n.opType === 'MatMul' && add.input!.includes(n.output![0]))!);
  if (inputs.length === 0 || inputs.length !== projMatMuls.length) throw new Error(`emulateGgmlGelu: found ${inputs.length} GELU inputs and ${projMatMuls.length} outputs`);
  graph.initializer!.push(scalar('ggml_gelu.low', -10), scalar('ggml_gelu.high', 10), scalar('ggml_gelu.zero', 0), ...(options.nudge ? [scalar('ggml_gelu.ulp', 1 + 2 ** -23)] : []));
  const added: P.INodeProto[] = [];
  const node = (opType: string, input: string[], output: string, attribute: P.IAttributeProto[] = []) => {
    added.push({ opType, input, output: [output], name: output, attribute });
    return output;
  };
  const roundToHalf = (x: string, tag: string) => node('Cast', [node('Cast', [x], `${tag}.f16`, [intAttr('to', T.FLOAT16)])], `${tag}.f32`, [intAttr('to', T.FLOAT)]);
  inputs.forEach((x, layer) => {
    const tag = `ggml_gelu.${layer}`;
    // nudge: the table's input moved by one float32 ulp (x · (1 + 2⁻²³)), as a different summation order moves it.
    const xHalf = roundToHalf(options.nudge ? node('Mul', [x, 'ggml_gelu.ulp'], `${tag}.nudged`) : x, `${tag}.x`);
    // Every consumer of x but the Cast just added reads fp16(x): the tanh GELU subgraph.
    for (const n of nodes) n.input = n.input!.map((i) => (i === x ? xHalf : i));
    const mm = projMatMuls[layer];
    const y = mm.input![0];
    const table = roundToHalf(y, `${tag}.y`);
    const low = node('LessOrEqual', [x, 'ggml_gelu.low'], `${tag}.low`);
    const high = node('GreaterOrEqual', [x, 'ggml_gelu.high'], `${tag}.high`);
    const clamped = node('Where', [low, 'ggml_gelu.zero', node('Where', [high, x, table], `${tag}.upper`)], `${tag}.out`);
    mm.input![0] = clamped;
  });
  // Topological order: each new chain goes right before the MatMul that reads it (its inputs all precede that MatMul).
  for (const [layer, mm] of projMatMuls.entries()) {
    const chain = added.filter((n) => n.name!.startsWith(`ggml_gelu.${layer}.`));
    nodes.splice(nodes.indexOf(mm), 0, ...chain);
  }
  return encodeModel(proto);
}

/** A copy of the model folder `from` at `to` whose onnx/model.onnx computes GELU as ggml-cpu does. */
export function ggmlGeluModel(from: string, to: string, options: { nudge?: boolean } = {}): string {
  if (existsSync(to)) return to; // written before (a bench's work folder)
  cpSync(from, to, { recursive: true });
  writeFileSync(join(to, 'onnx/model.onnx'), emulateGgmlGelu(readFileSync(join(from, 'onnx/model.onnx')), options));
  return to;
}

/** [doc] scores of the sample's documents (bos + the first maxLength − 1 tokens), " [" as the probe. */
async function scoreSample(lm: CausalLM, texts: readonly string[]): Promise<ScoreResult[]> {
  const probe = lm.encode(' [')[0];
  const out: ScoreResult[] = [];
  for (const t of texts) out.push(...(await lm.score([{ ids: [lm.bosId!, ...lm.encode(t)].slice(0, lm.maxLength), probe }])));
  return out;
}

/** Largest |Δ| of a token's or the probe's log-prob, and how many token log-probs differ by more than 1e-4. */
function difference(a: readonly ScoreResult[], b: readonly ScoreResult[]) {
  let max = 0;
  let over = 0;
  let tokens = 0;
  a.forEach((row, i) => {
    row.tokenLogProbs.forEach((x, t) => {
      const d = Math.abs(x - b[i].tokenLogProbs[t]);
      tokens++;
      if (d > 1e-4) over++;
      max = Math.max(max, d, Math.abs(row.probeLogProbs![t] - b[i].probeLogProbs![t]));
    });
  });
  return { maxAbsDelta: Number(max.toExponential(2)), tokensOver1e4: over, tokens };
}

/**
 * The GELU table as the cause of GPT-2's gap, measured on the sample's documents: ONNX Runtime against llama.cpp's
 * f32 GGUF as they are, the same with the table in ONNX Runtime's graph, and — the size of what is left — the table's
 * graph against itself with the table's input nudged by one float32 ulp (a summation order llama.cpp's matmuls may
 * well differ in: an input near a float16 rounding boundary then reads the neighbouring entry).
 */
export async function geluEvidence(samplePath: string, modelDir: string, ggufF32: string, work: string, load: (model: string) => Promise<CausalLM & { release?(): Promise<void> }>, documents?: number) {
  const texts = readFileSync(samplePath, 'utf8').trim().split('\n').slice(0, documents).map((l) => (JSON.parse(l) as { text: string }).text);
  const scores: ScoreResult[][] = [];
  for (const model of [modelDir, ggmlGeluModel(modelDir, join(work, 'gelu-table')), ggmlGeluModel(modelDir, join(work, 'gelu-table-nudged'), { nudge: true }), ggufF32]) {
    const lm = await load(model);
    scores.push(await scoreSample(lm, texts));
    await lm.release?.();
  }
  const [ort, table, nudged, llama] = scores;
  return {
    documents: texts.length,
    ortVsLlamaCpp: difference(ort, llama),
    ortWithTableVsLlamaCpp: difference(table, llama),
    ortVsOrtWithTable: difference(ort, table),
    ortWithTableVsNudgedByOneUlp: difference(table, nudged),
  };
}

/**
 * The exact-GELU llama.cpp build (`--llama-gelu exact`) on the same documents: against ONNX Runtime (what is left
 * once the table is gone) and against the prebuilt table build (the table's size, seen from llama.cpp's side).
 */
export async function exactBuildEvidence(samplePath: string, modelDir: string, ggufF32: string, load: (model: string, exact: boolean) => Promise<CausalLM & { release?(): Promise<void> }>, documents?: number) {
  const texts = readFileSync(samplePath, 'utf8').trim().split('\n').slice(0, documents).map((l) => (JSON.parse(l) as { text: string }).text);
  const scores: ScoreResult[][] = [];
  for (const [model, exact] of [[modelDir, false], [ggufF32, true], [ggufF32, false]] as const) {
    const lm = await load(model, exact);
    scores.push(await scoreSample(lm, texts));
    await lm.release?.();
  }
  const [ort, exact, table] = scores;
  return { documents: texts.length, ortVsExactBuild: difference(ort, exact), exactBuildVsTableBuild: difference(exact, table) };
}
