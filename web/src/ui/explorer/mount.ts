/**
 * The explorer: text (typed or a corpus sample) → the pipeline's stages in the worker → p_i heat strips, chosen
 * positions, every candidate call with its result, losses, usefulness and verdict, and the text with kept calls
 * inlined. τ_s and τ_f re-judge the stored numbers on the page (rejudge.ts); text, tools, k and m re-run the model.
 * The model scores L_b only where L_a − L_c reaches the τ_f of the run (two-pass scoring); a τ_f below that asks the
 * worker for the missing L_b of those calls only (fillCallOnlyLosses()).
 *
 * Shape: the state (state.ts) is one object; the DOM is built once (view.ts); each handler below changes the state
 * and calls the render function of the section that changed (render.ts); the worker is reached only through
 * worker-calls.ts. A run shows the stages' progress and can be cancelled (ModelClient.cancel: the worker restarts).
 */
import type { Doc } from '../../../../pipeline/core/document.ts';
import { isCancelled, type ModelClient } from '../../model-client.ts';
import { mountToolRanking } from '../tool-ranking.ts';
import { renderOwnCall, renderResults, renderSamples, renderStatus, renderTauSRange, renderTextInputs, renderTools } from './render.ts';
import { applyTools, type ExplorerModel, type ExplorerState, type ToolInfo } from './state.ts';
import { buildView, type ExplorerHandlers, type ExplorerView } from './view.ts';
import { analyze, fillCallOnly, loadSamples, sampleText } from './worker-calls.ts';
import { fmt } from '../dom.ts';

export { initialState, type ExplorerState, type ToolInfo } from './state.ts';

/** The page's handle on the explorer. */
export interface Explorer {
  /** Score the current settings again (the page loaded another model: the shown result is the old model's). */
  rerun(): void;
  /** Where the p(toolken) strips go (ui/toolkens.ts), and the text of the result shown (null before the first). */
  toolkenSlot: HTMLElement;
  shownText(): string | null;
  /** Told the text of each finished result. */
  onResult: ((text: string) => void) | null;
}

