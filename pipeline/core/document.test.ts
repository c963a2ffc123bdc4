import { describe, expect, it } from 'vitest';
import { isDocumentDate } from './document.ts';
import { todayFor } from './tools/calendar/calendar.ts';

describe('isDocumentDate: the one check of Doc.date (corpus reader, the explorer\'s date field)', () => {
  it('takes a real day YYYY-MM-DD and a year alone (the SOTU sample\'s "1867")', () => {
    for (const date of ['2023-01-30', '2024-02-29', '1867', '0999']) expect(isDocumentDate(date), date).toBe(true);
  });

  it('refuses impossible days, other shapes and time parts', () => {
    for (const date of ['2023-02-29', '2023-13-01', '2023-1-30', '1867-05', '67', '30/01/2023', '2023-01-30T10:00:00Z', ' 1867', '']) {
      expect(isDocumentDate(date), date).toBe(false);
    }
  });

  it('every date it takes, the Calendar answers for: a year alone with the year, no made-up day', () => {
    expect(todayFor('1867')).toEqual({ ok: true, value: 'This year is 1867.' });
    expect(todayFor('2023-01-30')).toEqual({ ok: true, value: 'Today is Monday, January 30, 2023.' });
  });
});
