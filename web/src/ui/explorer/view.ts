/**
 * The explorer's DOM, built once: every control (labelled native inputs) with its listener calling a handler, and
 * the empty output elements the render functions (render.ts) fill. No state lives here beyond what an input holds.
 */
import { fmt, h, logSlider, slider } from '../dom.ts';
import { createScatter, type Scatter } from './scatter.ts';
import type { ExplorerState, ToolInfo } from './state.ts';
import { TAU_F_SLIDER_MIN } from '../../analysis-types.ts';
import { DOCUMENT_DATE_FORMS, isDocumentDate } from '../../../../pipeline/core/document.ts';

/** What the user did; mount.ts turns each into a state change and a render. */
export interface ExplorerHandlers {
  text(value: string): void;
  sample(index: string): void;
  date(value: string): void;
  tool(name: string, checked: boolean): void;
  own(call: ExplorerState['own']): void;
  tauS(value: number): void;
  tauF(value: number): void;
  k(value: number): void;
  m(value: number): void;
  control(on: boolean): void;
  lmContext(value: 'prompt' | 'bare'): void;
  programmatic(on: boolean): void;
  run(): void;
  cancel(): void;
  /** Show another page of the candidate table (0-based). */
  page(index: number): void;
}

export interface ExplorerView {
  textArea: HTMLTextAreaElement;
  sampleSelect: HTMLSelectElement;
  dateInput: HTMLInputElement;
  toolSet: HTMLFieldSetElement;
  /** The run's tools (renderTools fills them) and "none". */
  ownTool: HTMLSelectElement;
  ownInput: HTMLInputElement;
  ownAt: HTMLInputElement;
  runButton: HTMLButtonElement;
  cancelButton: HTMLButtonElement;
  progress: HTMLProgressElement;
  status: HTMLElement;
  /** Everything a finished run shows; hidden until the first one (no empty boxes while scoring). */
  results: HTMLElement;
  strips: HTMLElement;
  /** p(toolken) strips beside p_i's, filled by the toolkens panel (ui/toolkens.ts) when toolkens are loaded. */
  toolkenStrips: HTMLElement;
  scatter: Scatter;
  /** The scatter's box beside the controls: hidden until the first result. */
  scatterHolder: HTMLElement;
  tauS: ReturnType<typeof logSlider>;
  tableSummary: HTMLElement;
  table: HTMLTableElement;
  pager: HTMLElement;
  rejectedDetails: HTMLDetailsElement;
  rejectedSummary: HTMLElement;
  rejectedTable: HTMLTableElement;
  inlined: HTMLElement;
  /** Where the tool ranking for the text goes (ui/tool-ranking.ts; no model needed). */
  ranking: HTMLElement;
}

/** Rows per page of the candidate table. */
export const PAGE_ROWS = 15;

