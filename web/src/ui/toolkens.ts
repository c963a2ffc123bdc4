/**
 * Toolkens (ToolkenGPT, Hao et al. 2023; pipeline/core/toolkens/): one learned row W_τ[k] per tool beside the frozen
 * model's output layer. This panel
 *   - opens a toolkens file (`toolformer toolkens train`'s safetensors file, or one trained here) and checks that it
 *     belongs to the page's model — the bundled one or a folder from disk — by the model digest it records (the CLI's
 *     SHA-256 over the model folder's files, model-digest.ts); another model's file is refused in one line;
 *   - then draws p(toolken) per token in the explorer, beside p_i(" ["), for the explorer's text (toolken-strip.ts),
 *     and hands them to the Inference panel (`onChange`), which can generate with them;
 *   - trains toolkens in the page from a run's train.jsonl (a file, or the bundled finetuning data): the model worker
 *     labels the texts and runs the frozen model once per window (toolkens-jobs.ts), then a worker of its own trains
 *     W_τ alone (toolkens-train-worker.ts) with a progress bar and a loss curve; Cancel stops either step. The result
 *     is offered as a download in the same file format and is used at once.
 */
import { decodeToolkens, encodeToolkens, type Toolkens } from '../../../pipeline/core/toolkens/file.ts';
import { toolsCalled, trainText } from '../../../pipeline/core/toolkens/examples.ts';
import { trainedToolkensFile } from '../../../pipeline/core/toolkens/trained-file.ts';
import type { EpochRecord } from '../../../pipeline/core/toolkens/train.ts';
import { CancelledError, isCancelled, type ModelClient } from '../model-client.ts';
import type { ResultOf } from '../protocol.ts';
import type { TrainJob, TrainReply } from '../toolkens-train-worker.ts';
import { h } from './dom.ts';
import type { InferenceToolkens } from './inference.ts';
import { drawLossCurve } from './loss-curve.ts';
import { toolkenStrips } from './toolken-strip.ts';

/** The run whose train.jsonl the page bundles: the finetuned model's kept calls (models/toolformer/finetune-data/). */
export const BUNDLED_TRAIN = 'models/toolformer/finetune-data/a.jsonl';
/** The CLI's defaults (`toolformer toolkens train`), but the epochs and lr, which the panel lets one choose. */
const TRAIN_DEFAULTS = { batchSize: 64, valShare: 0.1, patience: 2, seed: 1, maxPositions: 200_000, onlyToolkens: false };

/** Where the explorer shows the strips, and what it shows now. */
export interface ToolkenHost {
  /** The element the strips go in (beside the explorer's p_i strips). */
  slot: HTMLElement;
  /** The explorer's last scored text (null before its first result). */
  text(): string | null;
}

export interface ToolkensPanel {
  /** The explorer scored `text`: draw the loaded toolkens' strips for it. */
  showFor(text: string): void;
  /** The page's model changed: its digest is computed again and the loaded toolkens checked against it. */
  modelChanged(): void;
  /** Told the toolkens in use whenever they change (null: none, e.g. refused by a new page model); a refused file never is. */
  onChange?: (toolkens: InferenceToolkens | null) => void;
}

type Digest = ResultOf['modelDigest'];

