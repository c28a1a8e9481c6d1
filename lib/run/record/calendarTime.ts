// Times in run records (workflow.json, lease.json): the schema's pattern gives the form
// `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, but a pattern cannot say that a month has 12 months
// or that February 2026 has 28 days, so `2026-13-45T25:61:61Z` passed. This is the
// calendar check the schema cannot make; the record's cross-field check applies it to
// every time field, naming the field.
const FORM = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/;

/** Days of each month of a common year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** True for a Gregorian leap year. */
function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/**
 * True when `text` has the record's time form and names a real instant (no month 13, no 25:61:61,
 * no 30 February; no leap second). Counted by arithmetic: through a Date, year 0000 (a leap year
 * of the proleptic calendar, as Date itself has it) lost its 29 February to Date.UTC's reading of
 * years 0-99 as 1900-1999.
 */
export function isCalendarTime(text: string): boolean {
  const m = FORM.exec(text);
  if (m === null) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59)
    return false;
  const days = month === 2 && isLeapYear(year) ? 29 : MONTH_DAYS[month - 1]!;
  return day >= 1 && day <= days;
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
