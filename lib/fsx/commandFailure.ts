// Typed failures of every Baton command (agent commands, stages, the runtime). lib/cli maps
// each kind to its exit code and prints the lines on stderr; nothing below lib/cli decides
// exit codes or prints.

/** usage/environment/state → 1, invalid/refused → 2, temporary → 75. */
export type FailureKind = 'usage' | 'environment' | 'state' | 'invalid' | 'refused' | 'temporary';

/** A command's failure: stderr lines plus the kind that decides the exit code. */
export class CommandFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly lines: string[],
  ) {
    super(lines[0] ?? kind);
  }
}

/** Shorthand for throwing a CommandFailure. */
export function fail(kind: FailureKind, ...lines: string[]): never {
  throw new CommandFailure(kind, lines);
}
