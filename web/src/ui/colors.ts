/**
 * Series colours, shared by the explorer's scatter and the run viewer's survival curves: the Okabe–Ito palette
 * (distinct for the common colour-vision deficiencies), its yellow left out (unreadable on white). A tool's colour
 * is its index in the list the chart shows (the registry's order); the total over tools ("all") is near-black,
 * never a tool's colour.
 */
const PALETTE = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#8c564b'];
export const TOTAL_COLOR = '#1b1f24';

/** The colour of `name` among `names` (a series list in display order). */
export function seriesColor(names: readonly string[], name: string): string {
  const i = names.indexOf(name);
  return i < 0 ? TOTAL_COLOR : PALETTE[i % PALETTE.length];
}
