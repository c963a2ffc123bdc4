/**
 * The model worker's toolken jobs (ToolkenGPT, pipeline/core/toolkens/): the model's digest (does a toolkens file
 * belong to this model?), p(toolken) per token of a text (the explorer's strip beside p_i(" [")), the frozen
 * model's features for training W_τ in the page (training itself runs in its own worker: toolkens-train-worker.ts),
 * and the options of a generation with toolkens (the Inference panel's, core/toolkens/generate.ts as the CLI runs it).
 * All of it is core/toolkens' code; this file only adapts it to the worker's requests. Worker-side.
 */
import type { HiddenStateLM } from '../../pipeline/core/lm/lm.ts';
import { tokenOffsets } from '../../pipeline/core/lm/tokens.ts';
import { features, labelRecord, type ToolkenFeatures } from '../../pipeline/core/toolkens/examples.ts';
import type { Toolkens } from '../../pipeline/core/toolkens/file.ts';
import type { GeneratedPiece } from '../../pipeline/core/generate/generate.ts';
import type { ToolkenCall, ToolkenGenerateOptions, ToolModeKind } from '../../pipeline/core/toolkens/generate.ts';
import type { ToolSpec } from '../../pipeline/core/tools/spec.ts';
import { toolkenProbabilities } from '../../pipeline/core/toolkens/probabilities.ts';
import { folderDigest } from './model-digest.ts';
import type { ModelSource } from './model-source.ts';

/** The rows of a toolkens file the worker needs (its metadata stays in the page). */
export type ToolkenRows = Pick<Toolkens, 'tools' | 'hiddenSize' | 'weights'>;

/** The Inference panel's toolkens and knobs (protocol.ts GenerateParams.toolkens). */
export interface ToolkenGenerateParams {
  rows: ToolkenRows;
  /** The digest the toolkens file records: the worker refuses to generate unless it is the page's model's. */
  modelDigest: string;
  /** Added to every toolken logit (`--toolken-bias`). */
  bias: number;
  /** How tool mode writes the argument (`--toolken-mode`). */
  mode: ToolModeKind;
}

/** A streamed note where a toolken fired: its call ran (`toolken`), or failed and the next candidate is tried (`backoff`). */
export type ToolkenNoteKind = 'toolken' | 'backoff';

/** p(toolken) before each token of a text: what the explorer draws beside p_i(" ["). */
export interface ToolkenStrip {
  /** The text's tokens as the model reads them (at most its context, BOS aside). */
  tokens: string[];
  /** Character offset of each token in the text. */
  offsets: number[];
  /** p[k][i]: p(toolken k) at the position before token i (where a call would be inserted), or null for token 0 without BOS. */
  p: (number | null)[][];
  tools: string[];
  /** Tokens of the text beyond the model's context, not shown. */
  cut: number;
}

/** The page's model's digest (the CLI's modelDigest over the same files), computed once per worker. */
let digest: Promise<string> | null = null;
export function modelDigestOf(source: ModelSource, onProgress: (done: number, total: number) => void): Promise<string> {
  digest ??= source.listing().then((files) => folderDigest(files, onProgress));
  digest.catch(() => (digest = null));
  return digest;
}

/**
 * Runs the text through the frozen model once with BOS first (as training reads its windows): row i of the
 * probabilities predicts token i, so it is the toolken's probability of standing before token i — the same place
 * p_i(" [") describes.
 */
export async function toolkenStrip(lm: HiddenStateLM, toolkens: ToolkenRows, text: string, bias = 0): Promise<ToolkenStrip> {
  const all = lm.encode(text);
  const bos = lm.bosId !== undefined ? [lm.bosId] : [];
  const ids = all.slice(0, lm.maxLength - bos.length);
  if (ids.length === 0) throw new Error('toolkens: no text to read');
  const probs = await toolkenProbabilities(lm, { ...toolkens, meta: {} }, [...bos, ...ids], bias);
  const n = toolkens.tools.length;
  const row = (i: number) => (bos.length ? i : i - 1);
  const offsets = tokenOffsets(lm, ids);
  const plain = lm.decode(ids);
  return {
    tokens: ids.map((_, i) => plain.slice(offsets[i], offsets[i + 1])), offsets: offsets.slice(0, -1), tools: toolkens.tools, cut: all.length - ids.length,
    p: toolkens.tools.map((_, k) => ids.map((_, i) => (row(i) < 0 ? null : probs[row(i) * n + k]))),
  };
}

/** Labels the texts as the CLI does (core/toolkens/examples.ts) and runs the frozen model once over each window. */
export async function toolkenFeatures(
  lm: HiddenStateLM,
  texts: readonly string[],
  tools: readonly string[],
  options: { maxPositions: number; onlyToolkens: boolean },
  onProgress: (done: number, total: number) => void,
): Promise<{ features: ToolkenFeatures; windows: number }> {
  const windows = texts.flatMap((text, i) => labelRecord(lm, text, tools, i, { onlyToolkens: options.onlyToolkens }));
  if (windows.length === 0) throw new Error(`toolkens: no call of ${tools.join(', ')} in the ${texts.length} texts`);
  onProgress(0, windows.length);
  return { features: await features(lm, windows, { maxPositions: options.maxPositions, onWindow: onProgress }), windows: windows.length };
}

/**
 * The CLI's `generate --toolkens F --toolken-bias b --toolken-mode m --max-new-tokens n --date d` options for the
 * Inference panel's request, once `pageDigest` (the page's model's) is the digest the file records: toolkens of
 * another model never reach generation. Each call is streamed as a note where its toolken fired (`noteOf`).
 */
export function toolkenGenerateOptions(
  t: ToolkenGenerateParams,
  run: { maxNewTokens: number; date: string },
  pageDigest: string,
  specs: readonly ToolSpec[],
  onPiece: (kind: GeneratedPiece['kind'] | ToolkenNoteKind, text: string) => void,
): ToolkenGenerateOptions {
  if (t.modelDigest !== pageDigest) {
    throw new Error(`toolkens: trained on another model (digest ${t.modelDigest.slice(0, 12)}, the page's model is ${pageDigest.slice(0, 12)}); not used`);
  }
  return {
    toolkens: { ...t.rows, meta: {} }, specs: new Map(specs.map((s) => [s.name, s])), mode: t.mode, bias: t.bias,
    maxNewTokens: run.maxNewTokens, maxCalls: 1, doc: { id: 'inference', date: run.date },
    onText: (piece) => onPiece(piece.kind, piece.text),
    onCall: (call) => onPiece(call.error === undefined ? 'toolken' : 'backoff', noteOf(call)),
  };
}

/** "⟨QA⟩ QA(What is the capital of Peru?) →" before the inserted result; a failed call "… ✗ <error>; next candidate". */
export function noteOf(call: ToolkenCall): string {
  const head = `⟨${call.tool}⟩ ${call.tool}(${call.input || '…'})`;
  return call.error === undefined ? `${head} →` : `${head} ✗ ${call.error}; next candidate`;
}
