// Mail in the SwarmForge reference scripts' layout, for tests of the import: the four-role
// pack's stopped swarm (fixtures/reference-mail/four-roles, with where each item must go)
// and single legacy-format items written where a test needs them.
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { mailboxOf, referenceMailboxOf, worktreePathOf } from '../../lib/project/layout.js';
import { fixtureLines, fixturePath } from './fixtures.js';

/** A reference folder a pending item can wait in. */
export type ReferenceFolder = 'outbox' | 'inbox/new' | 'inbox/in_process';

/** The worktree path of a worktree name of swarmforge.conf: ROOT for master/none, else ROOT/.worktrees/<name>. */
export function worktreeOf(root: string, name: string): string {
  return name === 'master' || name === 'none' ? root : worktreePathOf(root, name);
}

/** The reference mailbox folder (`<worktree>/.swarmforge/handoffs/<folder>`) of a worktree path. */
export function referenceFolderOf(
  worktreePath: string,
  folder: ReferenceFolder | 'inbox/completed' | 'sent' | 'failed',
): string {
  const box = referenceMailboxOf(worktreePath);
  const byName = {
    outbox: box.outbox,
    'inbox/new': box.inboxNew,
    'inbox/in_process': box.inProcess,
    'inbox/completed': box.completed,
    sent: box.sent,
    failed: box.failed,
  };
  return byName[folder];
}

/**
 * Copies the four-role pack's reference mail of worktree `name` (master, coder, review, qa)
 * byte for byte into `<worktree>/.swarmforge/handoffs/` of the project at `root` (folders
 * created as needed; a real git worktree, if wanted, must exist first); returns the paths written.
 */
export function writeFourRolesReferenceMail(root: string, name: string): string[] {
  const source = fixturePath('reference-mail', 'four-roles', name);
  const target = referenceMailboxOf(worktreeOf(root, name)).dir;
  const written: string[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(join(source, rel), { withFileTypes: true })) {
      const path = join(rel, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        fs.mkdirSync(join(target, rel), { recursive: true, mode: 0o700 });
        fs.copyFileSync(join(source, path), join(target, path));
        fs.chmodSync(join(target, path), 0o600);
        written.push(join(target, path));
      }
    }
  };
  walk('');
  return written.sort();
}

/** Where one pending item of the four-role fixture must end up. */
export interface ExpectedImport {
  /** The original in the reference mailbox. */
  from: string;
  role: string;
  /** The path of its copy in the role's mailbox. */
  to: string;
  /** The original after the import: `<from>.imported`. */
  marked: string;
  /** The fixture file the original was copied from. */
  fixture: string;
}

/** The imports the four-role fixture's pending mail must give in the project at `root`, in fixture order. */
export function fourRolesImports(root: string): ExpectedImport[] {
  return fixtureLines('reference-mail', 'four-roles.imports.tsv')
    .filter((l) => !l.startsWith('#'))
    .map((line) => {
      const [worktree, rel, role, folder] = line.split('\t') as [string, string, string, string];
      const from = join(referenceMailboxOf(worktreeOf(root, worktree)).dir, rel);
      const box = mailboxOf(root, role);
      const to = join(folder === 'outbox' ? box.outbox : box.inboxNew, rel.split('/').pop()!);
      return {
        from,
        role,
        to,
        marked: `${from}.imported`,
        fixture: fixturePath('reference-mail', 'four-roles', worktree, rel),
      };
    });
}

/** Copies a fixture of fixtures/reference-mail/problems/ into a reference folder under its queue name; returns its path. */
export function placeProblemItem(
  worktreePath: string,
  folder: ReferenceFolder,
  fixture: string,
  name: string,
): string {
  const path = join(referenceFolderOf(worktreePath, folder), name);
  fs.mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  fs.copyFileSync(fixturePath('reference-mail', 'problems', fixture), path);
  fs.chmodSync(path, 0o600);
  return path;
}

/** Writes one item in the legacy format (`key: value` lines, a blank line, the body) into `dir`; returns its path. */
export function placeLegacyItem(
  dir: string,
  name: string,
  headers: Record<string, string>,
  body = 'Re-read your role and constitution.\n\nbody\n',
): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, name);
  fs.writeFileSync(
    path,
    `${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\n`)
      .join('')}\n${body}`,
    { mode: 0o600 },
  );
  return path;
}