export function mountToolkens(root: HTMLElement, client: ModelClient, host: ToolkenHost, ready: Promise<{ name: string }[]>): ToolkensPanel {
  const view = buildPanel(root);
  let current: { toolkens: Toolkens; name: string } | null = null;
  let digest: Promise<Digest> | null = null;
  const modelDigest = () => (digest ??= client.request('modelDigest', {}));
  const training: Training = { view, client, modelDigest, use: (t, name) => use(t, name), tools: null, trainer: new TrainerWorker(), job: 0 };

  /** Checks `t` against the page's model and makes it the panel's toolkens, or refuses it (one line). */
  async function use(t: Toolkens, name: string): Promise<void> {
    say(view.loadStatus, `${name}: checking it against the page's model (SHA-256 of the model folder's files)…`);
    let d: Digest;
    try {
      d = await modelDigest();
    } catch (e) {
      digest = null;
      if (!isCancelled(e)) say(view.loadStatus, `${name}: the page's model digest could not be computed: ${message(e)}`, true);
      return;
    }
    const refusal = refusalOf(t, d, name);
    if (refusal) {
      say(view.loadStatus, refusal, true);
      document.body.dataset.toolkens = 'refused';
      return;
    }
    current = { toolkens: t, name };
    panel.onChange?.({ name, rows: { tools: t.tools, hiddenSize: t.hiddenSize, weights: t.weights }, modelDigest: t.meta.modelDigest, model: d.model });
    say(view.loadStatus, `${name}: ${t.tools.length} toolkens (${t.tools.join(', ')}), [${t.tools.length} × ${t.hiddenSize}]; model digest matches ${d.model} (${d.digest.slice(0, 12)}…)`);
    document.body.dataset.toolkens = 'loaded';
    const text = host.text();
    if (text !== null) await showFor(text);
  }

  async function showFor(text: string): Promise<void> {
    if (!current) return;
    const { toolkens, name } = current;
    try {
      const strip = await client.request('toolkenStrip', { text, toolkens: { tools: toolkens.tools, hiddenSize: toolkens.hiddenSize, weights: toolkens.weights } });
      if (current?.toolkens !== toolkens) return; // replaced meanwhile
      host.slot.replaceChildren(toolkenStrips(strip, name));
      host.slot.dataset.text = text;
    } catch (e) {
      if (!isCancelled(e)) host.slot.replaceChildren(h('p', { class: 'error' }, `p(toolken): ${message(e)}`));
    }
  }

  view.fileInput.addEventListener('change', () => {
    const file = view.fileInput.files?.[0];
    if (!file) return;
    void file.arrayBuffer().then((buffer) => {
      let t: Toolkens;
      try {
        t = decodeToolkens(new Uint8Array(buffer), file.name);
      } catch (e) {
        say(view.loadStatus, message(e), true);
        document.body.dataset.toolkens = 'refused';
        return;
      }
      return use(t, file.name);
    });
  });
  listenForTraining(training);
  void ready.then((list) => {
    training.tools = list.map((t) => t.name);
    setRunning(view, false, true);
  }, () => {});

  const panel: ToolkensPanel = {
    showFor: (text) => void showFor(text),
    modelChanged: () => {
      digest = null;
      const was = current;
      current = null;
      panel.onChange?.(null);
      host.slot.replaceChildren();
      if (was) void use(was.toolkens, was.name);
    },
  };
  return panel;
}

/** The panel's elements: the file to open and its status line, the training inputs, progress, curve and download. */
function buildPanel(root: HTMLElement) {
  const fileInput = h('input', { type: 'file', id: 'tk-file', 'data-testid': 'tk-file', accept: '.safetensors,application/octet-stream' });
  const loadStatus = h('p', { 'data-testid': 'tk-status', role: 'status', 'aria-live': 'polite' }, 'No toolkens loaded.');
  const trainInput = h('input', { type: 'file', id: 'tk-train-file', 'data-testid': 'tk-train-file', accept: '.jsonl,application/x-ndjson' });
  const bundledButton = h('button', { type: 'button', 'data-testid': 'tk-train-bundled', disabled: true }, 'Train on the bundled run');
  const epochsInput = h('input', { type: 'number', id: 'tk-epochs', 'data-testid': 'tk-epochs', min: 1, max: 50, value: 10 });
  const lrInput = h('input', { type: 'number', id: 'tk-lr', 'data-testid': 'tk-lr', min: 1e-5, max: 1e-1, step: 'any', value: 1e-3 });
  const cancelButton = h('button', { type: 'button', 'data-testid': 'tk-cancel', disabled: true }, 'Cancel');
  const progress = h('progress', { max: 1, value: 0, hidden: true, 'data-testid': 'tk-progress', 'aria-label': 'Toolken training progress' });
  const trainStatus = h('p', { class: 'muted', 'data-testid': 'tk-train-status', role: 'status', 'aria-live': 'polite' });
  const curve = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  curve.setAttribute('data-testid', 'tk-curve');
  curve.setAttribute('role', 'img');
  curve.setAttribute('aria-label', 'Toolken training loss per epoch');
  curve.style.maxWidth = '40rem';
  const download = h('a', { 'data-testid': 'tk-download', hidden: true }, 'Download the trained toolkens');
  root.append(
    h('h2', { id: 'tk-title' }, 'Toolkens (ToolkenGPT)'),
    h('p', { class: 'muted' }, 'A frozen model learns when to call each tool through one new output row per tool, W_τ, trained alone: ' +
      'the explorer then shows p(toolken) per token beside p_i(" ["). Files from `toolformer toolkens train` or trained here.'),
    h('label', { for: 'tk-file' }, 'Toolkens file (.safetensors) for the page\'s model ', fileInput),
    loadStatus,
    h('fieldset', {},
      h('legend', {}, 'Train toolkens here (W_τ only; the model stays frozen)'),
      h('div', { class: 'grid' },
        h('label', { for: 'tk-train-file' }, 'A run\'s train.jsonl ', trainInput),
        h('label', { for: 'tk-epochs' }, 'Epochs (at most; early stopping) ', epochsInput),
        h('label', { for: 'tk-lr' }, 'Adam lr ', lrInput)),
      h('div', { class: 'actions' }, bundledButton, cancelButton, progress),
      trainStatus, curve, download),
  );
  return { fileInput, loadStatus, trainInput, bundledButton, epochsInput, lrInput, cancelButton, progress, trainStatus, curve, download };
}

