/**
 * The worked example: three losses in, usefulness and the keep/drop decision out, live as τ_f moves.
 * Uses the pipeline's own `judge` (pipeline/core/scoring/judge.ts), so the page shows exactly the rule the CLI applies.
 */
import { judge } from '../../../pipeline/core/scoring/judge.ts';
import type { Losses } from '../../../pipeline/core/scoring/losses.ts';
import { fmt, h, slider } from './dom.ts';

/** Defaults from the README's example: min(2.5, 2.1) − 0.8 = 1.3. */
export const WORKED_DEFAULTS: Losses = { noCall: 2.5, callOnly: 2.1, withResult: 0.8 };

export function mountWorkedExample(root: HTMLElement): void {
  const losses: Losses = { ...WORKED_DEFAULTS };
  let tauF = 1.0;

  const formula = h('p', { class: 'formula', 'data-testid': 'we-formula' });
  const verdict = h('p', { class: 'verdict', 'data-testid': 'we-verdict' });

  const render = () => {
    const v = judge(losses, tauF);
    formula.textContent =
      `usefulness = min(L_a, L_b) − L_c = min(${fmt(losses.noCall)}, ${fmt(losses.callOnly)}) − ` +
      `${fmt(losses.withResult)} = ${fmt(v.usefulness)}`;
    verdict.textContent = v.kept
      ? `kept: ${fmt(v.usefulness)} ≥ τ_f ${fmt(tauF)}`
      : `dropped: ${fmt(v.usefulness)} < τ_f ${fmt(tauF)}`;
    verdict.className = `verdict ${v.kept ? 'kept' : 'dropped'}`;
  };

  const lossInput = (key: keyof Losses, id: string, label: string) => {
    const input = h('input', { type: 'number', id, 'data-testid': id, step: 0.1, min: 0, value: losses[key] });
    input.addEventListener('input', () => {
      if (Number.isFinite(input.valueAsNumber)) losses[key] = input.valueAsNumber;
      render();
    });
    return h('label', { for: id }, label, input);
  };

  const tau = slider({
    id: 'we-tau-f', label: 'τ_f', min: 0, max: 3, step: 0.05, value: tauF, unit: 'nats',
    format: (v) => fmt(v),
    onInput: (v) => { tauF = v; render(); },
  });

  root.append(
    h('h2', { id: 'we-title' }, 'Worked example'),
    h(
      'div',
      { class: 'grid' },
      lossInput('noCall', 'we-la', 'L_a (nats): no call'),
      lossInput('callOnly', 'we-lb', 'L_b (nats): call, empty result'),
      lossInput('withResult', 'we-lc', 'L_c (nats): call with result'),
      tau.root,
    ),
    formula,
    verdict,
    h(
      'ul',
      { class: 'explain' },
      h('li', {}, 'L_a: weighted loss of the next 5 tokens after the position, with no call before the text.'),
      h('li', {}, 'L_b: the same loss with the call but an empty result as a prefix — does merely asking help?'),
      h('li', {}, 'L_c: the same loss with the call and its result as a prefix — does the answer help?'),
      h('li', {}, 'usefulness: how many nats the result saves over the better of the two baselines.'),
      h('li', {}, 'τ_f: the filter threshold; a call is kept when usefulness ≥ τ_f (paper default 1.0).'),
    ),
  );
  render();
}
