/**
 * Run viewer: open a pipeline run's `calls.jsonl` (file picker, drag-and-drop, or "Open the last run": the newest
 * out/<run>/calls.jsonl, which the dev and preview servers list at /out/.runs.json — repo-files-plugin.ts); per-tool
 * counts at τ_f and the survival curve (kept calls vs τ_f), each tool in its colour and marker (colors.ts). The τ_f
 * slider re-counts from the stored losses, live. A train.jsonl opened by mistake is named as such.
 */
import { countByTool, parseCallsJsonl, survivalCurves, thresholds, type ParsedRun } from '../run-stats.ts';
import { markerIcon, toolStyles } from './colors.ts';
import { h, fmt, slider } from './dom.ts';
import { drawLineChart } from './line-chart.ts';

/** What the servers list (repo-files-plugin.ts): the runs under out/ with a calls.jsonl, newest first. */
const RUNS_LIST = './out/.runs.json';

/** The viewer's τ_f range, nats: where the paper's thresholds (0.5, 1, 2) sit, with room either side. */
const TAU_MIN = -0.5;
const TAU_MAX = 3;
const TAUS = thresholds(TAU_MIN, TAU_MAX, 0.05);

/** What the run viewer says of a file with no calls but a run's training texts: which file to open instead. */
const trainingFileMessage = (name: string, run: ParsedRun) =>
  `${name} is a run's training file (train.jsonl: ${run.trainingLines.toLocaleString('en')} texts with their kept calls inlined), not its candidate calls: open calls.jsonl from the same run folder (out/<run>/calls.jsonl).`;

/** `rows` in the registry's order of their tools (colors.ts), the total `all` last. */
function inRegistryOrder<T extends { tool: string }>(rows: readonly T[], tools: readonly string[]): T[] {
  const order = toolStyles.sort(tools);
  return [...rows].sort((a, b) => (a.tool === 'all' ? 1 : b.tool === 'all' ? -1 : order.indexOf(a.tool) - order.indexOf(b.tool)));
}

/** The per-tool counts at τ_f: the chart's legend too (each tool's marker and colour, its count at the slider). */
function countRows(run: ParsedRun, tauF: number): HTMLTableSectionElement[] {
  const toolCell = (tool: string) => tool === 'all'
    ? h('td', {}, 'all')
    : h('td', { class: 'tool', 'data-testid': `rv-tool-${tool}`, 'data-color': toolStyles.of(tool).color, 'data-shape': toolStyles.of(tool).shape }, markerIcon(toolStyles.of(tool), { size: 11 }), ' ', tool);
  return [
    h('thead', {}, h('tr', {},
      h('th', {}, 'tool'), h('th', { class: 'num' }, 'candidates'), h('th', { class: 'num' }, 'scored'),
      h('th', { class: 'num' }, `≥ τ_f ${fmt(tauF)}`), h('th', { class: 'num' }, 'share'))),
    h('tbody', {}, ...inRegistryOrder(countByTool(run.calls, tauF), run.calls.map((c) => c.tool)).map((r) => h('tr', {},
      toolCell(r.tool), h('td', { class: 'num' }, r.candidates), h('td', { class: 'num' }, r.scored),
      h('td', { class: 'num', 'data-testid': `rv-kept-${r.tool}`, title: r.undecided ? `and up to ${r.undecided} more whose L_b the run did not score (τ_f below its --tau-f-floor)` : undefined }, r.undecided ? `${r.kept} (+≤${r.undecided})` : r.kept),
      h('td', { class: 'num' }, r.scored ? `${((100 * r.kept) / r.scored).toFixed(1)}%` : '—')))),
  ];
}

/** The newest out/<run>/calls.jsonl the server lists, or what to say instead (and whether it is an error). */
async function fetchLastRun(): Promise<{ name: string; text: string } | { message: string; error: boolean }> {
  const listed = await fetch(RUNS_LIST).then((r) => (r.ok ? (r.json() as Promise<{ runs: { path: string }[] }>) : null), () => null);
  const newest = listed?.runs[0];
  if (!newest) {
    return {
      message: listed
        ? 'No run under out/ has a calls.jsonl yet: `npm start` makes one (out/start/).'
        : 'This server lists no runs (the dev server, npm run web, serves out/): open a calls.jsonl with the picker.',
      error: false,
    };
  }
  const text = await fetch(`./out/${newest.path}`).then((r) => (r.ok ? r.text() : null), () => null);
  return text === null ? { message: `out/${newest.path} could not be read from the server.`, error: true } : { name: `out/${newest.path}`, text };
}

