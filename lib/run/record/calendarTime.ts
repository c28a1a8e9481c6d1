// Times in run records (workflow.json, lease.json): the schema's pattern gives the form
// `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, but a pattern cannot say that a month has 12 months
// or that February 2026 has 28 days, so `2026-13-45T25:61:61Z` passed. This is the
// calendar check the schema cannot make; the record's cross-field check applies it to
// every time field, naming the field.
const FORM = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/;

/**
 * True when `text` has the record's time form and names a real instant (no month 13, no 25:61:61,
 * no 30 February; no leap second).
 */
export function isCalendarTime(text: string): boolean {
  const m = FORM.exec(text);
  if (m === null) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC treats years 0-99 as 1900-1999; setUTCFullYear keeps the year as written.
  date.setUTCFullYear(year);
  return day >= 1 && date.getUTCDate() === day && date.getUTCMonth() === month - 1;
}

/**
 * `<field>: '<value>' is not a real date and time` for each named time that is not one (null values
 * skipped).
 */
export function calendarTimeProblems(fields: readonly [string, string | null][]): string[] {
  return fields
    .filter(([, v]) => v !== null && !isCalendarTime(v))
    .map(([name, v]) => `${name} '${v}' is not a real date and time`);
}
