import { describe, expect, it } from 'vitest';
import { ADAMS_1827, JOHNSON_1867, MEXICO_ANTHEM } from '../testing/excerpts.fixture.ts';
import { findDates, findNumbers, tail } from './spans.ts';
import { findQuantities } from '../tools/calculator/quantities.ts';

describe('findNumbers', () => {
  it('reads dollar amounts with thousands separators and flags years', () => {
    const nums = findNumbers(ADAMS_1827.text);
    expect(nums.map((n) => [n.text, n.value, n.year])).toEqual([
      ['$10,000,000', 10000000, false],
      ['1817', 1817, true],
      ['1827', 1827, true],
      ['$21,226,000', 21226000, false],
      ['$5,774,000', 5774000, false],
      ['$27,000,000', 27000000, false],
    ]);
    // "March 3d" and "September 30th" are ordinals, not numbers.
    expect(nums.some((n) => n.value === 3 || n.value === 30)).toBe(false);
    for (const n of nums) expect(ADAMS_1827.text.slice(n.start, n.end)).toBe(n.text);
  });

  it('reads percentages, negative numbers and ranges (Factbook, Spain)', () => {
    const text = 'GDP - real growth rate: 1.4% (2014 est.); -1.2% (2013 est.); civil war (1936-39)';
    expect(findNumbers(text).map((n) => [n.value, n.percent, n.year])).toEqual([
      [1.4, true, false],
      [2014, false, true],
      [-1.2, true, false],
      [2013, false, true],
      [1936, false, true],
      [39, false, false],
    ]);
  });

  it('reads "N percent" as a percentage', () => {
    const text = 'Last fall, for example, 91 percent of the Indian children between the ages of 6 and 18';
    expect(findNumbers(text).map((n) => [n.text, n.percent])).toEqual([
      ['91 percent', true],
      ['6', false],
      ['18', false],
    ]);
  });
});

describe('findDates and findQuantities', () => {
  it('finds a full date before the bare years, without overlaps', () => {
    expect(findDates(JOHNSON_1867.text).map((d) => d.text)).toEqual(['June 30, 1867', '1867', '1866']);
  });

  it('finds years followed by a comma ("adopted 1943, in use since 1854")', () => {
    expect(findDates(MEXICO_ANTHEM.text).map((d) => d.text)).toEqual(['1943', '1854']);
  });

  it('leaves years and the day of a date out of the quantities', () => {
    expect(findQuantities(JOHNSON_1867.text).map((n) => n.value)).toEqual([19978693, 19235483, 743210, 850040]);
  });
});

describe('tail', () => {
  it('keeps the end of the text, cut at a space', () => {
    expect(tail('forming a sum total of', 10)).toBe('total of');
    expect(tail('short', 10)).toBe('short');
  });
});
