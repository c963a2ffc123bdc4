/**
 * The backends bench's result (results/backends.json) and its Markdown (results/backends.md, included in the READMEs
 * by `npm run docs`). Pure: the numbers in, the text out.
 */
import { f } from './format.ts';
import type { RowsResult, Workload } from './backends-rows.ts';

export interface AnnotateRow {
  backend: string;
  /** CPU seconds of each round's whole command (the served row: + the server's). */
  cpuSeconds: number[];
  scoredCalls: number;
  /** The fastest round's CPU seconds / scored calls. */
  cpuPerScoredCall: number;
  keptCalls: number;
  sameTrainAsOrt: boolean;
  sameVerdictsAsOrt: boolean;
  maxLossGapNats: number;
  error?: string;
}

export interface BackendsResult {
  date: string;
  command: string;
  minutes: number;
  loadAverage: number[];
  docs: number;
  annotate?: AnnotateRow[];
  rows: (RowsResult & { shape: string })[];
  /** What a reader must know that the numbers do not say (added with `--render`). */
  notes?: string[];
}

/** Tokens per CPU second of `runtime`'s `workload` (R × L tokens per round); undefined where it did not run. */
export function tokensPerSecond(r: RowsResult, runtime: string, workload: Workload): number | undefined {
  const cpu = r.runtimes.find((x) => x.runtime === runtime)?.cpuSeconds[workload];
  return cpu === undefined ? undefined : (r.rows * r.length) / cpu;
}

/** The bare forwards a comparison may use: the head at one position per row, at every position, or either. */
export type ForwardKind = 'forwardOne' | 'forwardAll' | 'any';

/** The runtimes on float32 weights (the precision `auto` compares): the others are onnx q8, llama.cpp f16 and q8_0. */
export const isFloat32 = (runtime: string) => ['onnx', 'llama.cpp f32', 'PyTorch'].includes(runtime) || runtime.startsWith('served');

/**
 * The runtime with the fastest bare forward of `kind` (tokens per CPU second) among those `which` admits, its rate
 * and which forward it was.
 */
export function fastestForward(r: RowsResult, kind: ForwardKind = 'any', which: (runtime: string) => boolean = () => true): { runtime: string; tokensPerSecond: number; workload: Workload } {
  let best = { runtime: '', tokensPerSecond: 0, workload: 'forwardAll' as Workload };
  for (const x of r.runtimes.filter((y) => which(y.runtime))) {
    for (const workload of kind === 'any' ? (['forwardOne', 'forwardAll'] as const) : [kind]) {
      const t = tokensPerSecond(r, x.runtime, workload);
      if (t !== undefined && t > best.tokensPerSecond) best = { runtime: x.runtime, tokensPerSecond: t, workload };
    }
  }
  return best;
}

/**
 * The bare forward a scorer read is compared with like for like: the losses (the head at LOSS_READS positions per
 * row) with the head at one position per row, p_i (the head at every position) with the head at every position.
 */
export const SAME_HEADS = { losses: 'forwardOne', probe: 'forwardAll' } as const;

/**
 * What `--model auto:…` compares (lm-backends/auto.ts): the CPU seconds of the scorer's two reads together (losses +
 * p_i) of ONNX Runtime and of llama.cpp at f32, the same weights at the same precision.
 */
export function scorerCpu(r: RowsResult, runtime: string): number | undefined {
  const c = r.runtimes.find((x) => x.runtime === runtime)?.cpuSeconds;
  return c?.losses === undefined || c.probe === undefined ? undefined : c.losses + c.probe;
}

const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? '—' : `${f(a / b, 2)}`);
const rate = (x: number | undefined) => (x === undefined ? '—' : f(x));
const HEADS: Record<Workload, string> = { forwardOne: 'head at 1 position per row', forwardAll: 'head at every position', losses: 'losses', probe: 'p_i' };
const named = (x: { runtime: string; tokensPerSecond: number; workload: Workload }) => `${x.runtime} (${HEADS[x.workload]}), ${f(x.tokensPerSecond)} tok/s`;

