/**
 * The loss filter as a picture: every executed call as a point, L_c (the loss with the call and its result) on x
 * against min(L_a, L_b) (the better of no call and the call with an empty result) on y, in nats. A call is kept when
 * min(L_a, L_b) − L_c ≥ τ_f: above the line y = x + τ_f, the shaded band. The line moves with the τ_f slider and the
 * points recolour (filled: kept; hollow: dropped) from the stored losses, without the model. A call whose L_b
 * two-pass scoring skipped (L_a − L_c < τ_min: no τ_f ≥ τ_min can keep it) is drawn at its known bound, y = L_a
 * (its min(L_a, L_b) is at most that), with a dashed outline and a tick pointing down; a τ_f below τ_min scores its
 * L_b (mount.ts) and it moves to its place. Each tool has its colour and marker shape (colors.ts: the registry's
 * order). The worked example (L_a 2.5, L_b 2.1, L_c 0.8 → usefulness 1.3) is a black diamond. Hovering or focusing a
 * point shows its call and the window of 5 tokens its losses are measured on — and every other call drawn within a
 * few pixels of it, so stacked points are told apart.
 *
 * Plain SVG, written here rather than a charting library: one chart type, both axes on one scale so the τ_f line
 * is a true diagonal, drawn at the width it is shown at (text stays 11–13 px on a phone), redrawn whole on each
 * change (at most a few hundred points).
 */
import type { StoredLosses } from '../../../../pipeline/core/candidates.ts';
import type { Losses } from '../../../../pipeline/core/scoring/losses.ts';
import { markerIcon, markerPath, toolStyles } from '../colors.ts';
import { fmt, h } from '../dom.ts';

export interface ScatterPoint {
  /** Index of the candidate in the analysis (the table row `ex-row-<index>`). */
  index: number;
  tool: string;
  /** L_a and L_c always; L_b unless two-pass scoring skipped it (`bound`). */
  losses: StoredLosses;
  /** No L_b: the point sits at y = L_a, an upper bound of min(L_a, L_b). */
  bound: boolean;
  kept: boolean;
  /** The decision as the table shows it: "kept" or "dropped: <reason>". */
  decision: string;
  /** The call as written, e.g. [Calculator(600 / 2400) -> 0.25]. */
  call: string;
  /** The text around the call: before it, the 5 tokens the losses weigh, after them. */
  window: { before: string; scored: string; after: string };
}

export interface ScatterInput {
  points: readonly ScatterPoint[];
  tauF: number;
  /** The τ_f down to which L_b is scored (two-pass scoring): bound points are dropped at any τ_f ≥ it. */
  tauMin: number;
  worked: Losses;
}

