/**
 * Page entry: mounts the panels and starts the model worker. URL parameters:
 *   ?backend=auto|webgpu|wasm   (default auto: WebGPU on a hardware adapter; WASM when there is none or only a fallback
 *                               (software) one, e.g. SwiftShader; webgpu takes even a software adapter)
 *   ?model=default|tiny-random|none  (a directory under /models/; none: no model until a folder is opened from disk)
 *   ?infer-model=<dir>         the Inference panel's model (default toolformer)
 *   ?dtype=fp32|fp16|q8|int8|uint8|q4|q4f16|bnb4   (which onnx/ file, as Transformers.js names them: model.onnx,
 *                               model_fp16.onnx, model_quantized.onnx, …; also the first choice for a folder opened from disk)
 *   ?threads=N                  at most N WASM threads (default: half the logical cores, up to 4, when cross-origin isolated)
 *   ?kv-cache=cpu               on WebGPU, keep the decoder's KV cache in JavaScript (default: on the GPU)
 *   explorer settings: see initialState in ui/explorer/state.ts
 * A model folder opened from disk (ui/model-picker.ts) replaces the page's model: the explorer scores again on it and
 * the Inference panel generates with it.
 */
import { isDtype, type Dtype } from '../../pipeline/core/lm/dtypes.ts';
import type { BackendPreference } from './backend.ts';
import { isCancelled, ModelClient } from './model-client.ts';
import { initialState, mountExplorer, type ToolInfo } from './ui/explorer/mount.ts';
import { mountInference } from './ui/inference.ts';
import { mountModelPicker, type OpenedFolder } from './ui/model-picker.ts';
import { mountRunViewer } from './ui/run-viewer.ts';
import { mountToolkens } from './ui/toolkens.ts';
import { mountWorkedExample } from './ui/worked-example.ts';
import { toolStyles } from './ui/colors.ts';

const params = new URLSearchParams(location.search);
const prefer = (['auto', 'webgpu', 'wasm'].includes(params.get('backend') ?? '') ? params.get('backend') : 'auto') as BackendPreference;
/** The bundled model the page loads first; none with ?model=none (the page waits for a folder from disk). */
const model: string | null = params.get('model') === 'none' ? null
  : /^[\w-]+$/.test(params.get('model') ?? '') ? (params.get('model') as string) : 'default';

const wantedDtype: Dtype | null = isDtype(params.get('dtype')) ? (params.get('dtype') as Dtype) : null;
const dtype: Dtype = wantedDtype ?? 'fp32';

const threads = Number(params.get('threads')) || undefined;
/** ?kv-cache=cpu: keep the KV cache in JavaScript on WebGPU too (the default there is on the GPU: gpu-buffer). */
const kvCache = params.get('kv-cache') === 'cpu' ? ('cpu' as const) : undefined;

const $ = (sel: string) => document.querySelector(sel) as HTMLElement;

// The backend selector beside the header's reason line: another choice reloads the page with ?backend= (the worker
// imports onnxruntime-web for one backend: the WASM-only build unless WebGPU is chosen, ort-web.ts).
const backendSelect = $('#backend-select') as HTMLSelectElement;
backendSelect.value = prefer;
backendSelect.addEventListener('change', () => {
  const next = new URL(location.href);
  next.searchParams.set('backend', backendSelect.value);
  location.assign(next.href);
});

mountWorkedExample($('#worked-example'));
mountRunViewer($('#run-viewer'));

const client = new ModelClient();
let resolveTools: (tools: ToolInfo[]) => void = () => {};
/** Whether the panels have the tools (a first model loaded): a later model makes the explorer score again. */
let toolsKnown = false;
const toolsReady = (tools: ToolInfo[]) => {
  toolsKnown = true;
  // Every chart and strip keys a tool's colour and marker on the registry's order (ui/colors.ts).
  toolStyles.setRegistry(tools.map((t) => t.name));
  resolveTools(tools);
};
let toolsFailed: (e: unknown) => void = () => {};
const toolsPromise = new Promise<ToolInfo[]>((resolve, reject) => { resolveTools = resolve; toolsFailed = reject; });
const explorer = mountExplorer($('#explorer'), client, toolsPromise, initialState(params));
const inferModel = /^[\w-]+$/.test(params.get('infer-model') ?? '') ? (params.get('infer-model') as string) : 'toolformer';
const inference = mountInference($('#inference'), client, toolsPromise, inferModel);
const toolkens = mountToolkens($('#toolkens'), client, { slot: explorer.toolkenSlot, text: explorer.shownText }, toolsPromise);
explorer.onResult = (text) => toolkens.showFor(text);
toolkens.onChange = (t) => inference.useToolkens(t);
const progress = $('#load-progress') as HTMLProgressElement;
const status = $('[data-testid="load-status"]');