function runtimeLine(r: RowsResult, x: RowsResult['runtimes'][number]): string {
  if (x.error) return `| ${x.runtime} | not run: ${x.error} | | | | | | |`;
  const t = (w: Workload) => tokensPerSecond(r, x.runtime, w);
  const own = (w: Workload) => tokensPerSecond(r, x.runtime.startsWith('served') ? 'onnx' : x.runtime, w);
  const [lo, pi] = [t('losses'), t('probe')];
  const same = { losses: fastestForward(r, SAME_HEADS.losses).tokensPerSecond, probe: fastestForward(r, SAME_HEADS.probe).tokensPerSecond };
  const any = fastestForward(r).tokensPerSecond;
  const perCall = x.cpuSeconds.losses === undefined ? '—' : f((3 * x.cpuSeconds.losses) / r.rows, 4);
  const gap = r.logProbGap?.[x.runtime];
  const gapCell = x.runtime === 'onnx' ? '0 (reference)' : gap === undefined ? '—' : gap.toExponential(1);
  return (
    `| ${x.runtime} | ${rate(t('forwardOne'))}; ${rate(t('forwardAll'))} | ${rate(lo)}; ${rate(pi)} | ${ratio(lo, own('forwardOne'))}; ${ratio(pi, own('forwardAll'))} | ` +
    `${ratio(lo, same.losses)}; ${ratio(pi, same.probe)} | ${ratio(lo, any)}; ${ratio(pi, any)} | ${perCall} | ${gapCell} |`
  );
}

/** The runtimes on 8-bit weights: ONNX Runtime q8 and llama.cpp q8_0. */
export const isInt8 = (runtime: string) => ['onnx q8', 'llama.cpp q8_0'].includes(runtime);

/**
 * `runtime`'s slower scorer read over the fastest bare forward with the head on the same positions among `which`
 * (undefined where the runtime's scorer did not run), and the text naming both reads.
 */
function likeForLike(r: RowsResult, runtime: string, which?: (runtime: string) => boolean): { ratio: number; text: string } | undefined {
  const [lo, pi] = [tokensPerSecond(r, runtime, 'losses'), tokensPerSecond(r, runtime, 'probe')];
  if (lo === undefined || pi === undefined) return undefined;
  const [a, b] = [fastestForward(r, SAME_HEADS.losses, which), fastestForward(r, SAME_HEADS.probe, which)];
  const [x, y] = [lo / a.tokensPerSecond, pi / b.tokensPerSecond];
  return { ratio: Math.min(x, y), text: `losses ${f(x, 2)} (over ${named(a)}), p_i ${f(y, 2)} (over ${named(b)})` };
}

/**
 * The sentence on `--model auto:…`'s pick: its slower read against the fastest bare forward, like for like at each
 * precision (float32: the pick; 8-bit: ONNX Runtime q8, what auto runs on the CPU with `--dtype q8`, since it picks
 * the runtime and the dtype picks the file), across precisions and of any kind.
 */