const NS = 'http://www.w3.org/2000/svg';
function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...children: (Node | string)[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

/** Plot geometry, CSS pixels: a square plot (so y = x + τ_f runs at 45°) as wide as its box allows, within limits. */
const PAD = { l: 50, r: 12, t: 12, b: 44 };
const MAX_WIDTH = 500;
const MIN_WIDTH = 240;
/** Points closer than this (px) are one stack: hovering one lists them all. */
const STACK_PX = 7;

/** y of a point: min(L_a, L_b), or L_a when L_b was not scored (the bound). */
const yOf = (l: StoredLosses) => (l.callOnly === undefined ? l.noCall : Math.min(l.noCall, l.callOnly));

/** Round numbers for axis ticks spanning [lo, hi]: steps of 1, 2 or 5 × 10^n, about `count` of them. */
export function ticks(lo: number, hi: number, count = 6): number[] {
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((x) => x >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) out.push(+t.toFixed(6));
  return out;
}

export interface Scatter {
  root: HTMLElement;
  update(input: ScatterInput): void;
}

export function createScatter(): Scatter {
  const figure = h('figure', { class: 'scatter', 'data-testid': 'ex-scatter' });
  const legend = h('div', { class: 'legend', 'data-testid': 'ex-scatter-legend' });
  const detail = h('div', { class: 'scatter-detail', 'data-testid': 'ex-scatter-detail', 'aria-live': 'polite' });
  const caption = h('figcaption', {});
  const plotHolder = h('div', { class: 'scatter-plot' });
  figure.append(plotHolder, legend, detail, caption);
  let last: ScatterInput | null = null;
  /** The points under the pointer or focus (their indices), so a redraw keeps the details current. */
  let hovered: (number | 'worked')[] = [];
  let drawnWidth = 0;
  /** Screen position of every drawn point (for stacks). */
  let placed = new Map<number, { x: number; y: number }>();
  const roving = rovingFocus();

  const showDetail = () => {
    if (!last || hovered.length === 0) {
      detail.replaceChildren(h('span', { class: 'muted' }, 'Hover over or focus a point: its call, and the 5 tokens its losses are measured on.'));
      return;
    }
    const parts: HTMLElement[] = [];
    if (hovered.length > 1) parts.push(h('p', { class: 'stack-note', 'data-testid': 'ex-detail-stack' }, `${hovered.length} calls drawn at this spot:`));
    for (const key of hovered) {
      if (key === 'worked') {
        parts.push(workedDetail(last.worked, last.tauF));
        continue;
      }
      const p = last.points.find((x) => x.index === key);
      if (p) parts.push(pointDetail(p));
    }
    detail.replaceChildren(...parts);
  };

  /** The point `key` and every other one drawn within STACK_PX of it. */
  const stackAt = (key: number): number[] => {
    const at = placed.get(key);
    if (!at) return [key];
    return [key, ...[...placed].filter(([k, q]) => k !== key && Math.hypot(q.x - at.x, q.y - at.y) <= STACK_PX).map(([k]) => k)];
  };
  const hoverable = (el: SVGElement, key: number | 'worked', x: number) => {
    const on = () => { hovered = key === 'worked' ? ['worked'] : stackAt(key); showDetail(); };
    roving.add(el, key, x, on);
    el.addEventListener('mouseenter', on);
  };

  function draw(input: ScatterInput): void {
    drawnWidth = Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, plotHolder.clientWidth || MAX_WIDTH));
    roving.reset();
    const plot = plotSvg(input, drawnWidth, hoverable);
    placed = plot.placed;
    roving.attach(plot.svg);
    plotHolder.replaceChildren(plot.svg);
  }

  function update(input: ScatterInput): void {
    last = input;
    draw(input);
    caption.textContent = 'Filled = kept, hollow = dropped (a call above the line can still fail the counterfactual control). ' +
      'Move τ_f: the line moves and the points recolour, with no model run.';
    legend.replaceChildren(...legendItems(input));
    showDetail();
  }

  // Drawn at the width it is shown at: redraw when the box changes width (a phone turned, a window resized).
  new ResizeObserver(() => {
    const width = Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, plotHolder.clientWidth || MAX_WIDTH));
    if (last && Math.abs(width - drawnWidth) > 4) draw(last);
  }).observe(plotHolder);

  return { root: figure, update };
}

/** A hovered point's details: its tool and call, the window its losses weigh, the losses and the decision. */
function pointDetail(p: ScatterPoint): HTMLElement {
  const l = p.losses;
  const style = toolStyles.of(p.tool);
  return h('div', { class: 'point-detail', 'data-testid': `ex-detail-${p.index}` },
    markerIcon(style, { hollow: !p.kept, dashed: p.bound }), ' ',
    h('strong', { style: `color: ${style.color}` }, p.tool), ' ', h('code', {}, p.call), h('br', {}),
    h('span', { class: 'window' }, `…${p.window.before.trimEnd()} `, h('mark', { class: 'call' }, p.call), h('u', { title: 'the 5 tokens L_a, L_b, L_c weigh' }, p.window.scored), `${p.window.after}…`), h('br', {}),
    p.bound
      ? `L_a ${fmt(l.noCall)}, L_b not scored, L_c ${fmt(l.withResult)}: usefulness ≤ ${fmt(l.noCall - l.withResult)} · `
      : `L_a ${fmt(l.noCall)}, L_b ${fmt(l.callOnly!)}, L_c ${fmt(l.withResult)}: usefulness ${fmt(yOf(l) - l.withResult)} · `,
    h('span', { class: p.kept ? 'kept' : 'dropped' }, p.decision));
}

/** The worked example's details: its usefulness and its verdict at `tauF`. */
function workedDetail(worked: Losses, tauF: number): HTMLElement {
  const u = yOf(worked) - worked.withResult;
  return h('div', { class: 'point-detail' }, h('strong', {}, 'The worked example'), ` (panel below): min(${fmt(worked.noCall)}, ${fmt(worked.callOnly!)}) − ${fmt(worked.withResult)} = ${fmt(u)}; ${u >= tauF ? 'kept' : 'dropped'} at τ_f ${fmt(tauF)}.`);
}

/** The arrow keys, Home and End: the index they move to among `n` points, left to right. */
const MOVES: Record<string, (i: number, n: number) => number> = {
  ArrowRight: (i, n) => Math.min(n - 1, i + 1), ArrowDown: (i, n) => Math.min(n - 1, i + 1),
  ArrowLeft: (i) => Math.max(0, i - 1), ArrowUp: (i) => Math.max(0, i - 1), Home: () => 0, End: (_, n) => n - 1,
};

