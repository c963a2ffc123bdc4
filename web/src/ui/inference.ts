/**
 * Inference: the finetuned model generates in the worker with live tools (pipeline/core/generate/generate.ts, the CLI's
 * loop): a call starts when " [" is among the top k tokens, runs at "->", and its result is inserted. The call
 * text and the inserted result are highlighted as they stream in. Tools on/off and k are the paper's knobs.
 * With toolkens loaded (ui/toolkens.ts, checked against the page's model) the calls can come from toolkens instead
 * (ToolkenGPT: core/toolkens/generate.ts, the CLI's `generate --toolkens`): their bias and tool mode (free or
 * constrained) are the knobs, each toolken that fired shows its call and result or its failure (back-off) inline,
 * and generation runs on the model the toolkens were trained for — the page's, which the panel says in one line
 * when its own model is another (the finetuned one by default).
 * URL parameters: ?infer-model=<dir under /models/> (default toolformer). A model folder opened from disk becomes the
 * panel's model (`useModel`).
 *
 * Shape as in the explorer: one state object, the DOM built once, one render function per section (output, calls,
 * status and buttons), the worker reached only in `generateIn`. A generation shows tokens generated of the most
 * allowed and can be cancelled (ModelClient.cancel: the worker restarts).
 */
import { isCancelled, type ModelClient } from '../model-client.ts';
import type { ToolModeKind } from '../../../pipeline/core/toolkens/generate.ts';
import type { GenerateParams, GenerateResult, PieceKind } from '../protocol.ts';
import type { ToolkenRows } from '../toolkens-jobs.ts';
import { h } from './dom.ts';

export const INFERENCE_EXAMPLES = [
  'The capital of Peru is',
  'The chemical symbol of Carbon is',
  'Tom had 37 apples and got 48 more. In all, Tom has',
  'The letter is dated March 14, 2019. It was written on a',
  'The old dog slept by the fire while the children',
];

/** Tokens after the prompt, inserted results included (generate()'s maxNewTokens). */
export const MAX_NEW_TOKENS = 48;

/** Toolkens the page checked against its own model (ui/toolkens.ts): what the panel can generate with. */
export interface InferenceToolkens {
  /** The file's name, as the Toolkens panel shows it. */
  name: string;
  rows: ToolkenRows;
  /** The model digest the file records (the page's model's: checked). */
  modelDigest: string;
  /** The page's model they belong to (its id: the folder's URL, or "disk:<folder>"). */
  model: string;
}

interface InferenceState {
  phase: 'waiting' | 'no-model' | 'ready' | 'running' | 'done' | 'failed' | 'cancelled';
  /** The running job's latest progress line (model download, tokens generated). */
  progress: string | null;
  /** The prompt of the output shown, and the continuation streamed so far, consecutive pieces of a kind merged. */
  prompt: string | null;
  pieces: { kind: PieceKind; text: string }[];
  result: GenerateResult | null;
  error: string | null;
  /** The toolkens the panel may use (null: none loaded for the page's model), and the mode of the output shown. */
  toolkens: InferenceToolkens | null;
  shownMode: 'bracket' | 'toolkens' | null;
}

interface InferenceView {
  prompt: HTMLTextAreaElement;
  examples: HTMLSelectElement;
  tools: HTMLInputElement;
  topK: HTMLInputElement;
  date: HTMLInputElement;
  /** Where calls come from: " [" in the top k (Toolformer) or toolkens (ToolkenGPT), with the toolkens' knobs. */
  callsFrom: HTMLSelectElement;
  bias: HTMLInputElement;
  toolMode: HTMLSelectElement;
  toolkenControls: HTMLElement;
  /** One line: which toolkens, and which model toolken generation runs on. */
  toolkensNote: HTMLElement;
  button: HTMLButtonElement;
  cancel: HTMLButtonElement;
  output: HTMLElement;
  status: HTMLElement;
  callsList: HTMLElement;
  /** The model's name in the explanation. */
  model: HTMLElement;
}

const todayIso = () => new Date().toISOString().slice(0, 10);

/** The worker call: one generation, its progress as a status line, its pieces as they stream. */
function generateIn(client: ModelClient, modelName: string, params: GenerateParams, onProgress: (line: string) => void,
  onPiece: (kind: PieceKind, text: string) => void): Promise<GenerateResult> {
  return client.request('generate', { params }, (stage, done, total) => onProgress(
    stage === 'model.onnx' ? `loading ${modelName}: ${(done / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB`
      : stage === 'tokens generated' ? `generating with ${modelName}: ${done} of at most ${total} tokens`
        : stage,
  ), onPiece);
}

