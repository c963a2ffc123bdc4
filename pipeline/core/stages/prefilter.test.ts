import { describe, expect, it } from 'vitest';
import { prefilter as prefilterOf } from './prefilter.ts';
import { relation } from '../tools/calculator/prefilter.ts';
import { toolSpec } from '../tools/registry.ts';
import type { Doc } from '../document.ts';
import {
  ADAMS_1827,
  JOHNSON_1867,
  JOHNSON_1868,
  MEXICO_ANTHEM,
  SPAIN_GOVERNMENT,
  WASHINGTON_1790,
} from '../testing/excerpts.fixture.ts';
import { findNumbers } from '../text/spans.ts';

/** A tool's pre-filter through its spec, as the pre-filter stage applies it. */
const prefilter = (tool: string, doc: Doc) => prefilterOf(toolSpec(tool) ?? {}, doc);
const calculatorPrefilter = (doc: Doc) => prefilter('Calculator', doc);
const calendarPrefilter = (doc: Doc) => prefilter('Calendar', doc);
const qaPrefilter = (doc: Doc) => prefilter('QA', doc);
const translatePrefilter = (doc: Doc) => prefilter('Translate', doc);

describe('calculatorPrefilter', () => {
  it('passes "a sum total of" followed by a number', () => {
    expect(calculatorPrefilter(ADAMS_1827)).toMatchObject({
      pass: true,
      reason: '"total of $27,000,000": result cue followed by a number',
    });
  });

  it('passes three numbers within 100 tokens where one is the difference of the others', () => {
    expect(calculatorPrefilter(JOHNSON_1867)).toMatchObject({
      pass: true,
      reason: '19978693 - 19235483 = 743210 within 18 tokens',
    });
  });

  it('fails three unrelated numbers, and fewer than three (years and dates do not count)', () => {
    const unrelated = { ...ADAMS_1827, text: ADAMS_1827.text.slice(0, ADAMS_1827.text.indexOf(', forming')) };
    expect(calculatorPrefilter(unrelated)).toMatchObject({
      pass: false,
      reason: '3 numbers but no three related by + - * / within 100 tokens',
    });
    const two = { ...JOHNSON_1867, text: JOHNSON_1867.text.slice(0, JOHNSON_1867.text.indexOf(', leaving')) };
    expect(calculatorPrefilter(two)).toMatchObject({ pass: false, reason: '2 numbers (not counting years or dates), need 3' });
  });

  it('relates a percentage to a fraction (the paper\'s 400 / 1400 ≈ 29%)', () => {
    const [a, b, c] = findNumbers('Out of 1400 participants, 400 (or 29%) passed the test.');
    expect(relation(a, b, c)).toBe('400 / 1400 = 29%');
  });
});

describe('calendarPrefilter', () => {
  it('passes a document with a date and fails one without', () => {
    expect(calendarPrefilter(JOHNSON_1867)).toMatchObject({ pass: true, reason: 'document date 1867-01-01' });
    expect(calendarPrefilter({ id: 'x', text: JOHNSON_1867.text })).toMatchObject({ pass: false, kind: 'no_date', reason: 'no document date' });
  });
});

describe('translatePrefilter', () => {
  it('passes English text with a Spanish name in it', () => {
    expect(translatePrefilter(MEXICO_ANTHEM)).toMatchObject({ pass: true, reason: 'non-English span "Himno Nacional Mexicano"' });
  });

  it('fails English text without foreign spans, and a field list too thin to count as English', () => {
    expect(translatePrefilter(WASHINGTON_1790)).toMatchObject({ pass: false, reason: 'no non-English span' });
    expect(translatePrefilter(SPAIN_GOVERNMENT)).toMatchObject({
      pass: false,
      reason: 'not English text (function-word share 0.03 < 0.1)',
    });
  });
});

describe('qaPrefilter and dispatch', () => {
  it('passes a document naming an entity and fails one that names none', () => {
    expect(qaPrefilter(JOHNSON_1868)).toMatchObject({ pass: true, reason: 'entity "Charles A. Washburn"' });
    expect(qaPrefilter(WASHINGTON_1790)).toMatchObject({ pass: false, reason: 'no capitalised entity' });
  });

  it('dispatches by tool name; a tool without a pre-filter passes', () => {
    expect(prefilter('Calculator', JOHNSON_1868).pass).toBe(false);
    expect(prefilter('QA', JOHNSON_1868).pass).toBe(true);
    expect(prefilter('Weather', JOHNSON_1868)).toEqual({ pass: true, kind: 'no_prefilter', reason: 'no pre-filter' });
  });
});
