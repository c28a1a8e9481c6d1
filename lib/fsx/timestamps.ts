// ISO-8601 UTC timestamps with milliseconds (`2026-12-04T16:00:00.000Z`), the format of every
// timestamp Baton writes, exactly as Date.prototype.toISOString writes them. They are built
// from the date's UTC fields: a process's first toISOString loads the time zone data (ICU
// reads /etc/localtime and its links), 0.2 ms of every agent command that stamps a header,
// and UTC needs none of it. test/fsx/timestamps.test.ts compares the two across years 0-9999.

/** `n` as two digits. */
const twoDigits = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/** ISO-8601 UTC with milliseconds, as `when.toISOString()` (a RangeError for an invalid date). */
export function isoOf(when: Date): string {
  const year = when.getUTCFullYear();
  // Years outside 0-9999 take toISOString's extended form (±YYYYYY), and an invalid date its
  // RangeError: neither is a time Baton stamps.
  if (!(year >= 0 && year <= 9999)) return when.toISOString();
  const ms = when.getUTCMilliseconds();
  return (
    `${String(year).padStart(4, '0')}-${twoDigits(when.getUTCMonth() + 1)}-` +
    `${twoDigits(when.getUTCDate())}T${twoDigits(when.getUTCHours())}:` +
    `${twoDigits(when.getUTCMinutes())}:${twoDigits(when.getUTCSeconds())}.` +
    `${ms < 100 ? (ms < 10 ? '00' : '0') : ''}${ms}Z`
  );
}
