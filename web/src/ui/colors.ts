/**
 * Series colours and marker shapes. Colours: the Okabe–Ito palette (distinct for the common colour-vision
 * deficiencies), its yellow left out (unreadable on white). Shapes, so that tools are told apart without colour too:
 * circle, square, triangle, inverted triangle, pentagon, hexagon, star (the diamond is the worked example's).
 *
 * A tool's colour and shape are keyed on the registry: its index in the tools the model worker reports (the
 * registry's order), the same in every chart and strip of the page — the explorer's scatter and p_i strips, the run
 * viewer's table and curves. A tool the registry lacks (a run made with a catalog, a test tool) follows the
 * registry's tools in the order first asked for. The total over tools ("all") is near-black, never a tool's colour.
 */
const PALETTE = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#8c564b'];
export const TOTAL_COLOR = '#1b1f24';

export type Shape = 'circle' | 'square' | 'triangle' | 'triangle-down' | 'pentagon' | 'hexagon' | 'star';
const SHAPES: readonly Shape[] = ['circle', 'square', 'triangle', 'triangle-down', 'pentagon', 'hexagon', 'star'];

export interface SeriesStyle {
  color: string;
  shape: Shape;
}

/** The colour of `name` among `names` (a series list in display order: charts whose series are not tools). */
export function seriesColor(names: readonly string[], name: string): string {
  const i = names.indexOf(name);
  return i < 0 ? TOTAL_COLOR : PALETTE[i % PALETTE.length];
}

/** The page's one assignment of styles to tools. */
export class ToolStyles {
  private order: string[] = [];
  private listeners: (() => void)[] = [];

  /** The registry's tools, in order (once the worker reports them): they take the first styles. */
  setRegistry(names: readonly string[]): void {
    const extra = this.order.filter((n) => !names.includes(n));
    this.order = [...names, ...extra];
    for (const f of this.listeners) f();
  }

  /** Called when the registry becomes known (a chart drawn before then redraws). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  of(tool: string): SeriesStyle {
    let i = this.order.indexOf(tool);
    if (i < 0) i = this.order.push(tool) - 1;
    return { color: PALETTE[i % PALETTE.length], shape: SHAPES[i % SHAPES.length] };
  }

  /** `tools` sorted by their place in the registry (then first asked for). */
  sort(tools: Iterable<string>): string[] {
    const list = [...new Set(tools)];
    for (const t of list) this.of(t);
    return list.sort((a, b) => this.order.indexOf(a) - this.order.indexOf(b));
  }
}

export const toolStyles = new ToolStyles();

/** An SVG path of `shape` centred on (cx, cy), fitting a circle of radius r (also drawn on canvas via Path2D). */
export function markerPath(shape: Shape, cx: number, cy: number, r: number): string {
  const polygon = (n: number, rotate: number, radii: readonly number[] = [r]) =>
    Array.from({ length: n * radii.length }, (_, k) => {
      const a = rotate + (k * 2 * Math.PI) / (n * radii.length);
      const rr = radii[k % radii.length];
      return `${k ? 'L' : 'M'}${(cx + rr * Math.sin(a)).toFixed(2)},${(cy - rr * Math.cos(a)).toFixed(2)}`;
    }).join('') + 'Z';
  switch (shape) {
    case 'circle': return `M${cx - r},${cy}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0Z`;
    case 'square': { const s = r * 0.85; return `M${cx - s},${cy - s}H${cx + s}V${cy + s}H${cx - s}Z`; }
    case 'triangle': return polygon(3, 0, [r * 1.15]);
    case 'triangle-down': return polygon(3, Math.PI, [r * 1.15]);
    case 'pentagon': return polygon(5, 0);
    case 'hexagon': return polygon(6, Math.PI / 6);
    case 'star': return polygon(5, 0, [r * 1.2, r * 0.5]);
  }
}

/** A small inline SVG of a tool's marker, for legends and table cells (filled unless `hollow`). */
export function markerIcon(style: SeriesStyle, opts: { hollow?: boolean; dashed?: boolean; size?: number } = {}): SVGSVGElement {
  const size = opts.size ?? 14;
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('width', String(size));
  svg.setAttribute('height', String(size));
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('class', 'marker-icon');
  const path = document.createElementNS(NS, 'path');
  path.setAttribute('d', markerPath(style.shape, size / 2, size / 2, size / 2 - 2));
  path.setAttribute('fill', opts.hollow ? '#fff' : style.color);
  path.setAttribute('stroke', style.color);
  path.setAttribute('stroke-width', '1.5');
  if (opts.dashed) path.setAttribute('stroke-dasharray', '2 1.5');
  svg.append(path);
  return svg;
}