export function buildView(root: HTMLElement, settings: ExplorerState, on: ExplorerHandlers): ExplorerView {
  const textArea = h('textarea', { id: 'ex-text', 'data-testid': 'ex-text', rows: 4 }, settings.text);
  textArea.addEventListener('input', () => on.text(textArea.value));
  const sampleSelect = h('select', { id: 'ex-sample', 'data-testid': 'ex-sample' }, h('option', { value: '' }, 'type your own…'));
  sampleSelect.addEventListener('change', () => on.sample(sampleSelect.value));
  // Text, not type=date: a corpus sample's date may be a year only (SOTU: "1867"), which a date input blanks.
  const dateInput = h('input', { type: 'text', id: 'ex-date', 'data-testid': 'ex-date', value: settings.date, size: 10, placeholder: 'YYYY-MM-DD', title: DOCUMENT_DATE_FORMS });
  dateInput.addEventListener('change', () => {
    const value = dateInput.value.trim();
    dateInput.setCustomValidity(value === '' || isDocumentDate(value) ? '' : `A document date is ${DOCUMENT_DATE_FORMS}.`);
    if (dateInput.reportValidity()) on.date(value);
  });
  const toolSet = h('fieldset', { class: 'tools' }, h('legend', {}, 'Tools'));

  const { ownTool, ownInput, ownAt } = ownCallInputs(settings, on);

  const runButton = h('button', { type: 'button', 'data-testid': 'ex-run', disabled: true }, 'Score with the model');
  runButton.addEventListener('click', () => on.run());
  const cancelButton = h('button', { type: 'button', 'data-testid': 'ex-cancel', disabled: true, title: 'Stop the model job (the worker restarts and reloads the model)' }, 'Cancel');
  cancelButton.addEventListener('click', () => on.cancel());
  const status = h('p', { class: 'muted', 'data-testid': 'ex-status', role: 'status', 'aria-live': 'polite' });
  const progress = h('progress', { max: 1, value: 0, hidden: true, 'aria-label': 'Scoring progress', 'data-testid': 'ex-progress' });

  // p_i of a small model sit far below the paper's 0.05 (1e-8 … 4e-4): the slider spans the observed range on a log
  // scale (renderResults re-spans it after each run); until then 1e-8 … 1e-2.
  const tauS = logSlider({ id: 'ex-tau-s', label: 'τ_s', lo: -8, hi: -2, value: settings.tauS, onInput: on.tauS });
  const tauF = slider({ id: 'ex-tau-f', label: 'τ_f', min: TAU_F_SLIDER_MIN, max: 5, step: 0.05, value: settings.tauF, format: (v) => fmt(v), unit: 'nats', onInput: on.tauF });
  const k = slider({ id: 'ex-k', label: 'k', min: 1, max: 20, step: 1, value: settings.k, onInput: on.k });
  const m = slider({ id: 'ex-m', label: 'm', min: 0, max: 10, step: 1, value: settings.m, onInput: on.m });
  const controlBox = h('input', { type: 'checkbox', id: 'ex-control', 'data-testid': 'ex-control', checked: settings.control });
  controlBox.addEventListener('change', () => on.control(controlBox.checked));
  const control = h('label', { class: 'inline', for: 'ex-control', title: 'A call kept at τ_f must also beat a wrong result of the same tool (a distractor) by its margin in L_c' },
    controlBox, ' counterfactual control (the pipeline\'s margins)');

  const { lmContext, programmatic } = proposeControls(settings, on);

  const scatter = createScatter();
  const scatterHolder = h('div', { class: 'scatter-holder', hidden: true, 'data-testid': 'ex-scatter-holder' }, scatter.root);
  const out = resultOutputs();

  const ranking = h('div', { 'data-testid': 'ex-ranking' });
  // Wide screens: the text and its controls on the left, the filter's picture on the right, both in the first
  // viewport, the other settings under the controls; narrow ones: one column — text, picture, other settings.
  root.append(
    h('h2', { id: 'ex-title' }, 'Explorer: which calls does the filter keep?'),
    h('div', { class: 'explorer-top' },
      h('div', { class: 'explorer-input' },
        h('label', { for: 'ex-text' }, 'Text (the pipeline\'s own stages run on it: positions p_i(" ["), proposed calls, tool results, the three losses, the verdict)', textArea),
        h('div', { class: 'grid compact' },
          h('label', { for: 'ex-sample' }, 'Sample from the corpus', sampleSelect),
          h('label', { for: 'ex-date' }, 'Document date', dateInput)),
        toolSet,
        h('fieldset', {},
          h('legend', {}, 'Judge the stored numbers (no model run)'),
          h('div', { class: 'grid compact' }, tauF.root, tauS.root, control)),
        h('div', { class: 'actions' }, runButton, cancelButton, progress)),
      h('div', { class: 'explorer-picture' },
        status,
        scatterHolder),
      h('details', { class: 'more-controls', open: true, 'data-testid': 'ex-more' },
        h('summary', {}, 'More settings: k and m, the LM context, your own call'),
        h('fieldset', {},
          h('legend', {}, 'Propose calls (re-runs the model)'),
          h('div', { class: 'grid compact' }, k.root, m.root, lmContext, programmatic)),
        h('fieldset', {},
          h('legend', {}, 'Your own call (scored beside the proposed ones)'),
          h('div', { class: 'grid compact' },
            h('label', { for: 'ex-own-tool' }, 'Tool', ownTool),
            h('label', { for: 'ex-own-input' }, 'Argument', ownInput),
            h('label', { for: 'ex-own-at' }, 'Before character', ownAt))))),
    ranking,
    out.results,
  );
  return {
    textArea, sampleSelect, dateInput, toolSet, ownTool, ownInput, ownAt, runButton, cancelButton, progress, status,
    ...out, scatter, scatterHolder, tauS, ranking,
  };
}

