/**
 * The explorer's DOM, built once: every control (labelled native inputs) with its listener calling a handler, and
 * the empty output elements the render functions (render.ts) fill. No state lives here beyond what an input holds.
 */
import { fmt, h, slider } from '../dom.ts';
import type { ExplorerState, ToolInfo } from './state.ts';

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
}

export interface ExplorerView {
  textArea: HTMLTextAreaElement;
  sampleSelect: HTMLSelectElement;
  dateInput: HTMLInputElement;
  toolSet: HTMLFieldSetElement;
  ownTool: HTMLInputElement;
  ownInput: HTMLInputElement;
  ownAt: HTMLInputElement;
  runButton: HTMLButtonElement;
  cancelButton: HTMLButtonElement;
  progress: HTMLProgressElement;
  status: HTMLElement;
  strips: HTMLElement;
  summary: HTMLElement;
  table: HTMLTableElement;
  rejectedSummary: HTMLElement;
  rejectedTable: HTMLTableElement;
  inlined: HTMLElement;
}

export function buildView(root: HTMLElement, settings: ExplorerState, on: ExplorerHandlers): ExplorerView {
  const textArea = h('textarea', { id: 'ex-text', 'data-testid': 'ex-text', rows: 4 }, settings.text);
  textArea.addEventListener('input', () => on.text(textArea.value));
  const sampleSelect = h('select', { id: 'ex-sample', 'data-testid': 'ex-sample' }, h('option', { value: '' }, 'type your own…'));
  sampleSelect.addEventListener('change', () => on.sample(sampleSelect.value));
  const dateInput = h('input', { type: 'date', id: 'ex-date', 'data-testid': 'ex-date', value: settings.date });
  dateInput.addEventListener('change', () => on.date(dateInput.value));
  const toolSet = h('fieldset', {}, h('legend', {}, 'Tools'));

  const ownTool = h('input', { type: 'text', id: 'ex-own-tool', 'data-testid': 'ex-own-tool', value: settings.own?.tool ?? '', size: 10 });
  const ownInput = h('input', { type: 'text', id: 'ex-own-input', 'data-testid': 'ex-own-input', value: settings.own?.input ?? '', size: 28 });
  const ownAt = h('input', { type: 'number', id: 'ex-own-at', 'data-testid': 'ex-own-at', min: 0, value: settings.own?.at ?? 0 });
  const readOwn = () =>
    on.own(ownTool.value.trim() ? { tool: ownTool.value.trim(), input: ownInput.value, at: ownAt.valueAsNumber || 0 } : null);
  for (const el of [ownTool, ownInput, ownAt]) el.addEventListener('input', readOwn);

  const runButton = h('button', { type: 'button', 'data-testid': 'ex-run', disabled: true }, 'Score with the model');
  runButton.addEventListener('click', () => on.run());
  const cancelButton = h('button', { type: 'button', 'data-testid': 'ex-cancel', disabled: true, title: 'Stop the model job (the worker restarts and reloads the model)' }, 'Cancel');
  cancelButton.addEventListener('click', () => on.cancel());
  const status = h('p', { class: 'muted', 'data-testid': 'ex-status', role: 'status', 'aria-live': 'polite' });
  const progress = h('progress', { max: 1, value: 0, hidden: true, 'aria-label': 'Scoring progress', 'data-testid': 'ex-progress' });

  const tauS = slider({ id: 'ex-tau-s', label: 'τ_s', min: 0, max: 0.2, step: 0.001, value: settings.tauS, format: (v) => v.toFixed(3), onInput: on.tauS });
  const tauF = slider({ id: 'ex-tau-f', label: 'τ_f', min: -5, max: 5, step: 0.05, value: settings.tauF, format: (v) => fmt(v), onInput: on.tauF });
  const k = slider({ id: 'ex-k', label: 'k', min: 1, max: 20, step: 1, value: settings.k, onInput: on.k });
  const m = slider({ id: 'ex-m', label: 'm', min: 0, max: 10, step: 1, value: settings.m, onInput: on.m });
  const controlBox = h('input', { type: 'checkbox', id: 'ex-control', 'data-testid': 'ex-control', checked: settings.control });
  controlBox.addEventListener('change', () => on.control(controlBox.checked));
  const control = h('label', { for: 'ex-control', title: 'A call kept at τ_f must also beat a wrong result of the same tool (a distractor) by its margin in L_c' },
    controlBox, ' counterfactual control (the pipeline\'s margins)');

  const contextSelect = h('select', { id: 'ex-lm-context', 'data-testid': 'ex-lm-context' },
    h('option', { value: 'prompt', selected: settings.lmContext === 'prompt' }, 'each tool\'s prompt P(x)'),
    h('option', { value: 'bare', selected: settings.lmContext === 'bare' }, 'the bare text (a model finetuned on calls)'));
  contextSelect.addEventListener('change', () => on.lmContext(contextSelect.value === 'bare' ? 'bare' : 'prompt'));
  const lmContext = h('label', { for: 'ex-lm-context', title: 'What the LM\'s p_i(" [") and sampled calls condition on (annotate --lm-context)' }, 'LM context ', contextSelect);
  const programmaticBox = h('input', { type: 'checkbox', id: 'ex-programmatic', 'data-testid': 'ex-programmatic', checked: settings.programmatic });
  programmaticBox.addEventListener('change', () => on.programmatic(programmaticBox.checked));
  const programmatic = h('label', { for: 'ex-programmatic', title: 'Heuristic positions and the tools\' own proposers beside the LM\'s samples (annotate --no-programmatic: off)' },
    programmaticBox, ' programmatic proposers (your own call is one)');

  const strips = h('div', { 'data-testid': 'ex-strips' });
  const table = h('table', { 'data-testid': 'ex-candidates' });
  const rejectedSummary = h('summary', {});
  const rejectedTable = h('table', { 'data-testid': 'ex-rejected' });
  const summary = h('p', { 'data-testid': 'ex-summary' });
  const inlined = h('p', { class: 'annotated', 'data-testid': 'ex-inlined' });

  root.append(
    h('h2', { id: 'ex-title' }, 'Explorer'),
    h('p', { class: 'muted' }, 'The pipeline\'s own stages on your text: positions p_i(" ["), proposed calls, tool results, the three losses, the verdict.'),
    h('label', { for: 'ex-text' }, 'Text', textArea),
    h('div', { class: 'grid' },
      h('label', { for: 'ex-sample' }, 'Sample from the corpus', sampleSelect),
      h('label', { for: 'ex-date' }, 'Document date', dateInput),
      toolSet,
    ),
    h('div', { class: 'grid' }, tauS.root, k.root, m.root, tauF.root, control),
    h('div', { class: 'grid' }, lmContext, programmatic),
    h('fieldset', {},
      h('legend', {}, 'Your own call (scored beside the proposed ones; tool empty = none)'),
      h('div', { class: 'grid' },
        h('label', { for: 'ex-own-tool' }, 'Tool', ownTool),
        h('label', { for: 'ex-own-input' }, 'Argument', ownInput),
        h('label', { for: 'ex-own-at' }, 'Before character', ownAt))),
    h('p', {}, runButton, ' ', cancelButton, ' ', progress),
    status,
    strips,
    summary,
    table,
    h('details', { 'data-testid': 'ex-rejected-details' }, rejectedSummary, rejectedTable),
    h('h3', {}, 'Text with kept calls inlined'),
    inlined,
  );
  return { textArea, sampleSelect, dateInput, toolSet, ownTool, ownInput, ownAt, runButton, cancelButton, progress, status, strips, summary, table, rejectedSummary, rejectedTable, inlined };
}

/** One checkbox per tool, checked when the settings run it. */
export function toolBox({ name, description }: ToolInfo, checked: boolean, on: Pick<ExplorerHandlers, 'tool'>): HTMLLabelElement {
  const box = h('input', { type: 'checkbox', id: `ex-tool-${name}`, 'data-testid': `ex-tool-${name}`, checked });
  box.addEventListener('change', () => on.tool(name, box.checked));
  return h('label', { class: 'inline', for: `ex-tool-${name}`, title: description }, box, name);
}