function autoLine(r: RowsResult): string | undefined {
  const [o, l] = [scorerCpu(r, 'onnx'), scorerCpu(r, 'llama.cpp f32')];
  if (o === undefined || l === undefined) return undefined;
  const pick = o <= l ? 'onnx' : 'llama.cpp f32';
  const picked = `\`--model auto:…\` picks **${pick}** here (scorer CPU, losses + p_i: ONNX Runtime ${f(o, 2)} s, llama.cpp f32 ${f(l, 2)} s).`;
  const any = fastestForward(r);
  if (any.tokensPerSecond === 0) return `${picked} No bare forward was measured, so no ratio to one.`;
  const [all, f32] = [likeForLike(r, pick)!, likeForLike(r, pick, isFloat32)!];
  const int8Pick = pick === 'onnx' ? 'onnx q8' : 'llama.cpp q8_0';
  const int8 = likeForLike(r, int8Pick, isInt8);
  const anyRatio = Math.min(tokensPerSecond(r, pick, 'losses')!, tokensPerSecond(r, pick, 'probe')!) / any.tokensPerSecond;
  const verdict = (x: number) => (x >= 0.9 ? 'at least' : 'below');
  const int8Text = int8 ? `at 8-bit, ${int8Pick} (what auto runs with \`--dtype q8\`) over the 8-bit runtimes: ${int8.text}, the slower **${f(int8.ratio, 2)}**; ` : '';
  return (
    `${picked} Its reads over the fastest bare forward with the head on the same positions, at its precision (float32): ${f32.text}, the slower **${f(f32.ratio, 2)}**; ` +
    int8Text +
    `across precisions (float32 against every runtime, 8-bit ones included): ${all.text}, the slower **${f(all.ratio, 2)}**; ` +
    `its slower read over the fastest bare forward of any kind (${named(any)}): **${f(anyRatio, 2)}**. ` +
    `Against the 0.9 issue 45 asks: like for like at float32 ${verdict(f32.ratio)}, ${int8 ? `at 8-bit ${verdict(int8.ratio)}, ` : ''}` +
    `across precisions ${verdict(all.ratio)}, of any kind ${verdict(anyRatio)}.`
  );
}

/** ONNX Runtime with int8 weights against llama.cpp q8_0, the like-for-like 8-bit peers. */
function int8Line(r: RowsResult): string | undefined {
  const [q8, q80] = ['onnx q8', 'llama.cpp q8_0'].map((n) => r.runtimes.find((x) => x.runtime === n && !x.error));
  if (!q8 || !q80) return undefined;
  const cmp = (w: Workload) => {
    const [a, b] = [tokensPerSecond(r, q8.runtime, w), tokensPerSecond(r, q80.runtime, w)];
    return a === undefined || b === undefined ? undefined : { w, a, b };
  };
  const parts = (['losses', 'probe', 'forwardOne', 'forwardAll'] as const).map(cmp).filter((x) => x !== undefined);
  const faster = parts.filter((p) => p.a > p.b).map((p) => HEADS[p.w]);
  const gap = (n: string) => (r.logProbGap?.[n] === undefined ? '—' : r.logProbGap[n].toExponential(1));
  return (
    'ONNX Runtime q8 (`onnx/model_quantized.onnx`, Transformers.js\'s `q8`: int8 weights with a scale per output column, ' +
    'the tied embedding and LM head kept float32; pipeline/onnx-export/quantize.ts) against llama.cpp q8_0, tok/s: ' +
    parts.map((p) => `${HEADS[p.w]} ${f(p.a)} vs ${f(p.b)} (${f(p.a / p.b, 2)}×)`).join(', ') +
    `. ONNX Runtime q8 is faster on ${faster.length ? faster.join(', ') : 'none of them'}. ` +
    `Largest |Δ log p| from ONNX Runtime f32 (every position, next id and probe): q8 ${gap(q8.runtime)}, q8_0 ${gap(q80.runtime)}.`
  );
}

