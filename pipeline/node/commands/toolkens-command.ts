/**
 * `toolformer toolkens train <run dir | train.jsonl…> --model M --out F`: ToolkenGPT's toolkens (core/toolkens/) on a
 * frozen model. Reads the pipeline's kept calls (a run's train.jsonl, or any JSONL of {text} with calls inlined),
 * labels them as the paper does, runs the frozen model once over each window (hidden states + logits), trains only
 * W_τ with Adam, and writes F (safetensors: the tool names and the model's digest in __metadata__) and F's card (.md).
 * The model directory is only read.
 */
import { accessSync, constants, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readLinesSync, unreadLineReason } from '../../io/bounded-read.ts';
import { MAX_JSONL_LINE_BYTES } from '../../io/jsonl.ts';
import { features, labelRecord, toolsCalled, trainText, type LabelledWindow } from '../../core/toolkens/examples.ts';
import { trainedToolkensFile } from '../../core/toolkens/trained-file.ts';
import { decodeToolkens, encodeToolkens, type Toolkens } from '../../core/toolkens/file.ts';
import { trainToolkens, type EpochRecord } from '../../core/toolkens/train.ts';
import { TOOL_NAMES } from '../../core/tools/registry.ts';
import type { Device } from '../../core/lm/devices.ts';
import type { Dtype } from '../../core/lm/dtypes.ts';
import { resolveModel } from '../model/hf-cache.ts';
import { assertDeviceInstalled } from '../model/device.ts';
import { loadModel } from '../model/load-model.ts';
import { modelDigest } from '../run/run-digest.ts';
import { toolkenNumbersMeaning } from './toolkens-meaning.ts';
import { readBoundedFile } from '../system/safe-paths.ts';

/** Largest toolkens file read: 200 tools × 16,384 wide is 13 MB; a bigger file is not one of ours. */
export const MAX_TOOLKENS_BYTES = 64 << 20;

export interface ToolkensTrainOptions {
  model: string;
  dtype?: Dtype;
  /** Where the frozen LM runs (`--device`). @default "cpu" */
  device?: Device;
  out: string;
  seed: number;
  lr: number;
  epochs: number;
  batchSize: number;
  val: number;
  patience: number;
  onlyToolkens?: boolean;
  /** Comma-separated tools, one toolken each, in row order (default: the tools the data calls, registry order first). */
  tools?: string;
  maxPositions: number;
  quiet?: boolean;
}

export interface ToolkensTrainResult {
  file: string;
  card: string;
  toolkens: Toolkens;
  history: EpochRecord[];
  initialLoss: { train: number; val: number | null };
  cpuSeconds: { features: number; train: number };
}

/** A run directory's train.jsonl, or the file itself. */
function trainFile(input: string): string {
  const stat = statSync(input, { throwIfNoEntry: false });
  if (!stat) throw new Error(`toolkens: no such file or directory: ${input}`);
  return stat.isDirectory() ? join(input, 'train.jsonl') : input;
}

/** The texts of the JSONL files' records; bad lines are reported (one line each, the first 5) and skipped. */
async function readTexts(files: readonly string[], log: (s: string) => void): Promise<{ texts: string[]; bad: number }> {
  const texts: string[] = [];
  let bad = 0;
  for (const file of files) {
    // Streamed and capped (io/bounded-read.ts): an over-long line or a NUL run is a bad line, never a string.
    for (const line of readLinesSync(file, file, MAX_JSONL_LINE_BYTES)) {
      const text = line.kind === 'line' ? trainText(line.bytes.toString('utf8')) : null;
      if (typeof text === 'string') texts.push(text);
      else if (text === null && ++bad <= 5) log(`${file}:${line.line}: ${line.kind === 'line' ? 'not a record {"text": "…"}' : unreadLineReason(line, MAX_JSONL_LINE_BYTES)}; skipped\n`);
    }
  }
  return { texts, bad };
}

const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
};

