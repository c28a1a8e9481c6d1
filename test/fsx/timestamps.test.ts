// lib/fsx/timestamps: isoOf writes what Date.prototype.toISOString writes, for every kind of
// instant, without loading the time zone data.
import assert from 'node:assert/strict';
import { isoOf } from '../../lib/fsx/timestamps.js';

/** The instant of a UTC year, month, day and time (years 0-99 as themselves, not 19xx). */
function utc(year: number, ...rest: [number, number, number, number, number, number]): Date {
  const date = new Date(Date.UTC(2000, ...rest));
  date.setUTCFullYear(year);
  return date;
}

describe('lib/fsx/timestamps', () => {
  it('isoOf equals toISOString across years 0-9999, every month, and each field’s edges', () => {
    const dates = [
      new Date(0),
      new Date(),
      utc(0, 0, 1, 0, 0, 0, 0),
      utc(9999, 11, 31, 23, 59, 59, 999),
      utc(2026, 11, 4, 9, 5, 7, 3),
      utc(2024, 1, 29, 12, 0, 0, 40),
    ];
    for (let i = 0; i < 5000; i++)
      dates.push(
        new Date(Date.UTC(0, 0, 1) + Math.random() * (Date.UTC(10000, 0, 1) - Date.UTC(0, 0, 1))),
      );
    for (let year = 0; year < 10000; year += 37)
      for (let month = 0; month < 12; month++) dates.push(utc(year, month, 1, 0, 0, 0, month * 83));
    for (const date of dates) assert.equal(isoOf(date), date.toISOString(), String(date.getTime()));
  });

  it('years outside 0-9999 take the extended form, and an invalid date throws as toISOString does', () => {
    for (const year of [-1, -5000, 10000, 200000]) {
      const date = utc(year, 0, 1, 0, 0, 0, 0);
      assert.equal(isoOf(date), date.toISOString());
    }
    assert.throws(() => isoOf(new Date(Number.NaN)), RangeError);
  });
});
