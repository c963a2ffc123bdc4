/**
 * Run viewer: open a pipeline run's `calls.jsonl` (file picker or drag-and-drop); per-tool counts at τ_f and the
 * survival curve (kept calls vs τ_f). The τ_f slider re-counts from the stored losses, live.
 */
import { countByTool, parseCallsJsonl, survivalCurves, thresholds, type ParsedRun } from '../run-stats.ts';
import { h, fmt, slider } from './dom.ts';
import { drawLineChart } from './line-chart.ts';

/** The viewer's τ_f range, nats: where the paper's thresholds (0.5, 1, 2) sit, with room either side. */
const TAU_MIN = -0.5;
const TAU_MAX = 3;
const TAUS = thresholds(TAU_MIN, TAU_MAX, 0.05);

export function mountRunViewer(root: HTMLElement): void {
  let run: ParsedRun | null = null;
  let tauF = 1.0;
  let name = '';

  const status = h('p', { class: 'muted', 'data-testid': 'rv-status' }, 'No run loaded.');
  const table = h('table', { 'data-testid': 'rv-counts' });
  const canvas = h('canvas', {
    'data-testid': 'rv-chart',
    role: 'img',
    'aria-label': 'Survival curve: kept calls versus τ_f, per tool',
    hidden: true,
  });
  const fileInput = h('input', { type: 'file', id: 'rv-file', accept: '.jsonl,.json,.txt', 'data-testid': 'rv-file' });
  const zone = h('div', { class: 'drop-zone', 'data-testid': 'rv-drop' }, 'or drop a calls.jsonl here');

  const render = () => {
    if (!run) return;
    canvas.hidden = false;
    status.textContent =
      `${name}: ${run.calls.length.toLocaleString('en')} candidate calls` +
      (run.badLines.length ? `, ${run.badLines.length} malformed lines skipped` : '');
    table.replaceChildren(
      h('thead', {}, h('tr', {},
        h('th', {}, 'tool'), h('th', { class: 'num' }, 'candidates'), h('th', { class: 'num' }, 'scored'),
        h('th', { class: 'num' }, `≥ τ_f ${fmt(tauF)}`), h('th', { class: 'num' }, 'share'))),
      h('tbody', {}, ...countByTool(run.calls, tauF).map((r) => h('tr', {},
        h('td', {}, r.tool), h('td', { class: 'num' }, r.candidates), h('td', { class: 'num' }, r.scored),
        h('td', { class: 'num', 'data-testid': `rv-kept-${r.tool}`, title: r.undecided ? `and up to ${r.undecided} more whose L_b the run did not score (τ_f below its --tau-f-floor)` : undefined }, r.undecided ? `${r.kept} (+≤${r.undecided})` : r.kept),
        h('td', { class: 'num' }, r.scored ? `${((100 * r.kept) / r.scored).toFixed(1)}%` : '—')))),
    );
    const curves = survivalCurves(run.calls, TAUS);
    drawLineChart(
      canvas,
      curves.map((c) => ({ label: c.tool, points: c.points.map((p) => ({ x: p.tauF, y: p.kept })) })),
      { xLabel: 'τ_f (nats)', yLabel: 'calls ≥ τ_f (log scale)', marker: tauF, total: 'all' },
    );
  };

  const load = async (file: File) => {
    name = file.name;
    run = parseCallsJsonl(await file.text());
    render();
  };

  fileInput.addEventListener('change', () => {
    const f = fileInput.files?.[0];
    if (f) void load(f);
  });
  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    const f = e.dataTransfer?.files[0];
    if (f) void load(f);
  });

  const tau = slider({
    id: 'rv-tau-f', label: 'τ_f', min: TAU_MIN, max: TAU_MAX, step: 0.05, value: tauF, format: (v) => fmt(v),
    onInput: (v) => { tauF = v; render(); },
  });

  root.append(
    h('h2', { id: 'rv-title' }, 'Run viewer'),
    h('p', { class: 'muted' }, 'Open the calls.jsonl of a pipeline run (out/<run>/calls.jsonl) to see what the filter keeps: per tool, the calls that reach τ_f (before the counterfactual control), and how that count falls as τ_f rises.'),
    h('div', { class: 'grid' }, h('label', { for: 'rv-file' }, 'calls.jsonl', fileInput), tau.root),
    zone,
    status,
    table,
    canvas,
  );
}