export async function toolkensTrain(inputs: readonly string[], o: ToolkensTrainOptions): Promise<ToolkensTrainResult> {
  const log = (s: string) => {
    if (!o.quiet) process.stderr.write(s);
  };
  assertDeviceInstalled(o.device ?? 'cpu'); // before the data is read: a missing provider fails at once
  assertToolkensOut(o.out);
  const files = inputs.map(trainFile);
  const { texts, bad } = await readTexts(files, log);
  const tools = o.tools ? o.tools.split(',').map((t) => t.trim()).filter(Boolean) : toolsCalled(texts, TOOL_NAMES);
  if (tools.length === 0) throw new Error(`toolkens: no call in ${files.join(', ')} (${texts.length} records${bad ? `, ${bad} bad lines` : ''}): nothing to train`);
  const { dir } = await resolveModel(o.model);
  const lm = await loadModel(o.model, { dtype: o.dtype, device: o.device, lm: { hiddenStates: true } });
  try {
    const windows: LabelledWindow[] = texts.flatMap((text, i) => labelRecord(lm, text, tools, i, { onlyToolkens: o.onlyToolkens }));
    const cpu0 = process.cpuUsage();
    const feats = await features(lm, windows, {
      maxPositions: o.maxPositions,
      onWindow: (done, total) => {
        if (done % 50 === 0 || done === total) log(`\rtoolkens: hidden states ${done}/${total} windows`);
      },
    });
    log('\n');
    const featureCpu = cpuSeconds(cpu0);
    const cpu1 = process.cpuUsage();
    const trained = trainToolkens(feats, tools.length, {
      lr: o.lr, epochs: o.epochs, batchSize: o.batchSize, valShare: o.val, patience: o.patience, seed: o.seed,
      onEpoch: (e) => log(`toolkens: epoch ${e.epoch} train ${e.trainLoss.toFixed(4)} val ${e.valLoss?.toFixed(4) ?? '–'}` +
        ` recall ${pct(e.valToolkenRecall)} false-fire ${pct(e.valFalseFire)}\n`),
    });
    const trainCpu = cpuSeconds(cpu1);
    const toolkens = trainedToolkensFile(tools, feats, trained, {
      model: o.model, modelDigest: modelDigest(dir), dtype: o.dtype ?? 'fp32', data: files, records: texts.length, badLines: bad, windows: windows.length,
      settings: { seed: o.seed, lr: o.lr, epochs: o.epochs, batchSize: o.batchSize, valShare: o.val, patience: o.patience, onlyToolkens: !!o.onlyToolkens, maxPositions: o.maxPositions },
      cost: { cpuSeconds: { features: featureCpu, train: trainCpu } },
    });
    const bytes = encodeToolkens(toolkens);
    decodeToolkens(bytes, o.out); // what is written must read back
    try {
      writeFileSync(`${o.out}.tmp`, bytes);
      renameSync(`${o.out}.tmp`, o.out);
    } catch (error) {
      rmSync(`${o.out}.tmp`, { force: true });
      throw error;
    }
    const card = cardPath(o.out);
    writeFileSync(card, toolkensCard(toolkens, trained.history, trained.bestEpoch, { features: featureCpu, train: trainCpu }));
    log(`toolkens: ${tools.join(', ')} → ${o.out} (${bytes.length} bytes), card ${card}; CPU ${featureCpu.toFixed(1)} s hidden states + ${trainCpu.toFixed(1)} s training\n`);
    for (const line of toolkenNumbersMeaning(trained)) log(`${line}\n`);
    return { file: o.out, card, toolkens, history: trained.history, initialLoss: trained.initialLoss, cpuSeconds: { features: featureCpu, train: trainCpu } };
  } finally {
    await lm.release();
  }
}

const pct = (x: number | null) => (x === null ? '–' : `${(100 * x).toFixed(1)} %`);

/** F's card: F with .safetensors replaced by .md (or .md appended). */
export function cardPath(file: string): string {
  return file.endsWith('.safetensors') ? file.slice(0, -'.safetensors'.length) + '.md' : `${file}.md`;
}

/**
 * `--out` of `toolkens train`, before the data is read or the model loads (training takes minutes): a file path whose
 * folder exists and is writable, not a folder; refused in one line instead of after training.
 */
