/**
 * The explorer's render functions, one per section: each reads the state (state.ts) and rewrites its part of the
 * view (view.ts); none changes the state. The result sections re-judge the stored analysis at the current τ_s, τ_f
 * and control (rejudge.ts), so moving a slider renders without the model.
 */
import { formatCall } from '../../../../pipeline/core/call-syntax.ts';
import { hasCallOnly, reasonText, type Candidate } from '../../../../pipeline/core/candidates.ts';
import type { Doc } from '../../../../pipeline/core/document.ts';
import type { Analysis } from '../../analysis-types.ts';
import { chosenPositions, inlineKept, rejudge, type Decision } from '../../rejudge.ts';
import { funnel, funnelText, isExecuted } from '../../funnel.ts';
import { toolStyles, markerIcon } from '../colors.ts';
import { fmt, h } from '../dom.ts';
import { heatStrip } from '../heat-strip.ts';
import { WORKED_DEFAULTS } from '../worked-example.ts';
import type { ScatterPoint } from './scatter.ts';
import type { ExplorerModel, ExplorerState } from './state.ts';
import { PAGE_ROWS, toolBox, type ExplorerHandlers, type ExplorerView } from './view.ts';

/** The status line, the progress bar and which of Run / Cancel can be pressed. */
export function renderStatus(view: ExplorerView, model: ExplorerModel): void {
  const { job } = model;
  const running = job.phase === 'running';
  view.runButton.disabled = model.tools === null;
  view.cancelButton.disabled = !running;
  view.progress.hidden = !running;
  if (running) {
    view.progress.max = job.total || 1;
    view.progress.value = job.done;
  }
  if (model.lastDone !== null) view.status.dataset.done = String(model.lastDone);
  // The τ_f down to which every call's L_b that can matter is scored (the browser tests wait on it after a fill).
  if (model.analysis) view.status.dataset.tauMin = String(model.analysis.tauMin);
  view.status.textContent = statusText(model);
}

/** The status line; `decisions`: the analysis already judged at the current settings (else judged here). */
function statusText({ job, analysis, filled, settings }: ExplorerModel, decisions?: readonly Decision[]): string {
  switch (job.phase) {
    case 'waiting': return 'Waiting for the model…';
    case 'no-model': return 'The model did not load.';
    case 'idle': return job.note ?? '';
    case 'running': return job.stage ? `Scoring: ${job.stage} (${job.done}/${job.total})` : 'Scoring…';
    case 'failed': return `Scoring failed: ${job.message}`;
    case 'done': {
      if (!analysis) return '';
      const skipped = Object.entries(analysis.skipped).map(([tool, why]) => `${tool} skipped by its pre-filter (${why})`);
      const f = funnel(decisions ?? judged(analysis, settings));
      return `${funnelText(f)} · ${analysis.tokens.length} tokens, ${(analysis.ms / 1000).toFixed(2)} s.` +
        (filled ? ` L_b of ${filled} more scored for τ_f down to ${fmt(analysis.tauMin)}.` : '') +
        (skipped.length ? ` ${skipped.join('; ')}.` : '');
    }
  }
}

/** The stored analysis decided at the current τ_s, τ_f and control (rejudge.ts: no model). */
function judged(a: Analysis, { tauS, tauF, control }: ExplorerState): Decision[] {
  return rejudge(a, { tauS, tauF, controlMargins: control ? a.controlMargins : undefined });
}

/** The tool checkboxes and the own call's tool list, in the registry's order (once the tools are known). */
export function renderTools(view: ExplorerView, model: ExplorerModel, on: Pick<ExplorerHandlers, 'tool'>): void {
  view.toolSet.replaceChildren(view.toolSet.querySelector('legend')!,
    ...(model.tools ?? []).map((t) => toolBox(t, model.settings.tools?.has(t.name) ?? true, on)));
  view.ownTool.replaceChildren(h('option', { value: '' }, 'none'), ...(model.tools ?? []).map((t) => h('option', { value: t.name }, t.name)));
}

/** The own-call inputs, from the settings (after the registry's worked example became the own call). */
export function renderOwnCall(view: ExplorerView, settings: ExplorerState): void {
  if (!settings.own) return;
  view.ownTool.value = settings.own.tool;
  view.ownInput.value = settings.own.input;
  view.ownAt.value = String(settings.own.at);
}

/** The text and date inputs, after a corpus sample replaced them. */
export function renderTextInputs(view: ExplorerView, settings: ExplorerState): void {
  view.textArea.value = settings.text;
  view.dateInput.value = settings.date;
}

/** The corpus sample picker: "type your own…" and one option per sample. */
export function renderSamples(view: ExplorerView, docs: readonly Doc[]): void {
  view.sampleSelect.append(...docs.map((d, i) => h('option', { value: String(i) }, `${d.id}: ${d.text.slice(0, 60)}…`)));
}