/**
 * Keyboard: the points are one tab stop (a roving tabindex, as a toolbar has): Tab reaches the last focused point
 * (first: the leftmost), the arrow keys, Home and End move along the points from left to right.
 */
function rovingFocus() {
  let focusables: { key: number | 'worked'; x: number; el: SVGElement }[] = [];
  let active: number | 'worked' | null = null;
  return {
    /** Before a draw: no points yet. */
    reset: () => { focusables = []; },
    /** A drawn point at x; `onFocus` runs when it takes the focus. */
    add: (el: SVGElement, key: number | 'worked', x: number, onFocus: () => void) => {
      el.setAttribute('tabindex', '-1');
      focusables.push({ key, x, el });
      el.addEventListener('focus', () => { active = key; onFocus(); });
    },
    /** After a draw: left to right, one of them in the tab order. */
    attach: (svg: SVGSVGElement) => {
      focusables.sort((a, b) => a.x - b.x);
      (focusables.find((f) => f.key === active) ?? focusables[0])?.el.setAttribute('tabindex', '0');
      svg.addEventListener('keydown', (e) => {
        const move = MOVES[e.key];
        const i = focusables.findIndex((f) => f.el === e.target);
        if (!move || i < 0) return;
        e.preventDefault();
        const next = focusables[move(i, focusables.length)];
        focusables[i].el.setAttribute('tabindex', '-1');
        next.el.setAttribute('tabindex', '0');
        next.el.focus();
      });
    },
  };
}

/**
 * The plot at `width`: axes and grid, the kept band and its line, every point and the worked example, each passed to
 * `hoverable` as it is drawn. Returns the SVG and where each point was drawn.
 */
function plotSvg(input: ScatterInput, width: number, hoverable: (el: SVGElement, key: number | 'worked', x: number) => void) {
  const { points, tauF, worked } = input;
  const size = width - PAD.l - PAD.r;
  const height = PAD.t + size + PAD.b;
  const values = [...points.flatMap((p) => [p.losses.withResult, yOf(p.losses)]), worked.withResult, yOf(worked)];
  const lo = Math.floor(Math.min(...values)) - 0.5;
  const hi = Math.ceil(Math.max(...values)) + 0.5;
  const sx = (x: number) => PAD.l + ((x - lo) / (hi - lo)) * size;
  const sy = (y: number) => PAD.t + size - ((y - lo) / (hi - lo)) * size;
  const kept = points.filter((p) => p.kept).length;
  const bound = points.filter((p) => p.bound).length;

  const svg = s('svg', {
    viewBox: `0 0 ${width} ${height}`, width, height, role: 'group',
    'aria-label': `Scatter of ${points.length} executed calls (${bound} of them at their bound): L_c against min(L_a, L_b); ${kept} above the line τ_f = ${fmt(tauF)}`,
  });
  svg.append(s('defs', {}, s('clipPath', { id: 'ex-scatter-clip' }, s('rect', { x: PAD.l, y: PAD.t, width: size, height: size }))));
  const grid = s('g', { class: 'grid-lines' });
  for (const t of ticks(lo, hi, size < 320 ? 4 : 6)) {
    grid.append(
      s('line', { x1: sx(t), x2: sx(t), y1: PAD.t, y2: PAD.t + size }),
      s('line', { x1: PAD.l, x2: PAD.l + size, y1: sy(t), y2: sy(t) }),
      s('text', { x: sx(t), y: PAD.t + size + 15, 'text-anchor': 'middle' }, String(t)),
      s('text', { x: PAD.l - 6, y: sy(t) + 4, 'text-anchor': 'end' }, String(t)),
    );
  }
  svg.append(grid,
    s('rect', { x: PAD.l, y: PAD.t, width: size, height: size, class: 'frame' }),
    s('text', { x: PAD.l + size / 2, y: height - 8, 'text-anchor': 'middle', class: 'axis-label' }, 'L_c: with the call and its result (nats)'),
    s('text', { x: 13, y: PAD.t + size / 2, 'text-anchor': 'middle', class: 'axis-label', transform: `rotate(-90 13 ${PAD.t + size / 2})` }, 'min(L_a, L_b): without the result (nats)'));

  // The kept band (y ≥ x + τ_f), the τ_f line, and usefulness 0 (y = x) for reference.
  svg.append(s('g', { 'clip-path': 'url(#ex-scatter-clip)' },
    s('polygon', { class: 'kept-band', points: [[lo, lo + tauF], [hi, hi + tauF], [hi, hi + Math.abs(tauF) + (hi - lo)], [lo, hi + Math.abs(tauF) + (hi - lo)]].map(([x, y]) => `${sx(x)},${sy(y)}`).join(' ') }),
    s('line', { class: 'zero-line', x1: sx(lo), y1: sy(lo), x2: sx(hi), y2: sy(hi) }),
    s('line', { class: 'tau-line', 'data-testid': 'ex-scatter-tau', 'data-tau-f': String(tauF), x1: sx(lo), y1: sy(lo + tauF), x2: sx(hi), y2: sy(hi + tauF) })));
  // The band's label sits in its top-left corner, away from the line and the points along it.
  svg.append(s('text', { class: 'tau-label', 'data-testid': 'ex-scatter-tau-label', x: PAD.l + 8, y: PAD.t + 16 }, `kept band: usefulness ≥ τ_f = ${fmt(tauF)}`));
  const { dots, placed } = pointsGroup(input, sx, sy, hoverable);
  svg.append(dots);
  return { svg, placed };
}

