import { describe, expect, it } from 'vitest';
import { createEldDetector } from '../../core/tools/translate/language-id.ts';
import { createCompactEldDetector, mediumNgramsJson } from './eld-detector.ts';

describe('eld with its database read as JSON', () => {
  it('the JSON is eld/medium\'s database, entry for entry', async () => {
    const { ngramsData } = (await import(new URL('../ngrams/medium.js', import.meta.resolve('eld/medium')).href)) as { ngramsData: { ngrams: object } };
    const parsed = JSON.parse(await mediumNgramsJson()) as typeof ngramsData;
    expect(Object.keys(parsed.ngrams).length).toBeGreaterThan(10_000);
    expect(parsed).toEqual(ngramsData);
  });
  it('detects as eld/medium does: language and every score', async () => {
    const plain = createEldDetector();
    const compact = createCompactEldDetector();
    const texts = ['la casa es grande', 'Bon dia a tots', 'Mexicanos, al grito de Guerra', 'The house is big.', 'Himno Nacional Argentino', 'Der Hund bellt laut', 'x'];
    for (const text of texts) expect(await compact.detect(text)).toEqual(await plain.detect(text));
    expect((await compact.detect('la casa es grande')).language).toBe('es');
  });
});
