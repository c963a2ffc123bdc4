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

/** The runtime with the fastest bare forward (tokens per CPU second), and its rate. */
export function fastestForward(r: RowsResult): { runtime: string; tokensPerSecond: number } {
  let best = { runtime: '', tokensPerSecond: 0 };
  for (const x of r.runtimes) {
    const t = tokensPerSecond(r, x.runtime, 'forward');
    if (t !== undefined && t > best.tokensPerSecond) best = { runtime: x.runtime, tokensPerSecond: t };
  }
  return best;
}

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

function rowsTable(r: RowsResult & { shape: string }): string[] {
  const fastest = fastestForward(r);
  const onnx = r.runtimes.find((x) => x.runtime === 'onnx')!;
  const lines = [
    `**${r.model}** — ${r.rows} rows × ${r.length} tokens, median of ${r.rounds} interleaved rounds after a warm-up (load average ${r.loadAverage.join(' → ')}). ` +
      `Fastest bare forward: ${fastest.runtime}, ${f(fastest.tokensPerSecond)} tok/s.`,
    '',
    '| runtime | bare forward tok/s | scorer tok/s: losses; p_i | scorer / own forward: losses; p_i | scorer / fastest forward: losses; p_i | CPU s per scored call |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const x of r.runtimes) {
    if (x.error) {
      lines.push(`| ${x.runtime} | not run: ${x.error} | | | | |`);
      continue;
    }
    const [fw, lo, pi] = (['forward', 'losses', 'probe'] as const).map((w) => tokensPerSecond(r, x.runtime, w));
    const own = x.runtime.startsWith('served') ? tokensPerSecond(r, 'onnx', 'forward') : fw;
    const perCall = x.cpuSeconds.losses === undefined ? '—' : f((3 * x.cpuSeconds.losses) / r.rows, 4);
    lines.push(`| ${x.runtime} | ${rate(fw)} | ${rate(lo)}; ${rate(pi)} | ${ratio(lo, own)}; ${ratio(pi, own)} | ${ratio(lo, fastest.tokensPerSecond)}; ${ratio(pi, fastest.tokensPerSecond)} | ${perCall} |`);
  }
  const served = r.runtimes.find((x) => x.runtime.startsWith('served'));
  lines.push('');
  if (served && !served.error) {
    lines.push(`Served over in-process ONNX Runtime, CPU (client + server): losses ${ratio(served.cpuSeconds.losses, onnx.cpuSeconds.losses)}×, p_i ${ratio(served.cpuSeconds.probe, onnx.cpuSeconds.probe)}×.`);
  }
  if (r.torchCheck) {
    const c = r.torchCheck;
    lines.push(`PyTorch (torch ${c.torch}, BLAS ${c.blas.map((b) => `\`${b.split('/').at(-1)}\``).join(', ')}) computes the same model: largest |logit| difference from ONNX Runtime ${c.maxAbsLogitDiff.toExponential(1)}, |log-prob| ${c.maxAbsLogProbDiff.toExponential(1)} (2 rows, every position and id).`);
  }
  const [o, l] = [scorerCpu(r, 'onnx'), scorerCpu(r, 'llama.cpp f32')];
  if (o !== undefined && l !== undefined) {
    const pick = o <= l ? 'onnx' : 'llama.cpp f32';
    const best = pick === 'onnx' ? Math.min(tokensPerSecond(r, 'onnx', 'losses')!, tokensPerSecond(r, 'onnx', 'probe')!) : Math.min(tokensPerSecond(r, 'llama.cpp f32', 'losses')!, tokensPerSecond(r, 'llama.cpp f32', 'probe')!);
    lines.push(`\`--model auto:…\` picks **${pick}** here (scorer CPU, losses + p_i: ONNX Runtime ${f(o, 2)} s, llama.cpp f32 ${f(l, 2)} s); its slower read over the fastest bare forward: **${f(best / fastest.tokensPerSecond, 2)}**.`);
  }
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
      'Bare forward: ONNX Runtime and PyTorch compute the [R, L, V] logits; llama.cpp decodes every token and reads the head at one position per row ' +
      '(node-llama-cpp computes logits only where they are read). The scorer: losses read each row\'s last 5 positions, p_i every position with the " [" probe. ' +
      'A scored call here is three such rows (L_a, L_b, L_c).',
    '',
    ...(r.notes ?? []).flatMap((n) => [n, '']),
    ...r.rows.flatMap((x) => [...rowsTable(x), '']),
    ...(r.annotate ? [...annotateTable(r.annotate, r.docs), ''] : []),
  ].join('\n');
}
