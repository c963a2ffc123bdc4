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
  input.addEventListener('input', () => {
    shown.textContent = format(input.valueAsNumber);
    opts.onInput(input.valueAsNumber);
  });
  const root = h('label', { for: opts.id }, h('span', {}, `${opts.label} = `, shown), input);
  return {
    root,
    input,
    set(v: number) {
      input.value = String(v);
      shown.textContent = format(input.valueAsNumber);
      opts.onInput(input.valueAsNumber);
    },
  };
}

export const fmt = (x: number, digits = 2): string => (Number.isFinite(x) ? x.toFixed(digits) : '—');
