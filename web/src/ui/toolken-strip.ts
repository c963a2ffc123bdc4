/**
 * p(toolken) per token, drawn in the explorer beside p_i(" ["): one heat strip per tool (heat-strip.ts), each token
 * as dark as the toolken's probability of standing before it — under ToolkenGPT's concatenated softmax over
 * [h·W_vᵀ ; h·W_τᵀ], the frozen model reading the bare text. The exact numbers ride on each strip as `data-p`
 * (JSON, one per token; null where nothing predicts the token), for the browser test and for anyone inspecting.
 */
import type { ToolkenStrip } from '../toolkens-jobs.ts';
import { h } from './dom.ts';
import { heatStrip } from './heat-strip.ts';

export function toolkenStrips(strip: ToolkenStrip, source: string): HTMLElement {
  const figures = strip.tools.map((tool, k) => {
    const fig = heatStrip({
      tool, tokens: strip.tokens, offsets: strip.offsets, p: strip.p[k].map((p) => p ?? 0), chosen: new Set(),
      quantity: `p(toolken ${tool})`, testId: `ex-toolken-strip-${tool}`,
    });
    fig.dataset.p = JSON.stringify(strip.p[k]);
    return fig;
  });
  return h('div', { 'data-testid': 'ex-toolken-strips' },
    h('h3', {}, 'Where a toolken fires: p(toolken) (ToolkenGPT)'),
    h('p', { class: 'muted' },
      `Toolkens from ${source}: the frozen model reads the bare text; each strip is one tool's toolken probability before each token.` +
        (strip.cut ? ` The last ${strip.cut} tokens are beyond the model's context and not shown.` : '')),
    ...figures);
}
