// Personas (docs/review.md §7, runtime.md §12.5): the text a teacher puts first in every
// reviewer prompt. Resolved committed-first: `ROOT/swarmforge/profiles/<name>/SOUL.md` (in
// the repository, authoritative for the whole team), else `~/.baton/profiles/<name>/SOUL.md`
// (this machine only), else the persona Baton ships (`personas/<name>.md` in the package),
// else a one-line default. A persona file may start with front matter (read through the one
// gray-matter wrapper); the prompt gets its Markdown body. A symlink is never followed (a
// committed link must not send some other file of this machine to a reviewer).
import * as fs from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { personaPathOf } from '../project/layout.js';
import { readMarkdownFrontMatter } from '../findings/frontMatter.js';
import { isCode } from '../fsx/absent.js';

/** The persona names the review stage uses. */
export const PERSONA_NAMES = [
  'teacher-cto',
  'teacher-coo',
  'principal',
  'student-worker',
  'student-reviewer',
  'student-validator',
] as const;

/** Where a persona came from. */
export type PersonaSource = 'committed' | 'machine' | 'shipped' | 'default';

/**
 * A resolved persona: its text, the file it came from (none for the default), and the files passed
 * over (symlinks), one line each.
 */
export interface Persona {
  name: string;
  text: string;
  source: PersonaSource;
  path?: string;
  ignored: string[];
}

const DEFAULTS: Record<string, string> = {
  'teacher-cto':
    'You are teacher-cto, the CTO reviewer: you judge ' +
    'correctness, security and edge cases, and you cite what you ' +
    'find.',
  'teacher-coo':
    'You are teacher-coo, the COO reviewer: you judge whether the ' +
    'task is done as asked, completely, with its acceptance ' +
    'criteria met.',
  principal: 'You are the principal: you score and dispose reviewed work.',
};

/** `~/.baton/profiles/<name>/SOUL.md` under `home`. */
export function machinePersonaPathOf(home: string, name: string): string {
  return join(home, '.baton', 'profiles', name, 'SOUL.md');
}

/**
 * How far above this module's folder the package's `personas/` is looked for: lib/admin
 * from source, dist/bin or dist/bin/chunks when bundled.
 */
const MAX_LEVELS_UP = 4;

/** The persona file Baton ships for `name` (`<package>/personas/<name>.md`), if there is one. */
export function shippedPersonaPathOf(name: string): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level <= MAX_LEVELS_UP; level++, dir = dirname(dir)) {
    const path = join(dir, 'personas', `${name}.md`);
    if (fs.existsSync(path)) return path;
  }
  return undefined;
}

/** The one-line persona used when no persona file exists. */
export function defaultPersonaOf(name: string): string {
  return DEFAULTS[name] ?? `You are ${name}.`;
}

/**
 * A file's text; undefined when it does not exist, 'symlink' for a symlink (refused, never
 * followed).
 */
function readPersonaFile(path: string): string | 'symlink' | undefined {
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (err) {
    if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) return undefined;
    if (isCode(err, 'ELOOP')) return 'symlink';
    throw err;
  }
  try {
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The Markdown body of a SOUL.md (its front matter dropped; the whole text when the front matter is
 * unreadable).
 */
async function personaBody(text: string): Promise<string> {
  try {
    return (await readMarkdownFrontMatter(text)).content.trim();
  } catch {
    return text.trim();
  }
}

/**
 * Resolves persona `name` for the project at `root` (committed, then machine-local, then
 * shipped, then the default).
 */
export async function personaOf(
  root: string,
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Persona> {
  const shipped = shippedPersonaPathOf(name);
  const places: [PersonaSource, string][] = [
    ['committed', personaPathOf(root, name)],
    ['machine', machinePersonaPathOf(env.HOME || homedir(), name)],
    ...(shipped ? [['shipped', shipped] as [PersonaSource, string]] : []),
  ];
  const ignored: string[] = [];
  for (const [source, path] of places) {
    const text = readPersonaFile(path);
    if (text === 'symlink')
      ignored.push(`persona '${path}' is a symlink: ignored (never followed)`);
    if (text === undefined || text === 'symlink') continue;
    const body = await personaBody(text);
    if (body) return { name, text: body, source, path, ignored };
  }
  return { name, text: defaultPersonaOf(name), source: 'default', ignored };
}
