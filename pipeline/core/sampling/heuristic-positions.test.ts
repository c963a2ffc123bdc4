import { describe, expect, it } from 'vitest';
import { heuristicPositions as positionsOf } from './heuristic-positions.ts';
import { positionBefore } from '../text/boundaries.ts';
import { toolSpec } from '../tools/registry.ts';
import { ADAMS_1827, JOHNSON_1867, JOHNSON_1868, MEXICO_ANTHEM, SPAIN_GOVERNMENT } from '../testing/excerpts.fixture.ts';

/** The tool's positions through its spec, as the propose stage gets them; a name not registered has none. */
const heuristicPositions = (text: string, tool: string) => positionsOf(toolSpec(tool) ?? {}, text);

/** What follows each position, to read the expectations. */
function after(text: string, positions: number[], n = 12): string[] {
  return positions.map((p) => text.slice(p, p + n));
}

describe('heuristicPositions', () => {
  it('Calculator: before each quantity, at the space that ends the previous word', () => {
    const ps = heuristicPositions(ADAMS_1827.text, 'Calculator');
    expect(ps).toEqual([25, 207, 310, 345]);
    expect(after(ADAMS_1827.text, ps)).toEqual([' $10,000,000', ' $21,226,000', ' $5,774,000,', ' $27,000,000']);
    const at = ps[3];
    const inserted = ADAMS_1827.text.slice(0, at) + ' [Calculator(21226000 + 5774000)]' + ADAMS_1827.text.slice(at);
    expect(inserted.endsWith('forming a sum total of [Calculator(21226000 + 5774000)] $27,000,000.')).toBe(true);
  });

  // Each case: the tool, what its positions are, the excerpt, and the n characters after each position.
  it.each([
    ['Calculator', 'skips years and the numbers of a date', JOHNSON_1867, 9, [' $19,978,', ' $19,235,', ' $743,210', ' $850,040']],
    ['Calendar', 'before a full date, before the year inside it, and before years', JOHNSON_1867, 14, [' June 30, 1867', ' 1867, includi', ' 1867 over tha', ' 1866 was $850']],
    ['QA', 'before each named entity', JOHNSON_1868, 9, [' Charles ', ' United S', ' Paraguay', ' United S', ' South At', ' Asuncion', ' Paraguay', ' Washburn']],
  ])('%s: %s', (tool, _where, excerpt, n, following) => {
    expect(after(excerpt.text, heuristicPositions(excerpt.text, tool), n)).toEqual(following);
  });

  it('Translate: after each foreign span and its closing quote', () => {
    const ps = heuristicPositions(MEXICO_ANTHEM.text, 'Translate');
    expect(ps).toHaveLength(2);
    expect(MEXICO_ANTHEM.text.slice(0, ps[0]).endsWith('"Himno Nacional Mexicano"')).toBe(true);
    expect(MEXICO_ANTHEM.text.slice(0, ps[1]).endsWith('"Mexicanos, al grito de Guerra"')).toBe(true);
    expect(SPAIN_GOVERNMENT.text.slice(0, heuristicPositions(SPAIN_GOVERNMENT.text, 'Translate')[0]).endsWith('Reino de Espana')).toBe(true);
  });

  it('returns sorted, distinct positions inside the text, and none for an unknown tool', () => {
    for (const tool of ['Calculator', 'Calendar', 'QA', 'Translate']) {
      for (const doc of [ADAMS_1827, JOHNSON_1867, JOHNSON_1868, MEXICO_ANTHEM, SPAIN_GOVERNMENT]) {
        const ps = heuristicPositions(doc.text, tool);
        expect([...new Set(ps)].sort((a, b) => a - b)).toEqual(ps);
        for (const p of ps) expect(p > 0 && p <= doc.text.length).toBe(true);
      }
    }
    expect(heuristicPositions(ADAMS_1827.text, 'Weather')).toEqual([]);
  });
});

describe('positionBefore', () => {
  it('moves to the end of the previous word, across punctuation glued to the token', () => {
    const text = 'rate: 1.4% (2014 est.)';
    expect(positionBefore(text, text.indexOf('2014'))).toBe(text.indexOf(' (2014'));
    expect(positionBefore(text, 0)).toBe(0);
  });
});
