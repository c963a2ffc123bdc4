/**
 * The p_i(" [") heat strip: one span per token, its background as dark as p_i is high (scaled to the strip's
 * maximum, since a small model's p_i are often far below 1), chosen positions outlined, p_i in the tooltip.
 */
import { h } from './dom.ts';

export function heatStrip(opts: {
  tool: string;
  tokens: readonly string[];
  offsets: readonly number[];
  p: readonly number[];
  /** Character offsets of the positions chosen at the current τ_s. */
  chosen: ReadonlySet<number>;
}): HTMLElement {
  const max = Math.max(1e-12, ...opts.p);
  const spans = opts.tokens.map((tok, i) => {
    const a = Math.sqrt(opts.p[i] / max); // sqrt: small values stay visible
    const chosen = opts.chosen.has(opts.offsets[i]);
    return h(
      'span',
      {
        style: `background: rgba(11, 92, 173, ${(0.85 * a).toFixed(3)}); color: ${a > 0.55 ? '#fff' : 'inherit'}`,
        title: `token ${i} ${JSON.stringify(tok)}: p_i = ${opts.p[i].toExponential(2)}${chosen ? ' (chosen)' : ''}`,
        class: chosen ? 'chosen' : undefined,
        'data-chosen': chosen ? 'true' : undefined,
      },
      tok,
    );
  });
  return h(
    'figure',
    { 'data-testid': `ex-strip-${opts.tool}`, style: 'margin: 0.4rem 0' },
    h('figcaption', { class: 'muted' }, `${opts.tool}: p_i(" [") per token (darker = higher, max ${max.toExponential(2)}); outlined = chosen position`),
    h('div', { class: 'strip', role: 'img', 'aria-label': `${opts.tool} call-start probability per token` }, ...spans),
  );
}