type PanelView = ReturnType<typeof buildPanel>;

/** Why `t` may not be used with the page's model (`d`), or null: it records no digest, or another model's. */
function refusalOf(t: Toolkens, d: Digest, name: string): string | null {
  if (!t.meta.modelDigest) return `${name}: records no model digest, so it cannot be checked against ${d.model}; not loaded`;
  if (t.meta.modelDigest !== d.digest) {
    return `${name}: trained on another model (digest ${t.meta.modelDigest.slice(0, 12)}, the page's model ${d.model} is ${d.digest.slice(0, 12)}); not loaded — train toolkens for this model below`;
  }
  return null;
}

const say = (el: HTMLElement, text: string, error = false) => {
  el.textContent = text;
  el.classList.toggle('error', error);
};

/** While training: the sources and the bundled run's button off (that one also until the tools are known), Cancel on. */
function setRunning(view: PanelView, running: boolean, toolsKnown: boolean): void {
  view.bundledButton.disabled = running || !toolsKnown;
  view.trainInput.disabled = running;
  view.cancelButton.disabled = !running;
  view.progress.hidden = !running;
}

/** What training in the page needs from the panel: its elements, the model worker and digest, and where the result goes. */
interface Training {
  view: PanelView;
  client: ModelClient;
  modelDigest(): Promise<Digest>;
  /** Makes trained toolkens the panel's (checked like an opened file). */
  use(t: Toolkens, name: string): Promise<void>;
  /** The page's tools once the model is loaded (null before). */
  tools: string[] | null;
  trainer: TrainerWorker;
  /** Counts the trainings started: one that is no longer the latest says nothing when it ends. */
  job: number;
}

/** The training sources (a file, the bundled run) and Cancel. */
function listenForTraining(tk: Training): void {
  const { view } = tk;
  view.cancelButton.addEventListener('click', () => {
    if (!tk.trainer.cancel()) tk.client.cancel('toolkenFeatures');
  });
  view.trainInput.addEventListener('change', () => {
    const file = view.trainInput.files?.[0];
    if (file) void train(tk, () => file.text(), file.name);
  });
  view.bundledButton.addEventListener('click', () => {
    void train(tk, async () => {
      const res = await fetch(new URL(`./${BUNDLED_TRAIN}`, location.href));
      if (!res.ok) throw new Error(`GET ${BUNDLED_TRAIN}: HTTP ${res.status}`);
      return res.text();
    }, BUNDLED_TRAIN);
  });
}

/** A run's train.jsonl: its texts, how many lines are not {"text": …} records, and the tools its calls use. */
function trainingTexts(jsonl: string, tools: readonly string[], source: string): { texts: string[]; bad: number; chosen: string[] } {
  const texts: string[] = [];
  let bad = 0;
  for (const line of jsonl.split('\n')) {
    const text = trainText(line);
    if (typeof text === 'string') texts.push(text);
    else if (text === null) bad++;
  }
  const chosen = toolsCalled(texts, [...tools]);
  if (chosen.length === 0) {
    throw new Error(`${source}: no tool call in its ${texts.length} records${bad ? ` (${bad} lines are not {"text": …} records)` : ''}: nothing to train`);
  }
  return { texts, bad, chosen };
}