function rowsTable(r: RowsResult & { shape: string }): string[] {
  const onnx = r.runtimes.find((x) => x.runtime === 'onnx')!;
  const [one, all] = [fastestForward(r, 'forwardOne'), fastestForward(r, 'forwardAll')];
  const lines = [
    `**${r.model}** — ${r.rows} rows × ${r.length} tokens, median of ${r.rounds} interleaved rounds after a warm-up (load average ${r.loadAverage.join(' → ')}). ` +
      `Fastest bare forward, head at 1 position per row: ${one.runtime}, ${f(one.tokensPerSecond)} tok/s; head at every position: ${all.runtime}, ${f(all.tokensPerSecond)} tok/s.`,
    '',
    '| runtime | bare forward tok/s: head at 1 position; every position | scorer tok/s: losses; p_i | scorer / own forward, same heads: losses; p_i | ' +
      'scorer / fastest forward, same heads: losses; p_i | scorer / fastest forward of any kind: losses; p_i | CPU s per scored call | largest \\|Δ log p\\| from onnx f32 |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...r.runtimes.map((x) => runtimeLine(r, x)),
    '',
  ];
  const served = r.runtimes.find((x) => x.runtime.startsWith('served'));
  if (served && !served.error) {
    lines.push(`Served over in-process ONNX Runtime, CPU (client + server): losses ${ratio(served.cpuSeconds.losses, onnx.cpuSeconds.losses)}×, p_i ${ratio(served.cpuSeconds.probe, onnx.cpuSeconds.probe)}×.`);
  }
  if (r.torchCheck) {
    const c = r.torchCheck;
    lines.push(`PyTorch (torch ${c.torch}, BLAS ${c.blas.map((b) => `\`${b.split('/').at(-1)}\``).join(', ')}) computes the same model: largest |logit| difference from ONNX Runtime ${c.maxAbsLogitDiff.toExponential(1)}, |log-prob| ${c.maxAbsLogProbDiff.toExponential(1)} (2 rows, every position and id).`);
  }
  for (const line of [int8Line(r), autoLine(r)]) if (line) lines.push(line);
  return lines;
}

function annotateTable(rows: AnnotateRow[], docs: number): string[] {
  const ort = rows[0];
  return [
    `\`annotate corpus/sample.jsonl --max-docs ${docs} --workers 1 --no-probe-cache\` with models/default on each backend, the rounds interleaved; CPU of the whole command (process start and model load included; the served row adds the server's), the fastest round.`,
    '',
    '| backend | CPU s per scored call | × ONNX in-process | CPU s per round | scored calls | kept | train.jsonl as ONNX | verdicts as ONNX | largest \\|Δ loss\\|, nats |',
    '|---|---:|---:|---|---:|---:|---|---|---:|',
    ...rows.map((r) =>
      r.error
        ? `| ${r.backend} | failed: ${r.error} | | | | | | | |`
        : `| ${r.backend} | ${f(r.cpuPerScoredCall, 4)} | ${f(r.cpuPerScoredCall / ort.cpuPerScoredCall, 2)} | ${r.cpuSeconds.join(', ')} | ${r.scoredCalls} | ${r.keptCalls} | ${r.sameTrainAsOrt ? 'same' : 'differs'} | ${r.sameVerdictsAsOrt ? 'same' : 'differ'} | ${r.maxLossGapNats} |`,
    ),
  ];
}

export function backendsMarkdown(r: BackendsResult): string {
  return [
    `Measured by \`${r.command}\` on ${r.date} (${r.minutes} min; 2 shared cores, other jobs running: load average ${r.loadAverage.join(' → ')}). ` +
      'Every runtime on 1 thread; rates are tokens per CPU second of the runtime\'s process (the served rows add the server\'s). ' +
      'Each runtime\'s bare forward is measured twice: with the LM head (576 × 49,152 at the 135M shape) at each row\'s last position only ' +
      '(ONNX Runtime: the file with num_logits_to_keep = 1; llama.cpp: one output position per row in llama_decode; PyTorch: the head on the last hidden state) ' +
      'and at every position (ONNX Runtime and PyTorch: the [R, L, V] logits; llama.cpp: every position an output); nothing is read back beyond that. ' +
      'The scorer: losses read each row\'s last 5 positions, p_i every position with the " [" probe, so like for like ("same heads") the losses are set against ' +
      'the one-position forward and p_i against the every-position one; "of any kind" is the fastest of all forwards (before 2026-12-05 the only ratio shown). ' +
      'A scored call here is three such rows (L_a, L_b, L_c).',
    '',
    ...(r.notes ?? []).flatMap((n) => [n, '']),
    ...r.rows.flatMap((x) => [...rowsTable(x), '']),
    ...(r.annotate ? [...annotateTable(r.annotate, r.docs), ''] : []),
  ].join('\n');
}