type Loaded = Awaited<ReturnType<typeof client.request<'load'>>>;

/** The page's model as the header names it: "default", or "disk:<folder>" once a folder was opened. */
let modelName = model ?? 'none';

function showLoaded(loaded: Loaded, what: string): void {
  progress.hidden = true;
  $('[data-testid="backend"]').textContent = `backend: ${loaded.choice.backend}`;
  $('[data-testid="dtype"]').textContent = `dtype: ${loaded.dtype} (${loaded.file})`;
  $('[data-testid="backend-reason"]').textContent = loaded.choice.reason;
  status.textContent = `model ${loaded.modelId} ${what} in ${(loaded.loadMs / 1000).toFixed(1)} s`;
}

// Cancel (a panel's Cancel button) restarts the worker, which loads the model again: say so while it does.
client.onRestart = (reload) => {
  status.textContent = `job cancelled; reloading model "${modelName}"…`;
  progress.hidden = false;
  reload.then((loaded) => showLoaded(loaded, 'reloaded after cancel'), (e: unknown) => {
    if (isCancelled(e)) return; // cancelled again while reloading: the next reload reports
    status.textContent = `model failed to reload: ${e instanceof Error ? e.message : String(e)}`;
  });
};

function showProgress(stage: string, done: number, total: number): void {
  progress.max = total || 1;
  progress.value = done;
  status.textContent = stage.endsWith('.onnx')
    ? `loading ${stage}: ${(done / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB`
    : `loading: ${stage}…`;
}

function showFailed(e: unknown): void {
  status.textContent = `model failed to load: ${e instanceof Error ? e.message : String(e)}`;
  status.classList.add('error');
  document.body.dataset.ready = 'error';
}

/** A folder from disk becomes the page's model (a fresh worker); the explorer re-scores and Inference uses it. */
async function openFolder(folder: OpenedFolder): Promise<void> {
  modelName = `disk:${folder.name}`;
  progress.hidden = false;
  status.classList.remove('error');
  status.textContent = `loading model "${modelName}" (${folder.dtype})…`;
  document.body.dataset.ready = 'loading';
  const loaded = await client.replaceModel({ source: { kind: 'files', name: folder.name, files: folder.files }, prefer, dtype: folder.dtype, threads, kvCache }, showProgress);
  showLoaded(loaded, 'ready');
  document.body.dataset.ready = 'true';
  document.body.dataset.model = loaded.modelId;
  inference.useModel(loaded.modelId, null);
  toolkens.modelChanged();
  // The panels' first model (?model=none, or the folder replaced the first load before it finished) starts the
  // explorer through the tools; a later one makes it score again.
  if (toolsKnown) explorer.rerun();
  else toolsReady(loaded.tools);
  (globalThis as { toolformer?: unknown }).toolformer = { client, loaded };
}

mountModelPicker($('#model-picker'), wantedDtype, (folder) => {
  openFolder(folder).catch((e: unknown) => {
    if (!isCancelled(e)) showFailed(e);
  });
});

async function start(model: string): Promise<void> {
  progress.hidden = false;
  status.textContent = `loading model "${model}"…`;
  const loaded = await client.request('load', { source: { kind: 'url', url: new URL(`./models/${model}/`, location.href).href }, prefer, dtype, threads, kvCache }, showProgress);
  showLoaded(loaded, 'ready');
  document.body.dataset.ready = 'true';
  toolsReady(loaded.tools);
  // Test and benchmark hook: the page's own client, for the browser tests (no UI).
  (globalThis as { toolformer?: unknown }).toolformer = { client, loaded };
}

if (model === null) {
  status.textContent = 'no model loaded: open a model folder above';
  document.body.dataset.ready = 'none';
} else start(model).catch((e: unknown) => {
  // A folder opened while the first model loads replaces it (its load is cancelled): that is no failure.
  if (isCancelled(e)) return;
  showFailed(e);
  toolsFailed(e);
});