/** The points, bound and dropped (hollow) first, kept (filled) on top, then the worked example's diamond. */
function pointsGroup(
  { points, tauF, worked }: ScatterInput, sx: (x: number) => number, sy: (y: number) => number,
  hoverable: (el: SVGElement, key: number | 'worked', x: number) => void,
) {
  const dots = s('g', { class: 'points' });
  const placed = new Map<number, { x: number; y: number }>();
  const order = (p: ScatterPoint) => (p.kept ? 2 : p.bound ? 0 : 1);
  for (const p of [...points].sort((a, b) => order(a) - order(b))) {
    const style = toolStyles.of(p.tool);
    const x = sx(p.losses.withResult);
    const y = sy(yOf(p.losses));
    const r = p.kept ? 6 : 5;
    placed.set(p.index, { x, y });
    const dot = s('path', {
      d: markerPath(style.shape, x, y, r) + (p.bound ? `M${x},${y + r + 1}v5` : ''),
      fill: p.kept ? style.color : '#fff', 'fill-opacity': p.kept ? 0.9 : p.bound ? 0.4 : 0.7, stroke: style.color, 'stroke-width': 1.5,
      ...(p.bound ? { 'stroke-dasharray': '2.5 1.5' } : {}),
      'data-testid': `ex-point-${p.index}`, 'data-kept': String(p.kept), 'data-tool': p.tool, 'data-color': style.color,
      'data-shape': style.shape, 'data-bound': String(p.bound), 'data-x': x.toFixed(2), 'data-y': y.toFixed(2),
    }, s('title', {}, `${p.call}: ${p.decision}`));
    hoverable(dot, p.index, x);
    dots.append(dot);
  }
  // The worked example: a diamond, filled when it is kept at this τ_f.
  const wx = sx(worked.withResult);
  const wy = sy(yOf(worked));
  const workedKept = yOf(worked) - worked.withResult >= tauF;
  const diamond = s('polygon', {
    points: `${wx},${wy - 8} ${wx + 8},${wy} ${wx},${wy + 8} ${wx - 8},${wy}`, class: 'worked',
    fill: workedKept ? '#1b1f24' : '#fff', 'data-testid': 'ex-point-worked', 'data-kept': String(workedKept),
  }, s('title', {}, 'The worked example: min(2.5, 2.1) − 0.8 = 1.3'));
  hoverable(diamond, 'worked', wx);
  dots.append(diamond, s('text', { x: wx + 11, y: wy + 4, class: 'worked-label' }, `worked example (${fmt(yOf(worked) - worked.withResult, 1)})`));
  return { dots, placed };
}

/** The legend: per tool its marker and kept of executed, the bound points when there are any, the worked example. */
function legendItems({ points, tauF, tauMin }: ScatterInput): HTMLElement[] {
  const bound = points.filter((p) => p.bound).length;
  const items = toolStyles.sort(points.map((p) => p.tool)).map((tool) => {
    const n = points.filter((p) => p.tool === tool);
    return h('span', { class: 'legend-item', 'data-testid': `ex-legend-${tool}`, 'data-color': toolStyles.of(tool).color },
      markerIcon(toolStyles.of(tool)), `${tool}: ${n.filter((p) => p.kept).length} kept of ${n.length} executed`);
  });
  if (bound) {
    items.push(h('span', { class: 'legend-item', 'data-testid': 'ex-legend-bound' },
      markerIcon({ color: '#5b6570', shape: 'circle' }, { hollow: true, dashed: true }),
      `${bound} without L_b, drawn at L_a (their y is at most that): L_a − L_c < τ_min ${fmt(tauMin)}, dropped at any τ_f ≥ it` +
        (tauF < tauMin ? '; scoring their L_b for this τ_f' : '')));
  }
  items.push(h('span', { class: 'legend-item' }, h('span', { class: 'swatch diamond' }), 'worked example'));
  return items;
}
