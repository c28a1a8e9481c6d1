// `baton init`: swarmforge.conf → .swarmforge/roles.tsv (and reviewers.tsv) and every role's mailbox, with
// .swarmforge/ excluded from git; then the mail the SwarmForge reference scripts left in
// their per-worktree mailboxes is imported into the roles' mailboxes (referenceImport.ts).
// No tmux and no worktrees (the launcher adds those).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { fsyncDir, mkdirSynced, renameSynced, writeFileSynced } from '../queue/durable.js';
import { ensureMailbox } from '../queue/mailbox.js';
import { readConfig, sharesRoot, type WindowConfig } from './config.js';
import { fail } from './errors.js';
import { mailboxOf, reviewersPathOf, rolesPathOf, sessionNameOf, SWARM_DIR_NAME, swarmDirOf, worktreePathOf } from './layout.js';
import { importReferenceMail, type ImportReport } from './referenceImport.js';
import { formatReviewers } from './reviewers.js';
import { formatRoles, type Role } from './roles.js';

/** The git top level of `dir`, or fails: Baton projects are git repositories. */
export function gitTopLevel(dir: string): string {
  try {
    return execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    fail('environment', `baton: not inside a git repository: '${dir}'`);
  }
}

/** The roles.tsv rows for the configured windows. */
export function rolesOf(root: string, windows: WindowConfig[]): Role[] {
  return windows.map((w) => ({
    role: w.role,
    worktreeName: w.worktree,
    worktreePath: sharesRoot(w.worktree) ? root : worktreePathOf(root, w.worktree),
    session: sessionNameOf(root),
    displayName: w.role,
    agent: w.agent,
    mode: w.mode,
  }));
}

/** Appends `pattern` (default `.swarmforge/`) to the repository's info/exclude once. */
export function excludeSwarmDir(root: string, pattern = `${SWARM_DIR_NAME}/`): void {
  const gitDir = execFileSync('git', ['rev-parse', '--git-common-dir'], { cwd: root, encoding: 'utf8' }).trim();
  const exclude = join(resolve(root, gitDir), 'info', 'exclude');
  const current = fs.existsSync(exclude) ? fs.readFileSync(exclude, 'utf8') : '';
  if (current.split('\n').some((l) => l.trim() === pattern || l.trim() === `/${pattern}`)) return;
  fs.mkdirSync(join(resolve(root, gitDir), 'info'), { recursive: true });
  fs.appendFileSync(exclude, `${current === '' || current.endsWith('\n') ? '' : '\n'}${pattern}\n`);
}

/** The windows of ROOT's swarmforge.conf (see readConfig). */
export function readWindows(root: string): WindowConfig[] {
  return readConfig(root).windows;
}

/** Publishes a runtime table under a temp name of this process: two inits at once each publish a whole table (the same one). */
function publishTable(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSynced(temp, text, false);
  renameSynced(temp, path);
}

/** Reads swarmforge.conf under the git top level of `cwd`, writes roles.tsv, reviewers.tsv and mailboxes; returns the roles (initProject without the import). */
export function initRolesAndMailboxes(cwd: string, extraWindows: WindowConfig[] = []): { root: string; roles: Role[] } {
  const root = gitTopLevel(cwd);
  const config = readConfig(root);
  const roles = rolesOf(root, withExtraWindows(config.windows, extraWindows));
  mkdirSynced(swarmDirOf(root));
  excludeSwarmDir(root);
  publishTable(rolesPathOf(root), formatRoles(roles));
  if (config.reviewers.length > 0 || fs.existsSync(reviewersPathOf(root))) publishTable(reviewersPathOf(root), formatReviewers(config.reviewers));
  for (const role of roles) ensureMailbox(mailboxOf(root, role.role));
  fsyncDir(swarmDirOf(root));
  return { root, roles };
}

/** What `baton init` did: ROOT, the roles, and the reference mail it imported or left in place. */
export interface InitResult {
  root: string;
  roles: Role[];
  imports: ImportReport;
}

/** The configured windows plus `extra` ones (roles a command adds, like `baton run up`'s controller) whose role the configuration does not already have. */
export function withExtraWindows(windows: WindowConfig[], extra: WindowConfig[]): WindowConfig[] {
  return [...windows, ...extra.filter((e) => !windows.some((w) => w.role === e.role))];
}

/** `baton init` (and the first step of `baton up`): roles.tsv and mailboxes, then the import of reference-layout mail. */
export async function initProject(cwd: string, extraWindows: WindowConfig[] = []): Promise<InitResult> {
  const { root, roles } = initRolesAndMailboxes(cwd, extraWindows);
  return { root, roles, imports: await importReferenceMail(root, roles) };
}
