/**
 * The loss filter as a picture: every scored candidate as a point, L_c (the loss with the call and its result) on x
 * against min(L_a, L_b) (the better of no call and the call with an empty result) on y, in nats. A call is kept when
 * min(L_a, L_b) − L_c ≥ τ_f: above the line y = x + τ_f, the shaded band. The line moves with the τ_f slider and the
 * points recolour (filled: kept; hollow: dropped) from the stored losses, without the model. The worked example
 * (L_a 2.5, L_b 2.1, L_c 0.8 → usefulness 1.3) is a marked point. Hovering or focusing a point shows its call and
 * the window of 5 tokens its losses are measured on.
 *
 * Plain SVG, written here (~200 lines) rather than a charting library: one chart type, both axes on one scale so
 * the τ_f line is a true diagonal, redrawn whole on each change (at most a few hundred points).
 */
import type { Losses } from '../../../../pipeline/core/scoring/losses.ts';
import { seriesColor } from '../colors.ts';
import { fmt, h } from '../dom.ts';

export interface ScatterPoint {
  /** Index of the candidate in the analysis (the table row `ex-row-<index>`). */
  index: number;
  tool: string;
  losses: Losses;
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
  /** The tools in the registry's order (their colours). */
  tools: readonly string[];
  tauF: number;
  worked: Losses;
}

