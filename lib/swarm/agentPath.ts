// Checking that a role's agent program exists before anything starts.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** The absolute path of `program` (a name searched on PATH, or a path), or undefined. */
export function findProgram(program: string, pathVar = process.env.PATH ?? ''): string | undefined {
  const candidates = program.includes('/')
    ? [program]
    : pathVar
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, program));
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return isAbsolute(candidate) ? candidate : join(process.cwd(), candidate);
    } catch {
      // not this one
    }
  }
  return undefined;
}
