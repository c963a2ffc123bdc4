/**
 * A small canvas line chart: several series over a shared x axis, a vertical marker (the current τ_f) and a legend.
 * Hand-written (~100 lines) rather than a charting dependency: one chart type, no interaction beyond redraws.
 */
export interface Series {
  label: string;
  points: { x: number; y: number }[];
}

const COLORS = ['#0b5cad', '#c2410c', '#1a7f37', '#7c3aed', '#b42318', '#0e7490'];

export function drawLineChart(
  canvas: HTMLCanvasElement,
  series: readonly Series[],
  opts: { xLabel: string; yLabel: string; marker?: number },
): void {
  const dpr = globalThis.devicePixelRatio || 1;
  const cssW = canvas.clientWidth || 720;
  const cssH = canvas.clientHeight || 260;
  canvas.width = Math.round(cssW * dpr);
  canvas.height = Math.round(cssH * dpr);
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, cssW, cssH);

  const pad = { l: 48, r: 120, t: 12, b: 36 };
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) return;
  const xMin = Math.min(...all.map((p) => p.x));
  const xMax = Math.max(...all.map((p) => p.x));
  // Integer ticks: counts are whole numbers.
  const yStep = Math.max(1, Math.ceil(Math.max(1, ...all.map((p) => p.y)) / 4));
  const yMax = yStep * 4;
  const W = cssW - pad.l - pad.r;
  const H = cssH - pad.t - pad.b;
  const sx = (x: number) => pad.l + ((x - xMin) / (xMax - xMin || 1)) * W;
  const sy = (y: number) => pad.t + H - (y / yMax) * H;

  // Axes and ticks.
  ctx.strokeStyle = '#98a2ad';
  ctx.fillStyle = '#5b6570';
  ctx.font = '11px system-ui, sans-serif';
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(pad.l, pad.t);
  ctx.lineTo(pad.l, pad.t + H);
  ctx.lineTo(pad.l + W, pad.t + H);
  ctx.stroke();
  ctx.textAlign = 'center';
  for (let i = 0; i <= 5; i++) {
    const x = xMin + ((xMax - xMin) * i) / 5;
    ctx.fillText(x.toFixed(1), sx(x), pad.t + H + 14);
  }
  ctx.fillText(opts.xLabel, pad.l + W / 2, pad.t + H + 30);
  ctx.textAlign = 'right';
  for (let i = 0; i <= 4; i++) ctx.fillText(String(yStep * i), pad.l - 6, sy(yStep * i) + 4);
  ctx.save();
  ctx.translate(12, pad.t + H / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textAlign = 'center';
  ctx.fillText(opts.yLabel, 0, 0);
  ctx.restore();

  // Series as step lines (counts change only at thresholds) plus a legend on the right.
  series.forEach((s, i) => {
    ctx.strokeStyle = COLORS[i % COLORS.length];
    ctx.lineWidth = s.label === 'all' ? 2.5 : 1.5;
    ctx.beginPath();
    s.points.forEach((p, j) => {
      if (j === 0) ctx.moveTo(sx(p.x), sy(p.y));
      else {
        ctx.lineTo(sx(p.x), sy(s.points[j - 1].y));
        ctx.lineTo(sx(p.x), sy(p.y));
      }
    });
    ctx.stroke();
    ctx.fillStyle = ctx.strokeStyle;
    ctx.textAlign = 'left';
    ctx.fillRect(pad.l + W + 12, pad.t + 8 + i * 16, 10, 3);
    ctx.fillText(s.label, pad.l + W + 28, pad.t + 12 + i * 16);
  });

  if (opts.marker !== undefined && opts.marker >= xMin && opts.marker <= xMax) {
    ctx.strokeStyle = '#f5a623';
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    ctx.moveTo(sx(opts.marker), pad.t);
    ctx.lineTo(sx(opts.marker), pad.t + H);
    ctx.stroke();
    ctx.setLineDash([]);
  }
}