/** The page's handle on the panel. */
export interface Inference {
  /** Generate with another model from now on: `url` a folder on the page's origin, null the page's own model. */
  useModel(name: string, url: string | null): void;
  /** The toolkens checked against the page's model (null: none, or refused for a new page model). */
  useToolkens(toolkens: InferenceToolkens | null): void;
}

export function mountInference(root: HTMLElement, client: ModelClient, ready: Promise<unknown>, initialModel: string): Inference {
  let modelName = initialModel;
  let modelUrl: string | null = new URL(`./models/${initialModel}/`, location.href).href;
  const state: InferenceState = { phase: 'waiting', progress: null, prompt: null, pieces: [], result: null, error: null, toolkens: null, shownMode: null };
  const view = buildView(root, modelName);
  let jobId = 0;

  const render = () => {
    renderOutput(view, state);
    renderCalls(view, state);
    renderStatus(view, state, modelName);
    renderToolkens(view, state, modelUrl);
  };

  const run = async () => {
    const id = ++jobId;
    const toolkens = view.callsFrom.value === 'toolkens' ? state.toolkens : null;
    Object.assign(state, { phase: 'running', progress: null, prompt: view.prompt.value, pieces: [], result: null, error: null, shownMode: toolkens ? 'toolkens' : 'bracket' });
    render();
    const params = generateParams(view, toolkens, modelUrl);
    const shownName = toolkens ? shortModelName(toolkens.model) : modelName;
    try {
      const result = await generateIn(client, shownName, params, (line) => {
        if (id !== jobId) return;
        state.progress = line;
        renderStatus(view, state, modelName);
      }, (kind, text) => {
        if (id !== jobId) return;
        const last = state.pieces.at(-1);
        // Text pieces of a kind merge; each toolken note stays one mark.
        if (last && last.kind === kind && kind !== 'toolken' && kind !== 'backoff') last.text += text;
        else state.pieces.push({ kind, text });
        renderOutput(view, state);
      });
      if (id !== jobId) return;
      Object.assign(state, { phase: 'done', result });
    } catch (e) {
      if (id !== jobId) return;
      Object.assign(state, isCancelled(e) ? { phase: 'cancelled' } : { phase: 'failed', error: e instanceof Error ? e.message : String(e) });
    }
    render();
  };

  view.examples.addEventListener('change', () => { view.prompt.value = view.examples.value; });
  view.callsFrom.addEventListener('change', () => renderToolkens(view, state, modelUrl));
  view.button.addEventListener('click', () => void run());
  view.cancel.addEventListener('click', () => client.cancel('generate'));
  renderStatus(view, state, modelName);
  ready.then(() => {
    // A generation started while the model was loading is queued in the worker: it stays 'running' (and cancellable).
    if (state.phase === 'waiting') state.phase = 'ready';
    render();
  }, () => {
    state.phase = 'no-model';
    renderStatus(view, state, modelName);
  });
  return {
    useModel(name, url) {
      modelName = name;
      modelUrl = url;
      view.model.textContent = name;
      // A running generation was cancelled with the old worker; the panel is ready for the new model.
      // A generation running now settles by itself (its promise ends 'cancelled' or 'done'); only idle states change.
      if (state.phase !== 'done' && state.phase !== 'failed' && state.phase !== 'running') state.phase = 'ready';
      render();
    },
    useToolkens(toolkens) {
      state.toolkens = toolkens;
      renderToolkens(view, state, modelUrl);
    },
  };
}

/**
 * The worker's generate request from the panel's inputs: with `toolkens`, calls come from them on the page's own
 * model (modelUrl null); else from " [" on the model at `modelUrl`.
 */
function generateParams(view: InferenceView, toolkens: InferenceToolkens | null, modelUrl: string | null): GenerateParams {
  return {
    modelUrl: toolkens ? null : modelUrl, prompt: view.prompt.value, tools: toolkens !== null || view.tools.checked,
    topK: Math.max(1, Number(view.topK.value) || 10), maxNewTokens: MAX_NEW_TOKENS, date: view.date.value || todayIso(),
    ...(toolkens ? {
      toolkens: {
        rows: toolkens.rows, modelDigest: toolkens.modelDigest, bias: Number.isFinite(view.bias.valueAsNumber) ? view.bias.valueAsNumber : 0,
        mode: view.toolMode.value as ToolModeKind,
      },
    } : {}),
  };
}

