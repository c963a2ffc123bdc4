import { describe, expect, it } from 'vitest';
import { JOHNSON_1868, MEXICO_ANTHEM, SPAIN_GOVERNMENT, WASHINGTON_1790 } from '../../testing/excerpts.fixture.ts';
import { englishRatio, findForeignSpans } from './foreign-spans.ts';

describe('findForeignSpans', () => {
  it('finds quoted Spanish names, with or without Spanish function words', () => {
    expect(findForeignSpans(MEXICO_ANTHEM.text).map((s) => s.text)).toEqual([
      'Himno Nacional Mexicano', // no Spanish function word, but an English gloss in parentheses follows
      'Mexicanos, al grito de Guerra',
    ]);
  });

  it('finds an unquoted run with Spanish function words, and nothing in plain English', () => {
    expect(findForeignSpans(SPAIN_GOVERNMENT.text).map((s) => s.text)).toEqual(['Reino de Espana']);
    expect(findForeignSpans(JOHNSON_1868.text)).toEqual([]);
    expect(findForeignSpans(WASHINGTON_1790.text)).toEqual([]);
  });

  it('does not take two-word place names or names written in English ("Los Angeles", "Al Qaida")', () => {
    expect(findForeignSpans('a new office in Los Angeles and we are tracking Al Qaida cells')).toEqual([]);
  });
});

describe('englishRatio', () => {
  it('separates English prose from a Spanish sentence', () => {
    expect(englishRatio(WASHINGTON_1790.text)).toBeGreaterThan(0.4);
    expect(englishRatio('Mexicanos, al grito de guerra el acero aprestad y el bridón')).toBe(0);
  });
});
