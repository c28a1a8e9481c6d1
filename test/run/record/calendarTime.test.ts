// lib/run/calendarTime: the calendar check the record schema's time pattern cannot make.
import assert from 'node:assert/strict';
import { calendarTimeProblems, isCalendarTime } from '../../../lib/run/record/calendarTime.js';

describe('lib/run/record/calendarTime', () => {
  it('accepts real instants in the record form, with or without a fraction, leap days of leap years', () => {
    for (const t of [
      '2026-12-02T00:32:52Z',
      '2026-12-02T00:32:52.123Z',
      '2024-02-29T23:59:59.999999999Z',
      '2000-02-29T00:00:00Z',
      '0001-01-01T00:00:00Z',
      '0099-12-31T12:00:00Z',
    ]) {
      assert.equal(isCalendarTime(t), true, t);
    }
  });

  it('refuses impossible months, days, hours, minutes and seconds, leap days of common years, and other forms', () => {
    for (const t of [
      '2026-13-45T25:61:61Z',
      '2026-00-10T00:00:00Z',
      '2026-01-00T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:60:00Z',
      '2026-01-01T00:00:60Z',
      '2026-01-01 00:00:00Z',
      '2026-01-01T00:00:00+00:00',
      '',
    ]) {
      assert.equal(isCalendarTime(t), false, t);
    }
  });

  it('agrees with the calendar of Date on every day of years around the edges (leap rules)', () => {
    // The check counts days itself; Date (with the year set as written) is the reference.
    const viaDate = (y: number, m: number, d: number) => {
      const date = new Date(Date.UTC(2000, m - 1, d));
      date.setUTCFullYear(y, m - 1, d);
      return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
    };
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    for (const year of [0, 4, 99, 100, 400, 1900, 2000, 2023, 2024, 2100, 2400, 9999])
      for (let month = 0; month <= 13; month++)
        for (let day = 0; day <= 32; day++) {
          const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T12:00:00Z`;
          const real = month >= 1 && month <= 12 && day >= 1 && viaDate(year, month, day);
          assert.equal(isCalendarTime(text), real, text);
        }
  });

  it('names each field that is not a real time, and skips nulls', () => {
    assert.deepEqual(
      calendarTimeProblems([
        ['/a', null],
        ['/b', '2026-01-01T00:00:00Z'],
        ['/c', '2026-13-01T00:00:00Z'],
      ]),
      ["/c '2026-13-01T00:00:00Z' is not a real date and time"],
    );
  });
});
