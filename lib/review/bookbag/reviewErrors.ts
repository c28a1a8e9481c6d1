// The review stage's failures (exit 2 through lib/cli/failure.ts; an interrupted leaf 128 + n), in
// a module of
// their own so that mapping them costs the other commands nothing at start-up.

/** A bookbag that cannot be used: missing, not valid against the schema, or inconsistent. */
export class BookbagProblem extends Error {
  constructor(
    readonly kind: 'missing' | 'invalid' | 'inconsistent',
    readonly path: string,
    readonly problems: string[],
  ) {
    super(`${kind} bookbag '${path}': ${problems[0] ?? kind}`);
  }
}

/** A change the bookbag's state does not allow (nothing written). */
export class ReviewRefusal extends Error {}

/** A malformed finding or findings document. */
export class FindingsError extends Error {}

/**
 * A leaf stopped by a signal it received (SIGTERM, SIGINT, SIGHUP), after its cleanup; ends with
 * 128 + the signal's number.
 */
export class LeafInterrupted extends Error {
  constructor(
    readonly signal: NodeJS.Signals,
    readonly detail: string,
  ) {
    super(`interrupted by ${signal}: ${detail}`);
  }
}