const NS = 'http://www.w3.org/2000/svg';
function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...children: (Node | string)[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

/** Plot geometry, CSS pixels: a square plot so that y = x + τ_f runs at 45°. */
const SIZE = 360;
const PAD = { l: 56, r: 16, t: 14, b: 48 };
const WIDTH = PAD.l + SIZE + PAD.r;
const HEIGHT = PAD.t + SIZE + PAD.b;

const below = (l: Losses) => Math.min(l.noCall, l.callOnly);

/** Round numbers for axis ticks spanning [lo, hi]: steps of 1, 2 or 5 × 10^n, about 6 of them. */
export function ticks(lo: number, hi: number): number[] {
  const raw = (hi - lo) / 6;
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
  const detail = h('p', { class: 'scatter-detail', 'data-testid': 'ex-scatter-detail', 'aria-live': 'polite' });
  const caption = h('figcaption', {});
  const plotHolder = h('div', { class: 'scatter-plot' });
  figure.append(caption, h('div', { class: 'scatter-row' }, plotHolder, h('div', { class: 'scatter-side' }, legend, detail)));
  let last: ScatterInput | null = null;
  /** The point under the pointer or focus (its index), so a redraw keeps its details current. */
  let hovered: number | 'worked' | null = null;

  const showDetail = () => {
    if (!last || hovered === null) {
      detail.replaceChildren(h('span', { class: 'muted' }, 'Hover over or focus a point: its call, and the 5 tokens its losses are measured on.'));
      return;
    }
    if (hovered === 'worked') {
      const u = below(last.worked) - last.worked.withResult;
      detail.replaceChildren(h('strong', {}, 'The worked example'), ` (panel above): min(${fmt(last.worked.noCall)}, ${fmt(last.worked.callOnly)}) − ${fmt(last.worked.withResult)} = ${fmt(u)}; ${u >= last.tauF ? 'kept' : 'dropped'} at τ_f ${fmt(last.tauF)}.`);
      return;
    }
    const p = last.points.find((x) => x.index === hovered);
    if (!p) return;
    const l = p.losses;
    detail.replaceChildren(
      h('strong', { style: `color: ${seriesColor(last.tools, p.tool)}` }, p.tool), ' ',
      h('code', {}, p.call), h('br', {}),
      h('span', { class: 'window' }, `…${p.window.before.trimEnd()} `, h('mark', { class: 'call' }, p.call), h('u', { title: 'the 5 tokens L_a, L_b, L_c weigh' }, p.window.scored), `${p.window.after}…`), h('br', {}),
      `L_a ${fmt(l.noCall)}, L_b ${fmt(l.callOnly)}, L_c ${fmt(l.withResult)}: usefulness ${fmt(below(l) - l.withResult)} · `,
      h('span', { class: p.kept ? 'kept' : 'dropped' }, p.decision),
    );
  };

  const hoverable = (el: SVGElement, key: number | 'worked') => {
    el.setAttribute('tabindex', '0');
    const on = () => { hovered = key; showDetail(); };
    el.addEventListener('mouseenter', on);
    el.addEventListener('focus', on);
  };

  function update(input: ScatterInput): void {
    last = input;
    const { points, tools, tauF, worked } = input;
    const values = [...points.flatMap((p) => [p.losses.withResult, below(p.losses)]), worked.withResult, below(worked)];
    const lo = Math.floor(Math.min(...values)) - 0.5;
    const hi = Math.ceil(Math.max(...values)) + 0.5;
    const sx = (x: number) => PAD.l + ((x - lo) / (hi - lo)) * SIZE;
    const sy = (y: number) => PAD.t + SIZE - ((y - lo) / (hi - lo)) * SIZE;
    const kept = points.filter((p) => p.kept).length;

    const svg = s('svg', {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: WIDTH, height: HEIGHT, role: 'img',
      'aria-label': `Scatter of ${points.length} scored calls: L_c against min(L_a, L_b); ${kept} above the line τ_f = ${fmt(tauF)}`,
    });
    svg.append(s('defs', {}, s('clipPath', { id: 'ex-scatter-clip' }, s('rect', { x: PAD.l, y: PAD.t, width: SIZE, height: SIZE }))));
    // Axes, grid and tick labels.
    const grid = s('g', { class: 'grid-lines' });
    for (const t of ticks(lo, hi)) {
      grid.append(
        s('line', { x1: sx(t), x2: sx(t), y1: PAD.t, y2: PAD.t + SIZE }),
        s('line', { x1: PAD.l, x2: PAD.l + SIZE, y1: sy(t), y2: sy(t) }),
        s('text', { x: sx(t), y: PAD.t + SIZE + 14, 'text-anchor': 'middle' }, String(t)),
        s('text', { x: PAD.l - 6, y: sy(t) + 4, 'text-anchor': 'end' }, String(t)),
      );
    }
    svg.append(grid,
      s('rect', { x: PAD.l, y: PAD.t, width: SIZE, height: SIZE, class: 'frame' }),
      s('text', { x: PAD.l + SIZE / 2, y: HEIGHT - 8, 'text-anchor': 'middle', class: 'axis-label' }, 'L_c: loss with the call and its result (nats)'),
      s('text', { x: 14, y: PAD.t + SIZE / 2, 'text-anchor': 'middle', class: 'axis-label', transform: `rotate(-90 14 ${PAD.t + SIZE / 2})` }, 'min(L_a, L_b): loss without the result (nats)'));

    // The kept band (y ≥ x + τ_f), the τ_f line, and usefulness 0 (y = x) for reference.
    const band = s('g', { 'clip-path': 'url(#ex-scatter-clip)' },
      s('polygon', { class: 'kept-band', points: [[lo, lo + tauF], [hi, hi + tauF], [hi, hi + Math.abs(tauF) + (hi - lo)], [lo, hi + Math.abs(tauF) + (hi - lo)]].map(([x, y]) => `${sx(x)},${sy(y)}`).join(' ') }),
      s('line', { class: 'zero-line', x1: sx(lo), y1: sy(lo), x2: sx(hi), y2: sy(hi) }),
      s('line', { class: 'tau-line', 'data-testid': 'ex-scatter-tau', 'data-tau-f': String(tauF), x1: sx(lo), y1: sy(lo + tauF), x2: sx(hi), y2: sy(hi + tauF) }));
    svg.append(band);
    // Label the line where it leaves the plot (top edge, or the right edge when τ_f < 0).
    const labelX = Math.min(hi, hi - tauF);
    svg.append(s('text', { class: 'tau-label', x: sx(labelX) - 4, y: sy(labelX + tauF) + 14, 'text-anchor': 'end' }, `τ_f = ${fmt(tauF)}: kept above`));

    // The points: dropped (hollow) first, kept (filled) on top.
    const dots = s('g', { class: 'points' });
    for (const p of [...points].sort((a, b) => Number(a.kept) - Number(b.kept))) {
      const color = seriesColor(tools, p.tool);
      const dot = s('circle', {
        cx: sx(p.losses.withResult), cy: sy(below(p.losses)), r: p.kept ? 5.5 : 4.5,
        fill: p.kept ? color : '#fff', 'fill-opacity': p.kept ? 0.9 : 0.6, stroke: color, 'stroke-width': 1.5,
        'data-testid': `ex-point-${p.index}`, 'data-kept': String(p.kept), 'data-tool': p.tool,
      }, s('title', {}, `${p.call}: ${p.decision}`));
      hoverable(dot, p.index);
      dots.append(dot);
    }
    // The worked example: a diamond, filled when it is kept at this τ_f.
    const wx = sx(worked.withResult);
    const wy = sy(below(worked));
    const workedKept = below(worked) - worked.withResult >= tauF;
    const diamond = s('polygon', {
      points: `${wx},${wy - 8} ${wx + 8},${wy} ${wx},${wy + 8} ${wx - 8},${wy}`, class: 'worked',
      fill: workedKept ? '#1b1f24' : '#fff', 'data-testid': 'ex-point-worked', 'data-kept': String(workedKept),
    }, s('title', {}, 'The worked example: min(2.5, 2.1) − 0.8 = 1.3'));
    hoverable(diamond, 'worked');
    dots.append(diamond, s('text', { x: wx + 11, y: wy + 4, class: 'worked-label' }, `worked example (${fmt(below(worked) - worked.withResult, 1)})`));
    svg.append(dots);
    plotHolder.replaceChildren(svg);

    caption.textContent = `${kept} of ${points.length} scored calls are kept: on or above the line min(L_a, L_b) − L_c = τ_f ` +
      `(filled = kept, hollow = dropped; a kept call can still fail the counterfactual control). Move τ_f: the line moves and the points recolour, with no model run.`;
    legend.replaceChildren(...[...new Set(points.map((p) => p.tool))].sort((a, b) => tools.indexOf(a) - tools.indexOf(b)).map((tool) => {
      const n = points.filter((p) => p.tool === tool);
      return h('span', { class: 'legend-item' }, h('span', { class: 'swatch', style: `background: ${seriesColor(tools, tool)}` }),
        `${tool}: ${n.filter((p) => p.kept).length} of ${n.length} kept`);
    }), h('span', { class: 'legend-item' }, h('span', { class: 'swatch diamond' }), 'worked example'));
    showDetail();
  }

  return { root: figure, update };
}
