/** results/gguf-parity.md from results/gguf-parity.json (gguf-parity.ts `--markdown`): the README's block. */
import { calculator } from '../core/tools/calculator/index.ts';
import { qa } from '../core/tools/qa/index.ts';

interface Comparison {
  documents: number | 'all';
  paired: number;
  onlyInReference: string[];
  onlyInOther: string[];
  maxAbsDelta: { noCall: number; callOnly: number; withResult: number };
  maxAbsDeltaUsefulness: number;
  flips: { call: string; distanceToTauF: number; reasons: [string, string] }[];
  smallestMarginToTauF: number;
  withinDeltaOfTauF: number;
  kept: number;
  referenceKept: number;
  keptIdentical: boolean;
  trainIdentical: boolean;
  trainIdenticalButLosses: boolean;
  keyedWithoutResult: { keysSharedByCalls: number; callsUnderSharedKeys: number; lcApartKeyedWithoutResult: number; lcApartByIdentity: number; largestLcGapKeyedWithoutResult: number };
}

const f4 = (x: number) => x.toFixed(4);
const yesNo = (b: boolean) => (b ? 'yes' : '**no**');
const deltas = (c: Comparison) => [c.maxAbsDelta.noCall, c.maxAbsDelta.callOnly, c.maxAbsDelta.withResult].map(f4).join(', ');
const flips = (c: Comparison) =>
  c.flips.length === 0 ? '0' : `${c.flips.length}: ${c.flips.map((f) => `${f.distanceToTauF.toFixed(4)} (${f.reasons.join(' → ')})`).join('; ')}`;

function row(name: string, run: Record<string, any>, against: string): string | undefined {
  const c = run.comparisons?.[against] as Comparison | undefined;
  if (!c) return undefined;
  const worked = (run.workedLosses as number[][] | undefined)?.map((r) => r.map(f4).join(', ')).join(' · ') ?? '—';
  return (
    `| ${run.what} | ${c.documents === 'all' ? 'all 30' : c.documents} | ${worked} | ${c.paired} / ${c.onlyInReference.length} / ${c.onlyInOther.length} | ${deltas(c)}; ${f4(c.maxAbsDeltaUsefulness)} | ` +
    `${flips(c)} | ${f4(c.smallestMarginToTauF)}; ${c.withinDeltaOfTauF} | ${c.kept} vs ${c.referenceKept}: ${yesNo(c.keptIdentical)}; ${c.trainIdentical ? 'yes' : c.trainIdenticalButLosses ? 'only the losses it records differ' : '**no**'} |`
  );
}

function table(runs: Record<string, any>, against: string, title: string): string[] {
  const rows = Object.keys(runs).flatMap((name) => row(name, runs[name], against) ?? []);
  if (rows.length === 0) return [];
  return [
    title,
    '',
    `| run | docs | worked cases L_a, L_b, L_c (India ${qa.name} · ${calculator.name}) | scored calls: paired / only in the reference / only here | max \\|Δ\\| L_a, L_b, L_c; of usefulness (nats, ±1e-4) | verdict flips: the reference's distance to τ_f (reasons) | reference's smallest margin to τ_f; its calls within max\\|Δ\\| of usefulness from τ_f | kept calls: identical; train.jsonl identical |`,
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ];
}

function geluLines(g: Record<string, { maxAbsDelta: number; tokensOver1e4: number; tokens: number }> & { documents: number }): string[] {
  if (!g) return [];
  const d = (k: string) => `${g[k].maxAbsDelta} (${g[k].tokensOver1e4} of ${g[k].tokens} token log-probs off by more than 1e-4)`;
  return [
    `**The GPT-2 gap is ggml-cpu's float16 GELU table** (\`GGML_GELU_FP16\`, set unconditionally in the llama.cpp node-llama-cpp 3.21.1 ships: ` +
      `y = fp16(gelu_tanh(fp16(x))) for |x| < 10). Over the sample's ${g.documents} documents (their first 128 tokens, token and " [" log-probs): ` +
      `ONNX Runtime against llama.cpp f32, max |Δ| ${d('ortVsLlamaCpp')}; ONNX Runtime with that table written into its graph (bench/gelu-table.ts) against llama.cpp, ${d('ortWithTableVsLlamaCpp')}; ` +
      `ONNX Runtime against itself with the table, ${d('ortVsOrtWithTable')} — the size of the gap. What is left is the table's own amplification of float32 ` +
      `summation order: the table's graph against the same with its input nudged by one float32 ulp, ${d('ortWithTableVsNudgedByOneUlp')}. The prebuilt binaries ` +
      'cannot be told otherwise, so GPT-2 through llama.cpp\'s prebuilt CPU build is not within 1e-4 of ONNX Runtime; Llama and Qwen2 (SiLU, no table) are.',
    '',
  ];
}