function buildView(root: HTMLElement, modelName: string): InferenceView {
  const model = h('code', { 'data-testid': 'inf-model' }, `models/${modelName}`);
  const prompt = h('textarea', { id: 'inf-prompt', 'data-testid': 'inf-prompt', rows: 2 });
  prompt.value = INFERENCE_EXAMPLES[0];
  const examples = h('select', { id: 'inf-example', 'data-testid': 'inf-example' },
    ...INFERENCE_EXAMPLES.map((e) => h('option', { value: e }, e)));
  const tools = h('input', { type: 'checkbox', id: 'inf-tools', 'data-testid': 'inf-tools', checked: true });
  const topK = h('input', { type: 'number', id: 'inf-top-k', 'data-testid': 'inf-top-k', min: 1, max: 100, step: 1, value: 10 });
  const date = h('input', { type: 'date', id: 'inf-date', 'data-testid': 'inf-date', value: todayIso() });
  const callsFrom = h('select', { id: 'inf-calls-from', 'data-testid': 'inf-calls-from' },
    h('option', { value: 'bracket' }, 'Toolformer: " [" in the top k'),
    h('option', { value: 'toolkens', disabled: true }, 'ToolkenGPT: toolkens'));
  const bias = h('input', { type: 'number', id: 'inf-toolken-bias', 'data-testid': 'inf-toolken-bias', min: -50, max: 50, step: 'any', value: 0 });
  const toolMode = h('select', { id: 'inf-toolken-mode', 'data-testid': 'inf-toolken-mode' },
    h('option', { value: 'free', title: 'ToolkenGPT: the tool\'s few-shot prompt, greedy until ")"' }, 'free (writes the argument)'),
    h('option', { value: 'constrained', title: 'For models too small to write arguments: the model\'s likeliest of the calls the tool\'s proposer offers' }, 'constrained (picks a proposer\'s call)'));
  const toolkenControls = h('div', { class: 'grid', hidden: true },
    h('label', { for: 'inf-toolken-bias' }, 'toolken bias (ToolkenGPT: 3–10)', bias),
    h('label', { for: 'inf-toolken-mode' }, 'tool mode', toolMode));
  const toolkensNote = h('p', { class: 'muted', 'data-testid': 'inf-toolkens-note' });
  const button = h('button', { type: 'button', 'data-testid': 'inf-run', disabled: true }, 'Generate');
  const cancel = h('button', { type: 'button', 'data-testid': 'inf-cancel', disabled: true, title: 'Stop the generation (the worker restarts and reloads the model)' }, 'Cancel');
  const output = h('div', { class: 'annotated generation', 'data-testid': 'inf-output', 'aria-live': 'polite', hidden: true });
  const status = h('p', { class: 'muted', 'data-testid': 'inf-status' });
  const callsList = h('ul', { 'data-testid': 'inf-calls' });
  root.append(
    h('h2', { id: 'inf-title' }, 'Inference with live tools'),
    h('p', { class: 'muted' }, 'The model (', model, `; the finetuned one unless you open your own above) writes a
      continuation. Whenever " [" is among its top-k next tokens it starts a call; at "->" the call runs here, with the
      explorer's tools, and the result is inserted, then the model goes on. One call per input, as in the paper.`),
    h('label', { for: 'inf-example' }, 'Example', examples),
    h('label', { for: 'inf-prompt' }, 'Prompt', prompt),
    h('label', { for: 'inf-calls-from' }, 'Calls from', callsFrom),
    toolkensNote,
    toolkenControls,
    h('div', { class: 'grid' },
      h('label', { class: 'inline', for: 'inf-tools' }, tools, 'tools on'),
      h('label', { for: 'inf-top-k' }, 'top-k for " ["', topK),
      h('label', { for: 'inf-date' }, "Today's date", date),
      h('div', { class: 'actions' }, button, cancel)),
    output,
    status,
    callsList,
  );
  return { prompt, examples, tools, topK, date, callsFrom, bias, toolMode, toolkenControls, toolkensNote, button, cancel, output, status, callsList, model };
}

/**
 * The toolkens controls: the option enabled while toolkens are loaded (the panel falls back to " [" when they go),
 * their knobs shown when chosen, and one line saying which toolkens and which model toolken generation runs on.
 */
