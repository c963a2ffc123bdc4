/**
 * The explorer: text (typed or a corpus sample) → the pipeline's stages in the worker → p_i heat strips, chosen
 * positions, every candidate call with its result, losses, usefulness and verdict, and the text with kept calls
 * inlined. τ_s and τ_f re-judge the stored numbers on the page (rejudge.ts); text, tools, k and m re-run the model.
 */
import { formatCall } from '../../../pipeline/core/call-syntax.ts';
import { reasonKind, type Candidate } from '../../../pipeline/core/candidates.ts';
import type { Doc } from '../../../pipeline/core/document.ts';
import type { Analysis } from '../analysis-types.ts';
import type { ModelClient } from '../model-client.ts';
import { chosenPositions, inlineKept, rejudge, type Decision } from '../rejudge.ts';
import { fmt, h, slider } from './dom.ts';
import { heatStrip } from './heat-strip.ts';

const DEFAULT_TEXT = 'Out of 2,400 participants, 600 (or 25%) passed the test and 1,800 failed. The capital of France is Paris.';

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
}

export interface ToolInfo {
  name: string;
  description: string;
  /** The tool's worked examples (its spec's `examples`). */
  examples: { text: string; at: number; input: string }[];
}

/**
 * Initial state, overridable from the URL (shareable views; the browser tests use them to keep runs small):
 * ?tools=<Tool>,<Tool>&k=5&m=2&tauS=0&tauF=0.5&control=0&text=…&own=<Tool>|<argument>|<offset> (own= empty: no call of
 * your own; control=0: no counterfactual control).
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
  };
}

/** `ready` resolves with the worker's tools once the model is loaded. */
export function mountExplorer(root: HTMLElement, client: ModelClient, ready: Promise<ToolInfo[]>, initial: ExplorerState): void {
  const state: ExplorerState = initial;
  let analysis: Analysis | null = null;
  let runCounter = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  // Inputs.
  const textArea = h('textarea', { id: 'ex-text', 'data-testid': 'ex-text', rows: 4 }, state.text);
  const sampleSelect = h('select', { id: 'ex-sample', 'data-testid': 'ex-sample' }, h('option', { value: '' }, 'type your own…'));
  const dateInput = h('input', { type: 'date', id: 'ex-date', 'data-testid': 'ex-date', value: state.date });
  const toolSet = h('fieldset', {}, h('legend', {}, 'Tools'));
  const toolBox = ({ name, description }: ToolInfo) => {
    const box = h('input', { type: 'checkbox', id: `ex-tool-${name}`, 'data-testid': `ex-tool-${name}`, checked: state.tools?.has(name) ?? true });
    box.addEventListener('change', () => {
      if (box.checked) state.tools?.add(name);
      else state.tools?.delete(name);
      rerunSoon();
    });
    return h('label', { class: 'inline', for: `ex-tool-${name}`, title: description }, box, name);
  };
  const ownTool = h('input', { type: 'text', id: 'ex-own-tool', 'data-testid': 'ex-own-tool', value: state.own?.tool ?? '', size: 10 });
  const ownInput = h('input', { type: 'text', id: 'ex-own-input', 'data-testid': 'ex-own-input', value: state.own?.input ?? '', size: 28 });
  const ownAt = h('input', { type: 'number', id: 'ex-own-at', 'data-testid': 'ex-own-at', min: 0, value: state.own?.at ?? 0 });
  const readOwn = () => {
    state.own = ownTool.value.trim() ? { tool: ownTool.value.trim(), input: ownInput.value, at: ownAt.valueAsNumber || 0 } : null;
    rerunSoon(800);
  };
  for (const el of [ownTool, ownInput, ownAt]) el.addEventListener('input', readOwn);
  const runButton = h('button', { type: 'button', 'data-testid': 'ex-run', disabled: true }, 'Score with the model');
  const status = h('p', { class: 'muted', 'data-testid': 'ex-status', role: 'status', 'aria-live': 'polite' }, 'Waiting for the model…');
  const progress = h('progress', { max: 1, value: 0, hidden: true, 'aria-label': 'Scoring progress' });

  const tauS = slider({ id: 'ex-tau-s', label: 'τ_s', min: 0, max: 0.2, step: 0.001, value: state.tauS, format: (v) => v.toFixed(3), onInput: (v) => { state.tauS = v; render(); } });
  const tauF = slider({ id: 'ex-tau-f', label: 'τ_f', min: -5, max: 5, step: 0.05, value: state.tauF, format: (v) => fmt(v), onInput: (v) => { state.tauF = v; render(); } });
  const k = slider({ id: 'ex-k', label: 'k', min: 1, max: 20, step: 1, value: state.k, onInput: (v) => { state.k = v; rerunSoon(); } });
  const controlBox = h('input', { type: 'checkbox', id: 'ex-control', 'data-testid': 'ex-control', checked: state.control });
  controlBox.addEventListener('change', () => { state.control = controlBox.checked; render(); });
  const control = h('label', { for: 'ex-control', title: 'A call kept at τ_f must also beat a wrong result of the same tool (a distractor) by its margin in L_c' },
    controlBox, ' counterfactual control (the pipeline\'s margins)');
  const m = slider({ id: 'ex-m', label: 'm', min: 0, max: 10, step: 1, value: state.m, onInput: (v) => { state.m = v; rerunSoon(); } });

  // Outputs.
  const strips = h('div', { 'data-testid': 'ex-strips' });
  const table = h('table', { 'data-testid': 'ex-candidates' });
  const rejectedSummary = h('summary', {});
  const rejectedTable = h('table', { 'data-testid': 'ex-rejected' });
  const rejected = h('details', { 'data-testid': 'ex-rejected-details' }, rejectedSummary, rejectedTable);
  const summary = h('p', { 'data-testid': 'ex-summary' });
  const inlined = h('p', { class: 'annotated', 'data-testid': 'ex-inlined' });

  textArea.addEventListener('input', () => { state.text = textArea.value; sampleSelect.value = ''; rerunSoon(800); });
  dateInput.addEventListener('change', () => { state.date = dateInput.value; rerunSoon(); });
  runButton.addEventListener('click', () => void run());

  function rerunSoon(ms = 400): void {
    clearTimeout(timer);
    if (!runButton.disabled || analysis) timer = setTimeout(() => void run(), ms);
  }

  async function run(): Promise<void> {
    clearTimeout(timer);
    const id = ++runCounter;
    const text = state.text.trim();
    if (!text) { status.textContent = 'Type some text first.'; return; }
    status.textContent = 'Scoring…';
    progress.hidden = false;
    try {
      const result = await client.request(
        'analyze',
        { params: { text, tools: [...(state.tools ?? [])], k: state.k, m: state.m, seed: 1, date: state.date || undefined, own: state.own ?? undefined } },
        (stage, done, total) => {
          if (id !== runCounter) return;
          progress.max = total || 1;
          progress.value = done;
          status.textContent = `Scoring: ${stage} (${done}/${total})`;
        },
      );
      if (id !== runCounter) return; // a newer run superseded this one
      analysis = result;
      const skipped = Object.entries(result.skipped).map(([tool, why]) => `${tool} skipped by its pre-filter (${why})`);
      status.textContent =
        `Scored ${result.candidates.length} candidate calls over ${result.tokens.length} tokens in ${(result.ms / 1000).toFixed(2)} s.` +
        (skipped.length ? ` ${skipped.join('; ')}.` : '');
      status.dataset.done = String(id);
      render();
    } catch (e) {
      if (id === runCounter) status.textContent = `Scoring failed: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      if (id === runCounter) progress.hidden = true;
    }
  }

  const callString = (a: Analysis, c: Candidate, result?: string) =>
    formatCall({ tool: c.tool, input: c.input }, { quoted: a.syntax[c.tool] === 'quoted', result });

  function render(): void {
    if (!analysis) return;
    const a = analysis;
    const decisions = rejudge(a, { tauS: state.tauS, tauF: state.tauF, controlMargins: state.control ? a.controlMargins : undefined });
    const chosen = chosenPositions(a, state.tauS);
    strips.replaceChildren(
      ...a.tools.map((t) => heatStrip({ tool: t.tool, tokens: a.tokens, offsets: a.offsets, p: t.p, chosen: chosen.get(t.tool) ?? new Set() })),
    );
    const kept = decisions.filter((d) => d.kept).length;
    summary.textContent = `${kept} of ${decisions.length} candidate calls kept at τ_s ${state.tauS.toFixed(3)}, τ_f ${fmt(state.tauF)}.`;
    // Executed calls (scored, or with a tool error) in the main table; calls rejected before execution (unclosed or
    // unparsable samples, leakage, duplicates) folded below with counts per reason.
    const executed = (d: Decision) => d.candidate.losses !== undefined || d.candidate.error !== undefined;
    const head = () => h('thead', {}, h('tr', {},
      h('th', {}, 'tool'), h('th', { class: 'num' }, 'char'), h('th', {}, 'from'), h('th', {}, 'call'), h('th', {}, 'result'),
      h('th', { class: 'num' }, 'L_a'), h('th', { class: 'num' }, 'L_b'), h('th', { class: 'num' }, 'L_c'),
      h('th', { class: 'num' }, 'usefulness'), h('th', { class: 'num', title: 'L_c with a distractor result − L_c with the true one' }, 'control'),
      h('th', {}, 'decision')));
    const rows = decisions.map((d, i) => [d, i] as const);
    table.replaceChildren(head(), h('tbody', {}, ...rows.filter(([d]) => executed(d)).map(([d, i]) => row(a, d, i))));
    const early = rows.filter(([d]) => !executed(d));
    const byKind = new Map<string, number>();
    for (const [d] of early) byKind.set(reasonKind(d.candidate.reason), (byKind.get(reasonKind(d.candidate.reason)) ?? 0) + 1);
    rejectedSummary.textContent = `${early.length} candidates rejected before execution` +
      (early.length ? ` (${[...byKind].map(([k, n]) => `${k}: ${n}`).join(', ')})` : '');
    rejectedTable.replaceChildren(head(), h('tbody', {}, ...early.map(([d, i]) => row(a, d, i))));
    inlined.replaceChildren(
      ...inlineKept(a.text, decisions, (c) => callString(a, c, c.result)).map((p) => (p.call ? h('mark', {}, p.text) : p.text)),
    );
  }

  function row(a: Analysis, d: Decision, i: number): HTMLTableRowElement {
    const c = d.candidate;
    const l = c.losses;
    return h('tr', { 'data-testid': `ex-row-${i}`, 'data-kept': String(d.kept) },
      h('td', {}, c.tool),
      h('td', { class: 'num', title: `p_i = ${c.positionP?.toExponential(2) ?? '—'}` }, c.at),
      h('td', {}, c.proposer === 'lm' ? 'LM sample' : i === a.ownIndex ? 'yours' : 'proposer'),
      // A sample that did not parse or never closed is shown as sampled.
      h('td', {}, h('code', {}, c.proposer === 'lm' && !c.input && c.raw !== undefined ? `[${c.raw}` : callString(a, c))),
      h('td', { class: c.error ? 'error' : undefined }, c.error ? `error: ${c.error}` : (c.result ?? '—')),
      h('td', { class: 'num' }, l ? fmt(l.noCall, 3) : '—'),
      h('td', { class: 'num' }, l ? fmt(l.callOnly, 3) : '—'),
      h('td', { class: 'num' }, l ? fmt(l.withResult, 3) : '—'),
      h('td', { class: 'num' }, d.usefulness !== undefined ? fmt(d.usefulness, 3) : '—'),
      h('td', { class: 'num', title: c.control ? `distractor: ${c.control.distractor}` : undefined }, c.control ? fmt(c.control.margin, 3) : '—'),
      h('td', { class: d.kept ? 'kept' : 'dropped', 'data-testid': `ex-decision-${i}` }, d.kept ? 'kept' : `dropped: ${d.reason}`),
    );
  }

  // Samples from the bundled corpus (same origin; a missing file just leaves the picker empty).
  void fetch(new URL('./corpus/sample.jsonl', location.href))
    .then((r) => (r.ok ? r.text() : ''))
    .then((body) => {
      const docs: Doc[] = body.split('\n').filter((l) => l.trim()).flatMap((l) => { try { return [JSON.parse(l) as Doc]; } catch { return []; } });
      for (const [i, d] of docs.entries()) {
        const opt = h('option', { value: String(i) }, `${d.id}: ${d.text.slice(0, 60)}…`);
        sampleSelect.append(opt);
      }
      sampleSelect.addEventListener('change', () => {
        const d = docs[Number(sampleSelect.value)];
        if (!sampleSelect.value || !d) return;
        // Explorer texts stay short: the first ~600 characters, cut at a sentence end when possible.
        const cut = d.text.slice(0, 600);
        state.text = cut.lastIndexOf('. ') > 200 ? cut.slice(0, cut.lastIndexOf('. ') + 1) : cut;
        textArea.value = state.text;
        if (d.date) { state.date = d.date; dateInput.value = d.date; }
        rerunSoon(0);
      });
    });

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
    h('fieldset', {},
      h('legend', {}, 'Your own call (scored beside the proposed ones; tool empty = none)'),
      h('div', { class: 'grid' },
        h('label', { for: 'ex-own-tool' }, 'Tool', ownTool),
        h('label', { for: 'ex-own-input' }, 'Argument', ownInput),
        h('label', { for: 'ex-own-at' }, 'Before character', ownAt))),
    h('p', {}, runButton, ' ', progress),
    status,
    strips,
    summary,
    table,
    rejected,
    h('h3', {}, 'Text with kept calls inlined'),
    inlined,
  );

  void ready.then(
    (tools) => {
      state.tools ??= new Set(tools.map((t) => t.name));
      for (const t of tools) toolSet.append(toolBox(t));
      for (const name of [...state.tools]) if (!tools.some((t) => t.name === name)) state.tools.delete(name);
      const example = state.ownFromExamples
        ? tools.flatMap((t) => t.examples.map((e) => ({ tool: t.name, ...e }))).find((e) => e.text === state.text)
        : undefined;
      if (example) {
        state.own = { tool: example.tool, input: example.input, at: example.at };
        ownTool.value = example.tool;
        ownInput.value = example.input;
        ownAt.value = String(example.at);
      }
      runButton.disabled = false;
      return run();
    },
    () => { status.textContent = 'The model did not load.'; },
  );
}