type TokenDelta = { maxAbsDelta: number; tokensOver1e4: number; tokens: number };
/** The exact-GELU build's paragraph: its build, its tokens against ONNX Runtime and the table build, its run's calls. */
function exactBuildLines(e: { build: { wallSeconds: number; cpuSeconds: number | null; cores: number; loadAverage: number[] } | null; documents: number; ortVsExactBuild: TokenDelta; exactBuildVsTableBuild: TokenDelta } | undefined, run: Record<string, any> | undefined): string[] {
  if (!e) return [];
  const d = (t: TokenDelta) => `${t.maxAbsDelta} (${t.tokensOver1e4} of ${t.tokens} token log-probs off by more than 1e-4)`;
  const c = run?.comparisons?.ort as Comparison | undefined;
  const worst = c ? Math.max(c.maxAbsDelta.noCall, c.maxAbsDelta.callOnly, c.maxAbsDelta.withResult) : undefined;
  const cpu = e.build?.cpuSeconds ? `, ${(e.build.cpuSeconds / 60).toFixed(1)} CPU-minutes (on ${e.build.cores} free cores ≥ ${(e.build.cpuSeconds / 60 / e.build.cores).toFixed(1)} min)` : '';
  const built = e.build ? ` Built here in ${(e.build.wallSeconds / 60).toFixed(1)} min of wall time on ${e.build.cores} shared cores (load ${e.build.loadAverage.join(' → ')})${cpu}.` : '';
  return [
    "**The exact-GELU build takes the table away** (`npx toolformer build-llama --gelu exact`, then `--llama-gelu exact`: llama.cpp compiled by node-llama-cpp from the source it ships, " +
      `CPU only, with vec.h's \`#define GGML_GELU_FP16\` behind \`#ifndef TOOLFORMER_GELU_EXACT\`, so GELU is computed in float32).${built} ` +
      `Over the same ${e.documents} documents' tokens: against ONNX Runtime, max |Δ| ${d(e.ortVsExactBuild)}; against the prebuilt table build, ${d(e.exactBuildVsTableBuild)}.` +
      (c && worst !== undefined
        ? ` On \`npm start\`'s scored calls (its row above): ${c.paired} paired, max |Δ| L_a, L_b, L_c ${deltas(c)} (calls.jsonl's rounding step at most: it records losses to 1e-4) — ${worst <= 1e-4 ? 'within' : '**not** within'} 1e-4 nats of ONNX Runtime; kept calls ${c.keptIdentical ? 'identical' : '**not** identical'}, train.jsonl ${c.trainIdentical ? 'identical' : c.trainIdenticalButLosses ? 'identical but for the losses it records' : '**different**'}.`
        : ''),
    '',
  ];
}

export function parityMarkdown(result: Record<string, any>): string {
  const runs = result.runs as Record<string, any>;
  const pairing = (runs.f32?.comparisons?.ort ?? runs.served?.comparisons?.ort) as Comparison | undefined;
  const k = pairing?.keyedWithoutResult;
  return [
    `The same weights, ${result.model}, through each backend: \`npm start\`'s run (\`toolformer annotate corpus/sample.jsonl\`, its own start-up probes) ` +
      `with \`--model\` naming the backend (\`${result.commands.join('`, `')}\`; ${result.measured.slice(0, 10)}; ${result.machine.cores} cores, load ${result.machine.loadAverage}). ` +
      'Every scored call is paired by its identity — document, position, call text with its result, asserted unique in each run; calls.jsonl rounds losses to 1e-4. ' +
      '`toolformer example` (L_a 2.5, L_b 2.1, L_c 0.8) takes its losses as given and runs no model: the same on every backend.',
    '',
    ...table(runs, 'ort', 'Against ONNX Runtime:'),
    ...table(runs, 'f32', 'Against the f32 GGUF on llama.cpp\'s CPU build:'),
    ...(k
      ? [
          `**The whole-nat L_c differences of the first comparison were its pairing**: it keyed calls by document, position, tool and input, without the result; in ONNX Runtime's run ${k.keysSharedByCalls} such keys are shared by ${k.callsUnderSharedKeys} calls (one question answered two ways at one position, e.g. ${qa.name}'s "Mexico City" and "MEXICO CITY"). ` +
            `Keyed so, ${k.lcApartKeyedWithoutResult} paired calls' L_c are ≥ 0.01 nats apart (llama.cpp f32 against ONNX Runtime; up to ${k.largestLcGapKeyedWithoutResult} nats; the same happens between two identical runs); paired by identity, ${k.lcApartByIdentity}. Not real: a bug of that comparison.`,
          '',
        ]
      : []),
    ...geluLines(result.geluTable),
    ...exactBuildLines(result.geluExactBuild, runs['f32-exact-gelu']),
  ].join('\n');
}