/** Every result section, from the stored analysis re-judged at the current settings (nothing before a first run). */
export function renderResults(view: ExplorerView, model: ExplorerModel, on: Pick<ExplorerHandlers, 'page'>): void {
  const a = model.analysis;
  if (!a) return;
  view.results.hidden = false;
  const decisions = judged(a, model.settings);
  view.status.textContent = statusText(model, decisions);
  renderStrips(view, a, model.settings.tauS);
  view.scatterHolder.hidden = false;
  renderScatter(view, model, decisions);
  renderCandidates(view, a, decisions, model.tablePage, on);
  renderInlined(view, a, decisions);
}

/** The τ_s slider spans the run's observed p_i (log scale): from the smallest positive one to the largest. */
export function renderTauSRange(view: ExplorerView, a: Analysis): void {
  const ps = a.tools.flatMap((t) => t.p).filter((p) => p > 0);
  if (!ps.length) return;
  view.tauS.setRange(Math.floor(Math.log10(Math.min(...ps))), Math.log10(Math.max(...ps)));
}

/** The scatter of every executed call that was scored, the ones without L_b at their bound, with the τ_f line (scatter.ts). */
export function renderScatter(view: ExplorerView, model: ExplorerModel, decisions: readonly Decision[]): void {
  const a = model.analysis!;
  const points: ScatterPoint[] = decisions.flatMap((d, index) => {
    const c = d.candidate;
    if (!c.losses) return [];
    return [{ index, tool: c.tool, losses: c.losses, bound: !hasCallOnly(c.losses), kept: d.kept, decision: decisionText(d), call: callString(a, c, c.result), window: scoredWindow(a, c.at) }];
  });
  view.scatter.update({ points, tauF: model.settings.tauF, tauMin: a.tauMin, worked: WORKED_DEFAULTS });
}

/** The text around character `at`: 60 characters before, the 5 tokens from `at` (the losses' window), 40 after. */
function scoredWindow(a: Analysis, at: number): ScatterPoint['window'] {
  const first = a.offsets.findIndex((o) => o >= at);
  const start = first < 0 ? a.text.length : a.offsets[first];
  const end = first < 0 ? a.text.length : a.offsets[Math.min(first + 5, a.offsets.length - 1)];
  return { before: a.text.slice(Math.max(0, at - 60), at), scored: a.text.slice(start, end), after: a.text.slice(end, end + 40) };
}

const decisionText = (d: Decision) =>
  d.kept ? 'kept' : d.outcome.kind === 'needs_call_only' ? 'undecided: L_b not scored yet' : `dropped: ${reasonText(d.outcome)}`;

/** p_i(" [") per tool, with the positions chosen at τ_s outlined. */
export function renderStrips(view: ExplorerView, a: Analysis, tauS: number): void {
  const chosen = chosenPositions(a, tauS);
  view.strips.replaceChildren(
    ...toolStyles.sort(a.tools.map((t) => t.tool)).map((tool) => a.tools.find((t) => t.tool === tool)!).map((t) =>
      heatStrip({ tool: t.tool, tokens: a.tokens, offsets: a.offsets, p: t.p, chosen: chosen.get(t.tool) ?? new Set(), style: toolStyles.of(t.tool) })),
  );
}

/** Kept first, then by usefulness (highest first); calls never scored (tool errors) last. */
function tableOrder(a: readonly [Decision, number], b: readonly [Decision, number]): number {
  return Number(b[0].kept) - Number(a[0].kept) || (b[0].usefulness ?? -Infinity) - (a[0].usefulness ?? -Infinity) || a[1] - b[1];
}

/**
 * Executed calls (scored, or with a tool error) in the main table, folded by default, kept first, `PAGE_ROWS` a
 * page (every row stays in the document; other pages' are hidden); calls rejected before execution (unclosed or
 * unparsable samples, leakage, duplicates) folded below with counts per reason.
 */
export function renderCandidates(view: ExplorerView, a: Analysis, decisions: readonly Decision[], page: number, on: Pick<ExplorerHandlers, 'page'>): void {
  const rows = decisions.map((d, i) => [d, i] as const);
  const writings = otherWritings(a);
  const shown = rows.filter(([d]) => isExecuted(d)).sort(tableOrder);
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_ROWS));
  const current = Math.min(page, pages - 1);
  view.table.replaceChildren(tableHead(), h('tbody', {}, ...shown.map(([d, i], n) => {
    const row = candidateRow(a, d, i, writings);
    row.hidden = Math.floor(n / PAGE_ROWS) !== current;
    return row;
  })));
  const f = funnel(decisions);
  view.tableSummary.textContent = `The ${f.executed} executed calls, ${f.kept} kept (listed first): results, losses, verdicts`;
  const from = current * PAGE_ROWS;
  const button = (label: string, to: number, testid: string) => {
    const b = h('button', { type: 'button', class: 'small', 'data-testid': testid, disabled: to < 0 || to >= pages }, label);
    b.addEventListener('click', () => on.page(to));
    return b;
  };
  view.pager.replaceChildren(button('← previous', current - 1, 'ex-page-prev'),
    h('span', { 'data-testid': 'ex-page' }, shown.length ? `rows ${from + 1}–${Math.min(shown.length, from + PAGE_ROWS)} of ${shown.length}` : 'no rows'),
    button('next →', current + 1, 'ex-page-next'));
  const early = rows.filter(([d]) => !isExecuted(d));
  view.rejectedDetails.hidden = early.length === 0;
  const byKind = new Map<string, number>();
  for (const [d] of early) byKind.set(d.candidate.outcome.kind, (byKind.get(d.candidate.outcome.kind) ?? 0) + 1);
  view.rejectedSummary.textContent = `The ${f.proposed - f.executed} proposed calls not executed` +
    (early.length ? ` (${[...byKind].map(([k, n]) => `${k}: ${n}`).join(', ')})` : '');
  view.rejectedTable.replaceChildren(tableHead(), h('tbody', {}, ...early.map(([d, i]) => candidateRow(a, d, i, writings))));
}