function assertToolkensOut(out: string): void {
  if (statSync(out, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`--out ${out} is a directory: pass a file path for the toolkens (e.g. ${join(out, 'toolkens.safetensors')})`);
  const folder = dirname(out);
  try {
    if (!statSync(folder).isDirectory()) throw Object.assign(new Error('ENOTDIR'), { code: 'ENOTDIR' });
    accessSync(folder, constants.W_OK);
  } catch (error) {
    throw new Error(`--out ${out}: its folder ${folder} cannot hold the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): pass a path in a writable folder`);
  }
}

/**
 * Reads a toolkens file (a regular file under MAX_TOOLKENS_BYTES: a FIFO, /dev/zero or a folder is one line, not a
 * hang), checks its rows name tools this command serves (`known`), and that it belongs to `model` (its digest) when
 * the directory is at hand.
 */
export async function readToolkens(file: string, model?: string, known: readonly string[] = TOOL_NAMES): Promise<Toolkens> {
  const t = decodeToolkens(new Uint8Array(readBoundedFile(file, `--toolkens ${file}`, MAX_TOOLKENS_BYTES)), `--toolkens ${file}`);
  const unknown = t.tools.find((tool) => !known.includes(tool));
  if (unknown !== undefined) throw new Error(`--toolkens ${file}: its row ${JSON.stringify(unknown.slice(0, 40))} is not a tool served here (${known.join(', ')}): retrain it with \`toolformer toolkens train --tools\``);
  if (model) {
    const { dir } = await resolveModel(model);
    const digest = modelDigest(dir);
    if (t.meta.modelDigest && t.meta.modelDigest !== digest) {
      throw new Error(`${file}: trained on another model (digest ${t.meta.modelDigest.slice(0, 12)}, ${model} is ${digest.slice(0, 12)}); retrain with --model ${model}`);
    }
  }
  return t;
}

function toolkensCard(t: Toolkens, history: EpochRecord[], bestEpoch: number, cpu: { features: number; train: number }): string {
  const s = JSON.parse(t.meta.settings) as Record<string, unknown>;
  const rows = history.map((e) => `| ${e.epoch}${e.epoch === bestEpoch ? ' (kept)' : ''} | ${e.trainLoss.toFixed(4)} | ${e.valLoss?.toFixed(4) ?? '–'} | ${pct(e.valToolkenRecall)} | ${pct(e.valFalseFire)} |`);
  return `# Toolkens — ${basename(t.meta.model)}

ToolkenGPT (Hao et al., 2023) toolkens for the frozen model \`${t.meta.model}\` (${t.meta.dtype}; digest
\`${t.meta.modelDigest.slice(0, 16)}…\`): one row of W_τ per tool, ${t.tools.join(', ')}; [${t.tools.length} × ${t.hiddenSize}] float32.
Only W_τ was trained; the model's files were only read. Logits at each position: [h·W_vᵀ ; h·W_τᵀ].

- Data: ${JSON.parse(t.meta.data).join(', ')} — ${t.meta.records} records, ${t.meta.windows} windows; toolken labels per tool
  ${t.meta.toolkenLabels}; positions ${t.meta.positions}.
- Labels: the token where a call stood gets its toolken; the result's other tokens are masked${s.onlyToolkens ? '; word tokens masked too (only toolken decisions count)' : '; every other token keeps its word label'}.
- Adam lr ${s.lr}, batch ${s.batchSize}, ≤ ${s.epochs} epochs, early stopping (patience ${s.patience}) on a ${s.valShare} validation split of the records, seed ${s.seed}.
- CPU: ${cpu.features.toFixed(1)} s for the hidden states (one frozen forward pass per window), ${cpu.train.toFixed(1)} s training.

| epoch | train loss | val loss | val recall (right toolken wins) | val false fire (a toolken wins at a word) |
|---:|---:|---:|---:|---:|
| 0 (initial W_τ) | ${JSON.parse(t.meta.initialLoss).train.toFixed(4)} | ${JSON.parse(t.meta.initialLoss).val?.toFixed(4) ?? '–'} | | |
${rows.join('\n')}

Use: \`toolformer generate "<prompt>" --model ${t.meta.model} --toolkens <this file>\`, or \`toolformer eval … --toolkens <this file>\`.
`;
}