/** `ready` resolves with the worker's tools once the model is loaded. */
export function mountExplorer(root: HTMLElement, client: ModelClient, ready: Promise<ToolInfo[]>, initial: ExplorerState): Explorer {
  const model: ExplorerModel = { settings: initial, tools: null, job: { phase: 'waiting' }, lastDone: null, analysis: null, filled: 0, tablePage: 0 };
  const { settings } = model;
  let samples: Doc[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let fillTimer: ReturnType<typeof setTimeout> | undefined;

  /** Re-run the model after a pause in typing or sliding — once the tools are known or a first run exists. */
  const rerunSoon = (ms = 400): void => {
    clearTimeout(timer);
    if (model.tools !== null || model.analysis) timer = setTimeout(() => void run(), ms);
  };
  const rejudge = () => renderResults(view, model, on);

  const on: ExplorerHandlers = {
    text: (value) => { settings.text = value; view.sampleSelect.value = ''; ranking.show(value); rerunSoon(800); },
    sample: (index) => {
      const doc = samples[Number(index)];
      if (!index || !doc) return;
      settings.text = sampleText(doc);
      if (doc.date) settings.date = doc.date;
      renderTextInputs(view, settings);
      ranking.show(settings.text);
      rerunSoon(0);
    },
    date: (value) => { settings.date = value; rerunSoon(); },
    tool: (name, checked) => {
      if (checked) settings.tools?.add(name);
      else settings.tools?.delete(name);
      rerunSoon();
    },
    own: (call) => { settings.own = call; rerunSoon(800); },
    tauS: (v) => { settings.tauS = v; rejudge(); },
    tauF: (v) => {
      settings.tauF = v;
      rejudge();
      // Below the analysis' τ_min some calls lack L_b: score those (only those) once the slider rests.
      if (model.analysis && v < model.analysis.tauMin) fillSoon();
    },
    k: (v) => { settings.k = v; rerunSoon(); },
    m: (v) => { settings.m = v; rerunSoon(); },
    control: (checked) => { settings.control = checked; rejudge(); },
    lmContext: (value) => { settings.lmContext = value; rerunSoon(); },
    programmatic: (checked) => { settings.programmatic = checked; rerunSoon(); },
    page: (index) => { model.tablePage = index; rejudge(); },
    run: () => void run(),
    cancel: () => {
      clearTimeout(timer);
      clearTimeout(fillTimer);
      // Rejects the running analyze (or L_b job) with a CancelledError; runAnalysis() or fillCallOnlyLosses() then marks the job idle.
      client.cancel('analyze');
      client.cancel('fillCallOnly');
    },
  };
  const view = buildView(root, settings, on);
  // The tools that fit the text, by BM25 (no model): beside the model's run, never waiting for it.
  const ranking = mountToolRanking(view.ranking, settings.text);
  renderStatus(view, model);
  const jobs: Jobs = { model, view, client, on, runCounter: 0, filling: false, onResult: (text) => explorer.onResult?.(text) };
  const run = (): Promise<void> => {
    clearTimeout(timer);
    return runAnalysis(jobs);
  };

  const fillSoon = (ms = 300): void => {
    clearTimeout(fillTimer);
    fillTimer = setTimeout(() => void fillCallOnlyLosses(jobs), ms);
  };

  loadSamples().then((docs) => {
    samples = docs;
    renderSamples(view, docs);
  }, () => {});

  whenModelReady(jobs, ready, run);
  const explorer: Explorer = { rerun: () => void run(), toolkenSlot: view.toolkenStrips, shownText: () => model.analysis?.text ?? null, onResult: null };
  return explorer;
}

/** What the explorer's model jobs share: its state and DOM, the worker, and which run is the latest. */
interface Jobs {
  model: ExplorerModel;
  view: ExplorerView;
  client: ModelClient;
  on: ExplorerHandlers;
  /** Counts the runs started; a run whose id is no longer the count was superseded and shows nothing. */
  runCounter: number;
  /** Whether a fillCallOnly job is out (one at a time; when it ends, the slider's latest value is checked again). */
  filling: boolean;
  /** Told the text of each finished result (Explorer.onResult). */
  onResult: (text: string) => void;
}

/** Once the model is loaded: its tools shown and applied to the settings, then the first run; else "no model". */
function whenModelReady({ model, view, on }: Jobs, ready: Promise<ToolInfo[]>, run: () => Promise<void>): void {
  const { settings } = model;
  void ready.then(
    (tools) => {
      model.tools = tools;
      applyTools(settings, tools);
      renderTools(view, model, on);
      renderOwnCall(view, settings);
      renderStatus(view, model);
      return run();
    },
    () => {
      model.job = { phase: 'no-model' };
      renderStatus(view, model);
    },
  );
}

/** Runs the pipeline's stages in the worker on the current settings and shows the result (or why there is none). */
async function runAnalysis(jobs: Jobs): Promise<void> {
  const { model, view, client, on } = jobs;
  const { settings } = model;
  const id = ++jobs.runCounter;
  const text = settings.text.trim();
  if (!text) {
    model.job = { phase: 'idle', note: 'Type some text first.' };
    renderStatus(view, model);
    return;
  }
  model.job = { phase: 'running', id, done: 0, total: 0 };
  renderStatus(view, model);
  try {
    const result = await analyze(client, settings, text, (stage, done, total) => {
      if (id !== jobs.runCounter) return;
      model.job = { phase: 'running', id, stage, done, total };
      renderStatus(view, model);
    });
    if (id !== jobs.runCounter) return; // a newer run superseded this one
    model.analysis = result;
    model.filled = 0;
    model.lastDone = id;
    model.job = { phase: 'done', id };
    model.tablePage = 0;
    renderStatus(view, model);
    renderTauSRange(view, result);
    renderResults(view, model, on);
    jobs.onResult(result.text);
  } catch (e) {
    if (id !== jobs.runCounter) return;
    model.job = isCancelled(e)
      ? { phase: 'idle', note: `Cancelled.${model.analysis ? ' The last finished result stays below.' : ''}` }
      : { phase: 'failed', id, message: e instanceof Error ? e.message : String(e) };
    renderStatus(view, model);
  }
}

/**
 * τ_f is below the analysis' τ_min: the worker scores L_b for the calls whose bound L_a − L_c reaches τ_f (and the
 * control and verdict for those), the page merges them and re-judges. A newer run supersedes it.
 */
async function fillCallOnlyLosses(jobs: Jobs): Promise<void> {
  const { model, view, client } = jobs;
  const { settings } = model;
  const a = model.analysis;
  if (jobs.filling || !a || !(settings.tauF < a.tauMin)) return;
  jobs.filling = true;
  const id = jobs.runCounter;
  const mine = () => id === jobs.runCounter && model.analysis === a;
  model.job = { phase: 'running', id, stage: `L_b for τ_f below ${fmt(a.tauMin)}`, done: 0, total: 0 };
  renderStatus(view, model);
  try {
    const r = await fillCallOnly(client, a, settings.tauF, (stage, done, total) => {
      if (!mine()) return;
      model.job = { phase: 'running', id, stage, done, total };
      renderStatus(view, model);
    });
    if (model.analysis !== a) return;
    for (const u of r.updates) a.candidates[u.index] = u.candidate;
    a.tauMin = r.tauMin;
    model.filled += r.callOnlyScored;
    if (id === jobs.runCounter) model.job = { phase: 'done', id: model.lastDone! };
    renderStatus(view, model);
    renderResults(view, model, jobs.on);
  } catch (e) {
    if (!mine()) return;
    model.job = isCancelled(e)
      ? { phase: 'idle', note: 'Cancelled: calls whose L_b is not scored stay undecided below τ_min.' }
      : { phase: 'failed', id, message: e instanceof Error ? e.message : String(e) };
    renderStatus(view, model);
  } finally {
    jobs.filling = false;
  }
  // The slider may have gone lower meanwhile.
  if (mine()) void fillCallOnlyLosses(jobs);
}