/** Labels and features in the model worker, W_τ in the training worker, then the file: used at once and offered. */
async function train(tk: Training, read: () => Promise<string>, source: string): Promise<void> {
  const { view, client } = tk;
  const id = ++tk.job;
  setRunning(view, true, tk.tools !== null);
  view.download.hidden = true;
  document.body.dataset.toolkenTraining = 'running';
  say(view.trainStatus, `Reading ${source}…`);
  try {
    const { texts, bad, chosen } = trainingTexts(await read(), tk.tools ?? [], source);
    const epochs = Math.max(1, Math.min(50, Math.round(view.epochsInput.valueAsNumber) || 10));
    const lr = view.lrInput.valueAsNumber > 0 ? view.lrInput.valueAsNumber : 1e-3;
    say(view.trainStatus, `${source}: ${texts.length} records${bad ? `, ${bad} bad lines skipped` : ''}; toolkens ${chosen.join(', ')}`);
    const t0 = performance.now();
    const d = await tk.modelDigest();
    const { features, windows } = await client.request('toolkenFeatures',
      { texts, tools: chosen, maxPositions: TRAIN_DEFAULTS.maxPositions, onlyToolkens: TRAIN_DEFAULTS.onlyToolkens },
      (stage, done, total) => {
        view.progress.max = total || 1;
        view.progress.value = done;
        say(view.trainStatus, stage === 'windows' ? `Frozen model over the labelled windows: ${done} of ${total}` : `Loading the model with hidden states: ${stage}`);
      });
    const featureSeconds = (performance.now() - t0) / 1000;
    const options = { ...TRAIN_DEFAULTS, lr, epochs };
    const history: EpochRecord[] = [];
    const { trained, seconds } = await tk.trainer.run({ features, nTools: chosen.length, options }, (record) => {
      history.push(record);
      view.progress.max = epochs;
      view.progress.value = record.epoch;
      say(view.trainStatus, `Epoch ${record.epoch} of at most ${epochs}: train loss ${record.trainLoss.toFixed(4)}, validation ${record.valLoss?.toFixed(4) ?? '–'}`);
      drawLossCurve(view.curve, curveSeries(history, null), epochs);
    });
    drawLossCurve(view.curve, curveSeries(trained.history, trained.initialLoss), epochs);
    const file = trainedToolkensFile(chosen, features, trained, {
      model: d.model, modelDigest: d.digest, dtype: d.dtype, data: [source], records: texts.length, badLines: bad, windows,
      settings: { ...options, trainedIn: 'browser' },
      cost: { wallSeconds: { features: featureSeconds, train: seconds } },
    });
    const { bytes, name } = offerDownload(view.download, file, d.model);
    const last = trained.history.at(-1)!;
    say(view.trainStatus, `Trained in ${(featureSeconds + seconds).toFixed(1)} s (${featureSeconds.toFixed(1)} s frozen model, ${seconds.toFixed(1)} s W_τ): ` +
      `loss ${trained.initialLoss.train.toFixed(4)} → ${last.trainLoss.toFixed(4)} (train), kept epoch ${trained.bestEpoch}; ${name}, ${bytes.length} bytes, in use below.`);
    document.body.dataset.toolkenTraining = 'done';
    await tk.use(decodeToolkens(bytes, name), name);
  } catch (e) {
    if (id !== tk.job) return;
    say(view.trainStatus, isCancelled(e) ? 'Cancelled.' : message(e), !isCancelled(e));
    document.body.dataset.toolkenTraining = isCancelled(e) ? 'cancelled' : 'failed';
  } finally {
    if (id === tk.job) setRunning(view, false, tk.tools !== null);
  }
}

/** The trained file as bytes, named for the page's model, behind the download link. */
function offerDownload(download: HTMLAnchorElement, file: Toolkens, model: string): { bytes: Uint8Array; name: string } {
  const bytes = encodeToolkens(file);
  const name = `toolkens-${model.split('/').filter(Boolean).at(-1)?.replace(/^disk:/, '') ?? 'model'}.safetensors`;
  download.href = URL.createObjectURL(new Blob([bytes as BlobPart], { type: 'application/octet-stream' }));
  download.download = name;
  download.hidden = false;
  return { bytes, name };
}

/** The worker that trains W_τ: one per training, terminated when it ends or is cancelled. */
class TrainerWorker {
  private worker: Worker | null = null;
  private rejectRun: ((e: Error) => void) | null = null;

  /** Trains in a fresh worker; its epochs are reported as they end. Rejects with a CancelledError when cancelled. */
  run(jobData: TrainJob, onEpoch: (r: EpochRecord) => void): Promise<Extract<TrainReply, { type: 'done' }>> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(new URL('../toolkens-train-worker.ts', import.meta.url), { type: 'module', name: 'toolkens-training' });
      this.worker = worker;
      this.rejectRun = reject;
      worker.addEventListener('message', (e: MessageEvent<TrainReply>) => {
        const reply = e.data;
        if (reply.type === 'epoch') return onEpoch(reply.record);
        worker.terminate();
        this.worker = null;
        if (reply.type === 'done') resolve(reply);
        else reject(new Error(reply.message));
      });
      worker.addEventListener('error', (e) => reject(new Error(`training worker: ${e.message}`)));
      worker.postMessage(jobData);
    });
  }

  /** Stops a training that is running (its promise rejects with a CancelledError); false when none is. */
  cancel(): boolean {
    if (!this.worker) return false;
    this.worker.terminate();
    this.worker = null;
    this.rejectRun?.(new CancelledError());
    return true;
  }
}

/** Train loss (mean during each epoch) and validation loss (after it); epoch 0 is the untrained W_τ when known. */
function curveSeries(history: readonly EpochRecord[], initial: { train: number; val: number | null } | null) {
  const start = (v: number | null | undefined): [number, number][] => (initial && v !== null && v !== undefined ? [[0, v]] : []);
  return [
    { label: 'train', points: [...start(initial?.train), ...history.map((e): [number, number] => [e.epoch, e.trainLoss])] },
    { label: 'validation', points: [...start(initial?.val), ...history.filter((e) => e.valLoss !== null).map((e): [number, number] => [e.epoch, e.valLoss!])] },
  ];
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
