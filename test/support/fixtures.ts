// The shared test data in the repository's fixtures/ folder: swarmforge.conf variants,
// a SwarmForge pack, drafts, legacy and unusable handoffs. Files are read byte for byte
// (fixtures/.gitattributes keeps git from rewriting them).
import * as fs from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The fixtures/ folder. */
export const FIXTURES_DIR = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'fixtures',
);

/** The absolute path of a fixture, e.g. fixturePath('drafts', 'invalid', 'recipients.txt'). */
export function fixturePath(...parts: string[]): string {
  const path = join(FIXTURES_DIR, ...parts);
  if (!fs.existsSync(path)) throw new Error(`no fixture ${path}`);
  return path;
}

/** A fixture's bytes. */
export function fixtureBytes(...parts: string[]): Buffer {
  return fs.readFileSync(fixturePath(...parts));
}

/** A fixture's text (UTF-8). */
export function fixtureText(...parts: string[]): string {
  return fixtureBytes(...parts).toString('utf8');
}

/** The lines of a fixture that lists one entry per line (e.g. a draft's expected `.errors`). */
export function fixtureLines(...parts: string[]): string[] {
  return fixtureText(...parts)
    .split('\n')
    .filter((line) => line !== '');
}

/** The lines of a fixture that may be absent (e.g. a draft's expected `.hints`); none when it is. */
export function fixtureLinesIfAny(...parts: string[]): string[] {
  return fs.existsSync(join(FIXTURES_DIR, ...parts)) ? fixtureLines(...parts) : [];
}

/** Copies a fixture to `path` as a queue file (mode 0600), byte for byte; returns `path`. */
export function copyFixture(path: string, ...parts: string[]): string {
  fs.copyFileSync(fixturePath(...parts), path);
  fs.chmodSync(path, 0o600);
  return path;
}