/** The own call's inputs (tool, argument, position); any input reports the whole call, or null with no tool. */
function ownCallInputs(settings: ExplorerState, on: Pick<ExplorerHandlers, 'own'>) {
  const ownTool = h('select', { id: 'ex-own-tool', 'data-testid': 'ex-own-tool' }, h('option', { value: '' }, 'none'));
  const ownInput = h('input', { type: 'text', id: 'ex-own-input', 'data-testid': 'ex-own-input', value: settings.own?.input ?? '', size: 28 });
  const ownAt = h('input', { type: 'number', id: 'ex-own-at', 'data-testid': 'ex-own-at', min: 0, value: settings.own?.at ?? 0 });
  const readOwn = () =>
    on.own(ownTool.value.trim() ? { tool: ownTool.value.trim(), input: ownInput.value, at: ownAt.valueAsNumber || 0 } : null);
  for (const el of [ownTool, ownInput, ownAt]) el.addEventListener('input', readOwn);
  return { ownTool, ownInput, ownAt };
}

/** The proposal settings beside k and m: what the LM conditions on, and whether programmatic proposers run. */
function proposeControls(settings: ExplorerState, on: Pick<ExplorerHandlers, 'lmContext' | 'programmatic'>) {
  const contextSelect = h('select', { id: 'ex-lm-context', 'data-testid': 'ex-lm-context' },
    h('option', { value: 'prompt', selected: settings.lmContext === 'prompt' }, 'each tool\'s prompt P(x)'),
    h('option', { value: 'bare', selected: settings.lmContext === 'bare' }, 'the bare text (a model finetuned on calls)'));
  contextSelect.addEventListener('change', () => on.lmContext(contextSelect.value === 'bare' ? 'bare' : 'prompt'));
  const lmContext = h('label', { for: 'ex-lm-context', title: 'What the LM\'s p_i(" [") and sampled calls condition on (annotate --lm-context)' }, 'LM context ', contextSelect);
  const programmaticBox = h('input', { type: 'checkbox', id: 'ex-programmatic', 'data-testid': 'ex-programmatic', checked: settings.programmatic });
  programmaticBox.addEventListener('change', () => on.programmatic(programmaticBox.checked));
  const programmatic = h('label', { class: 'inline', for: 'ex-programmatic', title: 'Heuristic positions and the tools\' own proposers beside the LM\'s samples (annotate --no-programmatic: off)' },
    programmaticBox, ' programmatic proposers (your own call is one)');
  return { lmContext, programmatic };
}

/** The outputs a finished run fills (render.ts), inside `results`, hidden until the first run. */
function resultOutputs() {
  const strips = h('div', { 'data-testid': 'ex-strips' });
  const toolkenStrips = h('div', { 'data-testid': 'ex-toolkens' });
  const table = h('table', { 'data-testid': 'ex-candidates', class: 'candidates' });
  const tableSummary = h('summary', { 'data-testid': 'ex-table-summary' });
  const pager = h('div', { class: 'pager', 'data-testid': 'ex-pager' });
  const rejectedSummary = h('summary', {});
  const rejectedTable = h('table', { 'data-testid': 'ex-rejected', class: 'candidates' });
  const rejectedDetails = h('details', { 'data-testid': 'ex-rejected-details' }, rejectedSummary, h('div', { class: 'table-scroll' }, rejectedTable));
  const inlined = h('p', { class: 'annotated', 'data-testid': 'ex-inlined' });
  const results = h('div', { class: 'results', hidden: true, 'data-testid': 'ex-results' },
    h('details', { 'data-testid': 'ex-table-details' }, tableSummary, pager, h('div', { class: 'table-scroll' }, table)),
    rejectedDetails,
    h('h3', {}, 'Text with the kept calls inlined'),
    inlined,
    h('h3', {}, 'Where calls may start: p_i(" [")'),
    strips,
    toolkenStrips,
  );
  return { results, strips, toolkenStrips, table, tableSummary, pager, rejectedDetails, rejectedSummary, rejectedTable, inlined };
}

/** One checkbox per tool, checked when the settings run it. */
export function toolBox({ name, description }: ToolInfo, checked: boolean, on: Pick<ExplorerHandlers, 'tool'>): HTMLLabelElement {
  const box = h('input', { type: 'checkbox', id: `ex-tool-${name}`, 'data-testid': `ex-tool-${name}`, checked });
  box.addEventListener('change', () => on.tool(name, box.checked));
  return h('label', { class: 'inline', for: `ex-tool-${name}`, title: description }, box, name);
}