/** The text with the kept calls inlined, each marked. */
export function renderInlined(view: ExplorerView, a: Analysis, decisions: readonly Decision[]): void {
  view.inlined.replaceChildren(
    ...inlineKept(a.text, decisions, (c) => callString(a, c, c.result)).map((p) => (p.call ? h('mark', {}, p.text) : p.text)),
  );
}

const callString = (a: Analysis, c: Candidate, result?: string) =>
  formatCall({ tool: c.tool, input: c.input }, { quoted: a.syntax[c.tool] === 'quoted', result });

function tableHead(): HTMLTableSectionElement {
  return h('thead', {}, h('tr', {},
    h('th', {}, 'tool'), h('th', { class: 'num' }, 'char'), h('th', {}, 'from'), h('th', {}, 'call'), h('th', {}, 'result'),
    h('th', { class: 'num' }, 'L_a'), h('th', { class: 'num' }, 'L_b'), h('th', { class: 'num' }, 'L_c'),
    h('th', { class: 'num' }, 'usefulness'), h('th', { class: 'num', title: 'L_c with a distractor result − L_c with the true one' }, 'control'),
    h('th', {}, 'decision')));
}

/**
 * Candidates that repeat an earlier one's call with another writing of its result (a tool's `resultForms`, e.g.
 * "Paris" and "PARIS" when the text before the call cannot tell which the text uses): index → the first writing.
 * Both are scored; the filter keeps the writing that helps.
 */
function otherWritings(a: Analysis): Map<number, string> {
  const first = new Map<string, string>();
  const out = new Map<number, string>();
  a.candidates.forEach((c, i) => {
    if (c.result === undefined) return;
    const key = `${c.tool}\u0000${c.input}\u0000${c.at}\u0000${c.proposer}`;
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, c.result);
    else if (earlier !== c.result) out.set(i, earlier);
  });
  return out;
}

function candidateRow(a: Analysis, d: Decision, i: number, writings: ReadonlyMap<number, string>): HTMLTableRowElement {
  const c = d.candidate;
  const writing = writings.get(i);
  const l = c.losses;
  return h('tr', { 'data-testid': `ex-row-${i}`, 'data-kept': String(d.kept) },
    h('td', { class: 'tool', 'data-color': toolStyles.of(c.tool).color }, markerIcon(toolStyles.of(c.tool), { size: 11 }), ' ', c.tool),
    h('td', { class: 'num', title: `p_i = ${c.positionP?.toExponential(2) ?? '—'}` }, c.at),
    h('td', {}, c.proposer === 'lm' ? 'LM sample' : i === a.ownIndex ? 'yours' : 'proposer'),
    // A sample that did not parse or never closed is shown as sampled.
    h('td', {}, h('code', {}, c.proposer === 'lm' && !c.input && c.raw !== undefined ? `[${c.raw}` : callString(a, c))),
    h('td', { class: c.error ? 'error' : undefined }, c.error ? `error: ${c.error}` : (c.result ?? '—'),
      writing !== undefined && h('span', { class: 'note', title: 'The tool offers more than one writing of this answer when the text before the call cannot tell which one the text uses; each is scored, and the filter keeps the writing that helps.' },
        ` (another writing of ${writing})`)),
    h('td', { class: 'num' }, l ? fmt(l.noCall, 3) : '—'),
    h('td', { class: 'num', title: l && l.callOnly === undefined ? `not scored: L_a − L_c < τ_min ${fmt(a.tauMin)} (two-pass scoring); a τ_f below it scores it` : undefined, 'data-bound': l && l.callOnly === undefined ? 'true' : undefined }, l?.callOnly !== undefined ? fmt(l.callOnly, 3) : '—'),
    h('td', { class: 'num' }, l ? fmt(l.withResult, 3) : '—'),
    h('td', { class: 'num' }, d.usefulness !== undefined ? fmt(d.usefulness, 3) : d.usefulnessAtMost !== undefined ? `≤ ${fmt(d.usefulnessAtMost, 3)}` : '—'),
    h('td', { class: 'num', title: c.control ? `distractor: ${c.control.distractor}` : undefined }, c.control ? fmt(c.control.margin, 3) : '—'),
    h('td', { class: d.kept ? 'kept' : 'dropped', 'data-testid': `ex-decision-${i}` }, decisionText(d)),
  );
}
