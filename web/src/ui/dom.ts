/** A tiny element builder: h('label', { class: 'x' }, 'text', child). Attributes are set as attributes, `on*` as listeners. */
export type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, unknown> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2).toLowerCase(), value as EventListener);
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'number' ? String(c) : c);
  }
}

/** A labelled range slider with its value shown next to the label; `onInput` fires on every move. */
export function slider(opts: {
  id: string;
  label: string;
  min: number;
  max: number;
  step: number;
  value: number;
  format?: (v: number) => string;
  /** Said after the value by screen readers (aria-valuetext), e.g. "nats". */
  unit?: string;
  onInput: (v: number) => void;
}): { root: HTMLLabelElement; input: HTMLInputElement; set(v: number): void } {
  const format = opts.format ?? ((v: number) => String(v));
  const shown = h('output', { for: opts.id, 'data-testid': `${opts.id}-value` }, format(opts.value));
  const input = h('input', {
    type: 'range',
    id: opts.id,
    'data-testid': opts.id,
    min: opts.min,
    max: opts.max,
    step: opts.step,
    value: opts.value,
  });
  // What a screen reader says: the value as shown, not the raw step.
  const say = () => {
    shown.textContent = format(input.valueAsNumber);
    input.setAttribute('aria-valuetext', `${opts.label} ${format(input.valueAsNumber)}${opts.unit ? ` ${opts.unit}` : ''}`);
  };
  say();
  input.addEventListener('input', () => {
    say();
    opts.onInput(input.valueAsNumber);
  });
  const root = h('label', { for: opts.id }, h('span', {}, `${opts.label} = `, shown), input);
  return {
    root,
    input,
    set(v: number) {
      input.value = String(v);
      say();
      opts.onInput(input.valueAsNumber);
    },
  };
}

export const fmt = (x: number, digits = 2): string => (Number.isFinite(x) ? x.toFixed(digits) : '—');

/**
 * A labelled slider on a log scale: the range input moves over `steps` positions; position 0 is the value 0, the
 * others span 10^lo … 10^hi evenly in log10. `setRange` re-spans it (the observed values changed) and keeps the
 * value. For thresholds on probabilities that live far below 1 (p_i of a small model: 1e-8 … 4e-4).
 */
export function logSlider(opts: {
  id: string;
  label: string;
  lo: number;
  hi: number;
  value: number;
  steps?: number;
  onInput: (v: number) => void;
}): { root: HTMLLabelElement; input: HTMLInputElement; setRange(lo: number, hi: number): void } {
  const steps = opts.steps ?? 200;
  let { lo, hi } = opts;
  let value = opts.value;
  const toValue = (pos: number) => (pos <= 0 ? 0 : 10 ** (lo + ((hi - lo) * pos) / steps));
  const toPos = (v: number) => (v <= 0 ? 0 : Math.min(steps, Math.max(1, Math.round(((Math.log10(v) - lo) / (hi - lo || 1)) * steps))));
  const format = (v: number) => (v === 0 ? '0' : v.toExponential(1));
  const shown = h('output', { for: opts.id, 'data-testid': `${opts.id}-value` }, format(value));
  const input = h('input', { type: 'range', id: opts.id, 'data-testid': opts.id, min: 0, max: steps, step: 1, value: toPos(value) });
  const range = h('span', { class: 'range-note' });
  const showRange = () => { range.textContent = `log scale, 0 then ${format(10 ** lo)} … ${format(10 ** hi)}`; };
  showRange();
  // A screen reader says the threshold, not the step index (0 … steps) the input holds.
  const say = () => input.setAttribute('aria-valuetext', `${opts.label} ${format(value)}`);
  say();
  input.addEventListener('input', () => {
    value = toValue(input.valueAsNumber);
    shown.textContent = format(value);
    say();
    opts.onInput(value);
  });
  const root = h('label', { for: opts.id }, h('span', {}, `${opts.label} = `, shown), input, range);
  return {
    root,
    input,
    setRange(newLo: number, newHi: number) {
      lo = newLo;
      hi = newHi > newLo ? newHi : newLo + 1;
      input.value = String(toPos(value));
      showRange();
    },
  };
}