function renderToolkens(view: InferenceView, state: InferenceState, modelUrl: string | null): void {
  const t = state.toolkens;
  const option = view.callsFrom.querySelector<HTMLOptionElement>('option[value="toolkens"]')!;
  option.disabled = t === null;
  if (t === null) view.callsFrom.value = 'bracket';
  const chosen = view.callsFrom.value === 'toolkens';
  view.toolkenControls.hidden = !chosen;
  view.topK.disabled = chosen;
  view.tools.disabled = chosen;
  const own = modelUrl === null || modelUrl.replace(/\/$/, '') === t?.model;
  view.toolkensNote.textContent = t === null
    ? 'Toolkens: none loaded for the page\'s model (open or train them in the Toolkens panel below).'
    : `Toolkens ${t.name} (${t.rows.tools.join(', ')}) belong to ${shortModelName(t.model)}` +
      (own ? ', the panel\'s model.' : `, the page's model: toolken generation runs on it, not on ${view.model.textContent}.`);
}

/** "models/default" for the page's bundled model (its id is its URL), the id itself otherwise ("disk:<folder>"). */
function shortModelName(id: string): string {
  const at = id.lastIndexOf('/models/');
  return at >= 0 ? id.slice(at + 1).replace(/\/$/, '') : id;
}

/**
 * The prompt, then the continuation: plain text, the call text (marked) and the inserted result (marked); with
 * toolkens, notes (not part of the text) where a toolken fired: its call, or its failure and the back-off.
 */
function renderOutput(view: InferenceView, state: InferenceState): void {
  view.output.hidden = state.prompt === null;
  if (state.prompt === null) return view.output.replaceChildren();
  view.output.replaceChildren(h('span', { class: 'prompt' }, state.prompt), ...state.pieces.map(({ kind, text }) =>
    kind === 'call' ? h('mark', { class: 'call', 'data-testid': 'inf-call' }, text)
      : kind === 'result' ? h('mark', { class: 'result', 'data-testid': 'inf-result' }, text)
        : kind === 'toolken' ? h('mark', { class: 'toolken', 'data-testid': 'inf-toolken' }, text)
          : kind === 'backoff' ? h('mark', { class: 'backoff', 'data-testid': 'inf-backoff' }, text)
            : h('span', { class: 'gen' }, text)));
}

/** Each call of the finished generation with its result or error. */
function renderCalls(view: InferenceView, state: InferenceState): void {
  view.callsList.replaceChildren(...(state.result?.calls ?? []).map((c) => h('li', { 'data-call': JSON.stringify(c) }, h('code', {}, `${c.tool}(${c.input})`), ' → ',
    c.result !== undefined ? h('code', { 'data-testid': 'inf-call-result' }, c.result) : h('span', { class: 'error' }, c.error ?? 'no result'))));
}

/** The status line (with `data-done` once a generation finished: the browser tests wait on it) and the buttons. */
function renderStatus(view: InferenceView, state: InferenceState, modelName: string): void {
  const { phase, result } = state;
  view.button.disabled = phase === 'waiting' || phase === 'no-model' || phase === 'running';
  view.cancel.disabled = phase !== 'running';
  view.status.classList.toggle('error', phase === 'failed' || phase === 'no-model');
  if (phase === 'done') view.status.dataset.done = 'true';
  else delete view.status.dataset.done;
  view.status.textContent =
    phase === 'waiting' ? 'waiting for the model…'
      : phase === 'no-model' ? 'the model worker failed to load'
        : phase === 'ready' ? 'ready'
          : phase === 'running' ? (state.progress ?? `generating with ${modelName}…`)
            : phase === 'cancelled' ? 'cancelled'
              : phase === 'failed' ? `failed: ${state.error}`
                : `${result!.calls.length} call${result!.calls.length === 1 ? '' : 's'}${state.shownMode === 'toolkens' ? ' from toolkens' : ''} · ${result!.backend}${cacheNote(result!)} · ${(result!.ms / 1000).toFixed(1)} s`;
}

/** Where the KV cache stayed: " · KV cache on the GPU (49 of 49 steps)" on WebGPU; nothing when it was in JavaScript. */
function cacheNote(result: GenerateResult): string {
  const c = result.cache;
  return c && c.onDevice > 0 ? ` · KV cache on the GPU (${c.onDevice} of ${c.forwards} steps)` : '';
}
