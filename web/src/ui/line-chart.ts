/**
 * A small canvas line chart for counts: several step series over a shared x axis, the y axis on a log scale (counts
 * from 0 to thousands: y is drawn at log10(1 + y), so 0 sits on the axis and 1, 10, 100, 1000 are evenly spaced), a
 * vertical marker (the current τ_f) with each series' marker shape where it crosses it, and — unless the caller
 * shows one of its own (`legend: false`) — a legend giving each series' value at the marker.
 * Hand-written (~130 lines) rather than a charting dependency: one chart type, no interaction beyond redraws.
 */
import { markerPath, seriesColor, TOTAL_COLOR, type SeriesStyle } from './colors.ts';

export interface Series {
  label: string;
  points: { x: number; y: number }[];
  /** Colour and marker (a tool's, colors.ts); @default the palette in series order, no marker */
  style?: SeriesStyle;
}

/** The series named `total` (e.g. "all") is drawn thick and near-black; the others take the palette in order. */
export function drawLineChart(
  canvas: HTMLCanvasElement,
  series: readonly Series[],
  opts: { xLabel: string; yLabel: string; marker?: number; total?: string; legend?: boolean },
): void {
  const dpr = globalThis.devicePixelRatio || 1;
  const cssW = canvas.clientWidth || 720;
  const cssH = canvas.clientHeight || 300;
  canvas.width = Math.round(cssW * dpr);
  canvas.height = Math.round(cssH * dpr);
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, cssW, cssH);

  const legend = opts.legend ?? true;
  const pad = { l: 56, r: legend ? 190 : 16, t: 12, b: 40 };
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) return;
  const xMin = Math.min(...all.map((p) => p.x));
  const xMax = Math.max(...all.map((p) => p.x));
  const ly = (y: number) => Math.log10(1 + Math.max(0, y));
  const decades = Math.max(1, Math.ceil(ly(Math.max(...all.map((p) => p.y)))));
  const W = cssW - pad.l - pad.r;
  const H = cssH - pad.t - pad.b;
  const sx = (x: number) => pad.l + ((x - xMin) / (xMax - xMin || 1)) * W;
  const sy = (y: number) => pad.t + H - (ly(y) / decades) * H;

  drawAxes(ctx, { pad, W, H, sx, sy, xMin, xMax, decades }, opts);

  if (opts.marker !== undefined && opts.marker >= xMin && opts.marker <= xMax) {
    ctx.strokeStyle = '#e69f00';
    ctx.lineWidth = 2;
    ctx.setLineDash([5, 4]);
    ctx.beginPath();
    ctx.moveTo(sx(opts.marker), pad.t);
    ctx.lineTo(sx(opts.marker), pad.t + H);
    ctx.stroke();
    ctx.setLineDash([]);
  }

  // Series as step lines (counts change only at thresholds); the legend gives each one's value at the marker.
  const names = series.map((s) => s.label).filter((l) => l !== opts.total);
  series.forEach((s, i) => {
    const color = s.label === opts.total ? TOTAL_COLOR : (s.style?.color ?? seriesColor(names, s.label));
    ctx.strokeStyle = color;
    ctx.lineWidth = s.label === opts.total ? 3 : 2;
    ctx.beginPath();
    s.points.forEach((p, j) => {
      if (j === 0) ctx.moveTo(sx(p.x), sy(p.y));
      else {
        ctx.lineTo(sx(p.x), sy(s.points[j - 1].y));
        ctx.lineTo(sx(p.x), sy(p.y));
      }
    });
    ctx.stroke();
    const at = opts.marker === undefined ? undefined : [...s.points].reverse().find((p) => p.x <= opts.marker! + 1e-9);
    if (at && s.style && opts.marker! >= xMin && opts.marker! <= xMax) {
      ctx.fillStyle = color;
      ctx.fill(new Path2D(markerPath(s.style.shape, sx(opts.marker!), sy(at.y), 5)));
    }
    if (!legend) return;
    ctx.fillStyle = color;
    ctx.textAlign = 'left';
    ctx.fillRect(pad.l + W + 12, pad.t + 6 + i * 18, 14, 4);
    ctx.fillStyle = '#1b1f24';
    ctx.fillText(`${s.label}${at ? `: ${at.y.toLocaleString('en')}` : ''}`, pad.l + W + 32, pad.t + 12 + i * 18);
  });
}

/** Where the plot sits in the canvas (CSS pixels) and how data maps into it. */
interface Frame {
  pad: { l: number; r: number; t: number; b: number };
  /** The plot area's width and height. */
  W: number;
  H: number;
  /** Data x and y (a count, drawn at log10(1 + y)) → canvas x and y. */
  sx: (x: number) => number;
  sy: (y: number) => number;
  xMin: number;
  xMax: number;
  /** Powers of ten on the y axis. */
  decades: number;
}

/** Axes, grid and ticks (x every 0.5, y at 0, 1, 10, 100, …), the frame and both axis labels. */
function drawAxes(
  ctx: CanvasRenderingContext2D, { pad, W, H, sx, sy, xMin, xMax, decades }: Frame, opts: { xLabel: string; yLabel: string },
): void {
  ctx.font = '12px system-ui, sans-serif';
  ctx.lineWidth = 1;
  ctx.strokeStyle = '#e3e7eb';
  ctx.fillStyle = '#5b6570';
  ctx.textAlign = 'center';
  for (let x = Math.ceil(xMin * 2) / 2; x <= xMax + 1e-9; x += 0.5) {
    ctx.beginPath();
    ctx.moveTo(sx(x), pad.t);
    ctx.lineTo(sx(x), pad.t + H);
    ctx.stroke();
    ctx.fillText(x.toFixed(1), sx(x), pad.t + H + 15);
  }
  ctx.fillText(opts.xLabel, pad.l + W / 2, pad.t + H + 33);
  ctx.textAlign = 'right';
  for (const y of [0, ...Array.from({ length: decades }, (_, i) => 10 ** i)]) {
    ctx.beginPath();
    ctx.moveTo(pad.l, sy(y));
    ctx.lineTo(pad.l + W, sy(y));
    ctx.stroke();
    ctx.fillText(y.toLocaleString('en'), pad.l - 6, sy(y) + 4);
  }
  ctx.strokeStyle = '#98a2ad';
  ctx.strokeRect(pad.l, pad.t, W, H);
  ctx.save();
  ctx.translate(14, pad.t + H / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textAlign = 'center';
  ctx.fillText(opts.yLabel, 0, 0);
  ctx.restore();
}
