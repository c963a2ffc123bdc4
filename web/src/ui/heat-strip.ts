/**
 * The p_i(" [") heat strip: one span per token, its background as dark as p_i is high — on a log scale from the
 * strip's median (white) to its maximum, since a small model's p_i are far below 1 and close together, so only the
 * peaks stand out — in the tool's own colour (colors.ts), its marker before the caption; chosen positions
 * outlined, p_i in the tooltip.
 */
import { markerIcon, toolStyles, type SeriesStyle } from './colors.ts';
import { h } from './dom.ts';

/** '#rrggbb' → 'r, g, b' for rgba(). */
const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ');

export function heatStrip(opts: {
  tool: string;
  tokens: readonly string[];
  offsets: readonly number[];
  p: readonly number[];
  /** Character offsets of the positions chosen at the current τ_s. */
  chosen: ReadonlySet<number>;
  /** What p is, for the caption and tooltips (p(toolken) in ui/toolken-strip.ts). @default 'p_i(" [")' */
  quantity?: string;
  /** @default `ex-strip-<tool>` */
  testId?: string;
  /** The tool's colour and marker. @default toolStyles.of(tool) */
  style?: SeriesStyle;
}): HTMLElement {
  const style = opts.style ?? toolStyles.of(opts.tool);
  const shade = rgb(style.color);
  const quantity = opts.quantity ?? 'p_i(" [")';
  const max = Math.max(1e-12, ...opts.p);
  const sorted = [...opts.p].sort((a, b) => a - b);
  const min = Math.max(1e-12, sorted[Math.floor(sorted.length / 2)] ?? 0);
  const span = Math.log(max) - Math.log(min) || 1;
  const spans = opts.tokens.map((tok, i) => {
    const a = Math.min(1, Math.max(0, (Math.log(Math.max(opts.p[i], 1e-12)) - Math.log(min)) / span));
    const chosen = opts.chosen.has(opts.offsets[i]);
    return h(
      'span',
      {
        style: `background: rgba(${shade}, ${(0.85 * a).toFixed(3)}); color: ${a > 0.55 ? '#fff' : 'inherit'}`,
        title: `token ${i} ${JSON.stringify(tok)}: ${quantity} = ${opts.p[i].toExponential(2)}${chosen ? ' (chosen)' : ''}`,
        class: chosen ? 'chosen' : undefined,
        'data-chosen': chosen ? 'true' : undefined,
      },
      tok,
    );
  });
  return h(
    'figure',
    { 'data-testid': opts.testId ?? `ex-strip-${opts.tool}`, 'data-color': style.color, 'data-shape': style.shape, style: 'margin: 0.4rem 0' },
    h('figcaption', { class: 'muted' }, markerIcon(style, { size: 12 }), ' ', `${opts.tool}: ${quantity} per token (darker = higher, log scale, median ${min.toExponential(1)} … max ${max.toExponential(1)})${opts.quantity ? '' : '; outlined = chosen position'}`),
    h('div', { class: 'strip', role: 'img', 'aria-label': `${opts.tool}: ${quantity} per token` }, ...spans),
  );
}
