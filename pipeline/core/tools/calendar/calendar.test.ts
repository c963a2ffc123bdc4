import { describe, expect, it } from 'vitest';
import { Calendar, parseIsoDay, todayFor } from './calendar.ts';

describe('Calendar', () => {
  const calendar = new Calendar();
  it('renders the document date as in the paper', async () => {
    expect(await calendar.run('', { doc: { id: 'a', date: '2023-01-30' } })).toEqual({
      ok: true,
      value: 'Today is Monday, January 30, 2023.',
    });
  });
  it('gets weekdays right across centuries (SOTU dates)', () => {
    expect(todayFor('1790-01-08')).toEqual({ ok: true, value: 'Today is Friday, January 8, 1790.' });
    expect(todayFor('1867')).toEqual({ ok: true, value: 'This year is 1867.' }); // only the year is known: no day made up
    expect(todayFor('2000-02-29')).toEqual({ ok: true, value: 'Today is Tuesday, February 29, 2000.' });
    expect(todayFor('2021-04-28')).toEqual({ ok: true, value: 'Today is Wednesday, April 28, 2021.' });
  });
  it('reads the calendar day written in a timestamp, whatever its offset', () => {
    expect(todayFor('2023-01-30T23:30:00-05:00')).toEqual({ ok: true, value: 'Today is Monday, January 30, 2023.' });
    expect(todayFor('2023-01-30T00:10:00+09:00')).toEqual({ ok: true, value: 'Today is Monday, January 30, 2023.' });
  });
  it('is an error without a date', async () => {
    expect(await calendar.run('', { doc: { id: 'a' } })).toEqual({ ok: false, error: 'no date for this document' });
    expect(todayFor('  ')).toEqual({ ok: false, error: 'no date for this document' });
  });
  it('rejects malformed and impossible dates, and any argument', async () => {
    expect(todayFor('2023-02-30').ok).toBe(false);
    expect(todayFor('30/01/2023').ok).toBe(false);
    expect(todayFor('2023-01-30; rm -rf /').ok).toBe(false);
    expect(parseIsoDay('0099-03-01')?.getUTCFullYear()).toBe(99);
    expect(await calendar.run('tomorrow', { doc: { id: 'a', date: '2023-01-30' } })).toEqual({
      ok: false,
      error: 'Calendar takes no argument',
    });
  });
});
