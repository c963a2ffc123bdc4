import { describe, expect, it } from 'vitest';
import { markerPath, ToolStyles } from './colors.ts';

describe('ToolStyles: one colour and marker per tool, keyed on the registry', () => {
  it('gives the registry\'s tools the first styles in its order, whatever order they are asked for', () => {
    const styles = new ToolStyles();
    styles.setRegistry(['Calculator', 'QA', 'Calendar', 'Translate']);
    const qa = styles.of('QA');
    const calc = styles.of('Calculator');
    expect([calc.shape, qa.shape]).toEqual(['circle', 'square']);
    expect(calc.color).not.toBe(qa.color);
    // Another chart listing tools alphabetically still gets the same styles.
    const again = new ToolStyles();
    again.setRegistry(['Calculator', 'QA', 'Calendar', 'Translate']);
    expect(['Calendar', 'Calculator', 'QA', 'Translate'].map((t) => again.of(t))).toEqual(['Calendar', 'Calculator', 'QA', 'Translate'].map((t) => styles.of(t)));
    expect(styles.sort(['Translate', 'Calendar', 'QA'])).toEqual(['QA', 'Calendar', 'Translate']);
  });

  it('puts tools the registry lacks after its tools, in the order first asked, and keeps them there when it arrives late', () => {
    const styles = new ToolStyles();
    const early = styles.of('mathjs.add'); // a run viewer drew a catalog tool before the worker reported the registry
    let told = 0;
    styles.onChange(() => told++);
    styles.setRegistry(['Calculator', 'QA']);
    expect(told).toBe(1);
    expect(styles.sort(['mathjs.add', 'QA', 'Calculator'])).toEqual(['Calculator', 'QA', 'mathjs.add']);
    expect(styles.of('mathjs.add').shape).toBe('triangle');
    expect(styles.of('mathjs.add')).not.toEqual(early); // restyled once the registry's tools took the first places
  });
});

describe('markerPath', () => {
  it('draws every shape as one closed path around its centre', () => {
    for (const shape of ['circle', 'square', 'triangle', 'triangle-down', 'pentagon', 'hexagon', 'star'] as const) {
      const d = markerPath(shape, 10, 10, 5);
      expect(d, shape).toMatch(/^M.*Z$/);
      if (shape === 'circle') {
        expect(d).toBe('M5,10a5,5 0 1,0 10,0a5,5 0 1,0 -10,0Z');
        continue;
      }
      // Polygons (the square as H/V moves): their points span more than the radius across.
      const xs = [...d.matchAll(/[ML](-?[\d.]+),(-?[\d.]+)|H(-?[\d.]+)/g)].map((m) => Number(m[1] ?? m[3]));
      expect(Math.max(...xs) - Math.min(...xs), shape).toBeGreaterThan(5);
    }
  });
});