/** The file picker and the drop zone, each handing `open` the calls.jsonl chosen. */
function fileOpeners(open: (file: File) => void): [HTMLInputElement, HTMLDivElement] {
  const fileInput = h('input', { type: 'file', id: 'rv-file', accept: '.jsonl,.json,.txt', 'data-testid': 'rv-file' });
  const zone = h('div', { class: 'drop-zone', 'data-testid': 'rv-drop' }, 'or drop a calls.jsonl here');
  fileInput.addEventListener('change', () => {
    const f = fileInput.files?.[0];
    if (f) open(f);
  });
  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    const f = e.dataTransfer?.files[0];
    if (f) open(f);
  });
  return [fileInput, zone];
}

export function mountRunViewer(root: HTMLElement): void {
  let run: ParsedRun | null = null;
  let tauF = 1.0;
  let name = '';

  const status = h('p', { class: 'muted', 'data-testid': 'rv-status', role: 'status' }, 'No run loaded.');
  const table = h('table', { 'data-testid': 'rv-counts' });
  const canvas = h('canvas', {
    'data-testid': 'rv-chart',
    role: 'img',
    'aria-label': 'Survival curve: kept calls versus τ_f, per tool',
    hidden: true,
  });

  const render = () => {
    if (!run) return;
    if (run.calls.length === 0 && run.trainingLines > 0) {
      canvas.hidden = true;
      table.replaceChildren();
      status.textContent = trainingFileMessage(name, run);
      status.classList.add('error');
      return;
    }
    status.classList.remove('error');
    canvas.hidden = false;
    status.textContent =
      `${name}: ${run.calls.length.toLocaleString('en')} candidate calls` +
      (run.badLines.length ? `, ${run.badLines.length} malformed lines skipped` : '');
    table.replaceChildren(...countRows(run, tauF));
    const curves = inRegistryOrder(survivalCurves(run.calls, TAUS), run.calls.map((c) => c.tool));
    // The table is the legend (each tool's marker and its count at τ_f): the chart draws none, so it fits a phone.
    drawLineChart(
      canvas,
      curves.map((c) => ({ label: c.tool, points: c.points.map((p) => ({ x: p.tauF, y: p.kept })), style: c.tool === 'all' ? undefined : toolStyles.of(c.tool) })),
      { xLabel: 'τ_f (nats)', yLabel: 'calls ≥ τ_f (log scale)', marker: tauF, total: 'all', legend: false },
    );
  };
  // Tools take the registry's colours once the worker reports them.
  toolStyles.onChange(render);

  const load = async (file: File) => {
    name = file.name;
    run = parseCallsJsonl(await file.text());
    render();
  };

  const lastRun = h('button', { type: 'button', 'data-testid': 'rv-last', title: 'The newest out/<run>/calls.jsonl, as the dev server (npm run web) lists them' }, 'Open the last run');
  lastRun.addEventListener('click', () => {
    status.classList.remove('error');
    status.textContent = 'looking for runs under out/…';
    void fetchLastRun().then((found) => {
      if ('message' in found) {
        status.textContent = found.message;
        status.classList.toggle('error', found.error);
        return;
      }
      name = found.name;
      run = parseCallsJsonl(found.text);
      render();
    });
  });

  const [fileInput, zone] = fileOpeners((file) => void load(file));

  const tau = slider({
    id: 'rv-tau-f', label: 'τ_f', min: TAU_MIN, max: TAU_MAX, step: 0.05, value: tauF, format: (v) => fmt(v), unit: 'nats',
    onInput: (v) => { tauF = v; render(); },
  });

  root.append(
    h('h2', { id: 'rv-title' }, 'Run viewer'),
    h('p', { class: 'muted' }, 'Open the calls.jsonl of a pipeline run (out/<run>/calls.jsonl) to see what the filter keeps: per tool, the calls that reach τ_f (before the counterfactual control), and how that count falls as τ_f rises.'),
    h('div', { class: 'actions' }, lastRun),
    h('div', { class: 'grid' }, h('label', { for: 'rv-file' }, 'calls.jsonl', fileInput), tau.root),
    zone,
    status,
    h('div', { class: 'table-scroll' }, table),
    canvas,
  );
}
