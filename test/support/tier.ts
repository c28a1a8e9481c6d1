// Sizes of the stochastic tests (fuzz, concurrency, soak, notification overflow). `npm test`
// runs each at its short size; `npm run soak` (scripts/soak.mjs) sets BATON_TEST_TIER=full
// and runs them at their full size. A test's own size variable (e.g. BATON_FUZZ_DRAFTS)
// wins over both, to replay or stretch one test.

/** The tier of this run: `full` under `npm run soak`, else `short`. */
export const TIER = tierOf(process.env.BATON_TEST_TIER);

function tierOf(value: string | undefined): 'short' | 'full' {
  if (value === undefined || value === '' || value === 'short') return 'short';
  if (value === 'full') return 'full';
  throw new Error(`BATON_TEST_TIER must be short or full, not ${JSON.stringify(value)}`);
}

/** The value for this run's tier. */
export function byTier<T>(values: { short: T; full: T }): T {
  return values[TIER];
}

/** The size in `variable` when set (a positive integer, or this throws), else the tier's size. */
export function sizeFrom(variable: string, sizes: { short: number; full: number }): number {
  const raw = process.env[variable];
  if (raw === undefined || raw === '') return byTier(sizes);
  if (!/^[1-9]\d*$/.test(raw))
    throw new Error(`${variable} must be a positive integer, not ${JSON.stringify(raw)}`);
  return Number(raw);
}

/**
 * The cases this run takes: every case in the full tier; in the short tier those `short`
 * keeps (a few that stand for the rest: the first and last steps of a crash matrix, one
 * refused status per action). `npm test` stays within its budget and `npm run soak` still
 * runs every case.
 */
export function casesOf<T>(cases: readonly T[], short: (c: T, index: number) => boolean): T[] {
  return TIER === 'full' ? [...cases] : cases.filter(short);
}

/** `describe` in the full tier only (`npm run soak`); nothing at all in `npm test`. */
export function describeInSoak(title: string, body: (this: Mocha.Suite) => void): void {
  if (TIER === 'full') describe(title, body);
}

/**
 * `it` in the full tier only: an end-to-end repeat of a behaviour that a faster test of
 * `npm test` already shows (`covered` names it, so the short run keeps one case of each).
 */
export function itInSoak(
  title: string,
  covered: string,
  body: (this: Mocha.Context) => Promise<void>,
): void {
  if (TIER === 'full') it(`${title} [soak; npm test: ${covered}]`, body);
}
