/**
 * What a toolkens file records about its training (file.ts `meta`, strings by the safetensors rule), made the same
 * way by the CLI (`toolformer toolkens train`, node/commands/toolkens-command.ts) and by the web app's in-page training, so
 * either one's file reads the same everywhere (its card, the comparison report, generate/eval --toolkens). Isomorphic.
 */
import type { Toolkens } from './file.ts';
import type { ToolkenFeatures } from './examples.ts';
import type { TrainedToolkens } from './train.ts';

export const TOOLKENS_FORMAT = 'toolformer-ts toolkens 1 (ToolkenGPT W_tau; logits [h W_v^T ; h W_tau^T])';

export interface TrainingRecord {
  /** The model as named where it was trained (a path, a Hugging Face id, the page's model URL or "disk:<folder>"). */
  model: string;
  /** SHA-256 over the model folder's files (node/run/run-digest.ts modelDigest; web/src/model-digest.ts). */
  modelDigest: string;
  dtype: string;
  /** Where the train.jsonl texts came from. */
  data: string[];
  records: number;
  badLines: number;
  windows: number;
  /** The training options as given (seed, lr, epochs, …). */
  settings: Record<string, unknown>;
  /** Seconds spent, by phase: `cpuSeconds` (Node: process CPU) or `wallSeconds` (a browser tab has no CPU clock). */
  cost: { cpuSeconds: { features: number; train: number } } | { wallSeconds: { features: number; train: number } };
}

/** The toolkens file of a training: the best epoch's W_τ, the tools in row order, and its record as metadata. */
export function trainedToolkensFile(tools: readonly string[], features: ToolkenFeatures, trained: TrainedToolkens, r: TrainingRecord): Toolkens {
  const labels = Object.fromEntries(tools.map((t, k) => [t, features.label.reduce((s, l) => s + (l === k ? 1 : 0), 0)]));
  const best = trained.history[trained.bestEpoch - 1];
  const round = (x: number) => Math.round(x * 100) / 100;
  const [costKey, cost] = Object.entries(r.cost)[0] as [string, { features: number; train: number }];
  return {
    tools: [...tools], hiddenSize: features.hiddenSize, weights: trained.weights,
    meta: {
      format: TOOLKENS_FORMAT, model: r.model, modelDigest: r.modelDigest, dtype: r.dtype,
      data: JSON.stringify(r.data), records: String(r.records), badLines: String(r.badLines), windows: String(r.windows),
      positions: JSON.stringify(trained.positions), toolkenLabels: JSON.stringify(labels), settings: JSON.stringify(r.settings),
      history: JSON.stringify(trained.history), initialLoss: JSON.stringify(trained.initialLoss), bestEpoch: String(trained.bestEpoch),
      valLoss: String(best?.valLoss ?? ''), [costKey]: JSON.stringify({ features: round(cost.features), train: round(cost.train) }),
    },
  };
}
