/**
 * The explorer's state, all of it in one place: the settings the user controls (`ExplorerState`, also read from the
 * URL), the tools the worker's registry has, the job in the worker, and the last analysis. Render functions
 * (render.ts) read it; event handlers (mount.ts) change it and then call the render function of what changed.
 */
import type { Analysis } from '../../analysis-types.ts';

export const DEFAULT_TEXT = 'Out of 2,400 participants, 600 (or 25%) passed the test and 1,800 failed. The capital of France is Paris.';

export interface ExplorerState {
  text: string;
  /** A call of the user's own, scored beside the proposed ones (tool, argument, character offset). */
  own: { tool: string; input: string; at: number } | null;
  date: string;
  /** Tools to run; null = every tool the worker's registry has. */
  tools: Set<string> | null;
  /** No ?own= in the URL: once the tools are known, the registry's worked example for `text` (if any) is the own call. */
  ownFromExamples: boolean;
  tauS: number;
  k: number;
  m: number;
  tauF: number;
  /** Apply the counterfactual control with the pipeline's default margins (as `annotate` does; `--no-control`: off). */
  control: boolean;
  /** The LM's context: each tool's prompt, or the bare text (a model that writes calls; `annotate --lm-context bare`). */
  lmContext: 'prompt' | 'bare';
  /** Heuristic positions and programmatic proposers (`annotate --no-programmatic`: off). */
  programmatic: boolean;
}

export interface ToolInfo {
  name: string;
  description: string;
  /** The tool's worked examples (its spec's `examples`). */
  examples: { text: string; at: number; input: string }[];
}

/**
 * Where the explorer's model job is. `id` numbers the runs; a reply for any run but the newest is ignored.
 * waiting: the model is loading · no-model: it failed to load · idle: nothing running (`note` says why, e.g. after a
 * cancel) · running: `stage` is the worker's progress, `done` of `total` units · done · failed.
 */
export type ExplorerJob =
  | { phase: 'waiting' }
  | { phase: 'no-model' }
  | { phase: 'idle'; note?: string }
  | { phase: 'running'; id: number; stage?: string; done: number; total: number }
  | { phase: 'done'; id: number }
  | { phase: 'failed'; id: number; message: string };

export interface ExplorerModel {
  settings: ExplorerState;
  /** The worker registry's tools; null until the model has loaded. */
  tools: ToolInfo[] | null;
  job: ExplorerJob;
  /** Id of the last run that finished (the status line's `data-done`, which the browser tests wait on). */
  lastDone: number | null;
  /** The last finished run's numbers; τ_s, τ_f ≥ its τ_min and the control re-judge it without the model. */
  analysis: Analysis | null;
  /** L_b scored on demand for `analysis` since its run (τ_f moved below its first τ_min). */
  filled: number;
  /** The candidate table's page (0-based; a new run starts at 0). */
  tablePage: number;
}

/**
 * Initial state, overridable from the URL (shareable views; the browser tests use them to keep runs small):
 * ?tools=<Tool>,<Tool>&k=5&m=2&tauS=0&tauF=0.5&control=0&lmContext=bare&programmatic=0&text=…&own=<Tool>|<argument>|<offset>
 * (own= empty: no call of your own; control=0: no counterfactual control; lmContext=bare: the LM on the bare text;
 * programmatic=0: no programmatic proposers).
 * Without ?tools every registered tool runs; without ?own the registry's worked example for the text is the own call.
 */
export function initialState(params: URLSearchParams): ExplorerState {
  const num = (key: string, fallback: number) => {
    const v = Number(params.get(key));
    return params.has(key) && Number.isFinite(v) ? v : fallback;
  };
  const ownParam = params.get('own');
  const [tool, input, at] = (ownParam ?? '').split('|');
  return {
    text: params.get('text') ?? DEFAULT_TEXT,
    own: ownParam === '' || !tool || !Number.isFinite(Number(at)) ? null : { tool, input: input ?? '', at: Number(at) },
    date: params.get('date') ?? '2023-01-30',
    ownFromExamples: ownParam === null,
    tools: params.has('tools') ? new Set(params.get('tools')!.split(',').filter(Boolean)) : null,
    tauS: num('tauS', 0),
    k: num('k', 5),
    m: num('m', 2),
    tauF: num('tauF', 0.5),
    control: params.get('control') !== '0',
    lmContext: params.get('lmContext') === 'bare' ? 'bare' : 'prompt',
    programmatic: params.get('programmatic') !== '0',
  };
}

/**
 * The tools arrived: every tool runs unless the URL named some, names the registry lacks are dropped, and the
 * registry's worked example for the text becomes the user's own call (unless the URL set one). Mutates `settings`.
 */
export function applyTools(settings: ExplorerState, tools: readonly ToolInfo[]): void {
  settings.tools ??= new Set(tools.map((t) => t.name));
  for (const name of [...settings.tools]) if (!tools.some((t) => t.name === name)) settings.tools.delete(name);
  const example = settings.ownFromExamples
    ? tools.flatMap((t) => t.examples.map((e) => ({ tool: t.name, ...e }))).find((e) => e.text === settings.text)
    : undefined;
  if (example) settings.own = { tool: example.tool, input: example.input, at: example.at };
}
