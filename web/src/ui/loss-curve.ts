/**
 * A training loss curve, plain SVG: loss (nats, linear axis from the lowest to the highest value shown) against the
 * epoch, one polyline per series, the values in each point's tooltip. Redrawn whole after each epoch (a few dozen
 * points at most).
 */
import { seriesColor } from './colors.ts';

export interface LossSeries {
  label: string;
  /** [epoch, loss] pairs; epoch 0 is the untrained weights. */
  points: [number, number][];
}

const NS = 'http://www.w3.org/2000/svg';
const W = 520;
const H = 200;
const PAD = { l: 48, r: 110, t: 10, b: 32 };

function el<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

export function drawLossCurve(svg: SVGSVGElement, series: readonly LossSeries[], maxEpoch: number): void {
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.replaceChildren();
  const all = series.flatMap((s) => s.points.map(([, y]) => y)).filter(Number.isFinite);
  if (all.length === 0) return;
  const [lo, hi] = [Math.min(...all), Math.max(...all)];
  const span = hi - lo || 1;
  const x = (e: number) => PAD.l + (e / Math.max(1, maxEpoch)) * (W - PAD.l - PAD.r);
  const y = (v: number) => PAD.t + (1 - (v - lo) / span) * (H - PAD.t - PAD.b);
  svg.append(
    el('line', { x1: PAD.l, y1: H - PAD.b, x2: W - PAD.r, y2: H - PAD.b, stroke: '#555' }),
    el('line', { x1: PAD.l, y1: PAD.t, x2: PAD.l, y2: H - PAD.b, stroke: '#555' }),
    el('text', { x: PAD.l - 4, y: y(hi) + 4, 'text-anchor': 'end', 'font-size': 11 }, hi.toFixed(3)),
    el('text', { x: PAD.l - 4, y: y(lo) + 4, 'text-anchor': 'end', 'font-size': 11 }, lo.toFixed(3)),
    el('text', { x: (PAD.l + W - PAD.r) / 2, y: H - 6, 'text-anchor': 'middle', 'font-size': 11 }, `epoch (0 = untrained W_τ … ${maxEpoch})`),
    el('text', { x: 12, y: H / 2, 'font-size': 11, transform: `rotate(-90 12 ${H / 2})`, 'text-anchor': 'middle' }, 'loss (nats)'),
  );
  series.forEach((s, i) => {
    const color = seriesColor(series.map((t) => t.label), s.label);
    const pts = s.points.filter(([, v]) => Number.isFinite(v));
    svg.append(el('polyline', { points: pts.map(([e, v]) => `${x(e)},${y(v)}`).join(' '), fill: 'none', stroke: color, 'stroke-width': 2 }));
    for (const [e, v] of pts) {
      const dot = el('circle', { cx: x(e), cy: y(v), r: 3, fill: color });
      dot.append(el('title', {}, `${s.label}, epoch ${e}: ${v.toFixed(4)} nats`));
      svg.append(dot);
    }
    svg.append(el('text', { x: W - PAD.r + 8, y: PAD.t + 14 + 16 * i, fill: color, 'font-size': 12 }, s.label));
  });
}
