// `baton init`: swarmforge.conf → .swarmforge/roles.tsv (and reviewers.tsv) and every role's
// mailbox, with .swarmforge/ excluded from git; with a roster (swarmforge/nodes.conf, checked
// before anything is written) also nodes.tsv, and with --node NAME the local node's name.
// Then the mail the SwarmForge reference scripts left in their per-worktree mailboxes is
// imported into the roles' mailboxes (referenceImport.ts).
// No tmux and no worktrees (the launcher adds those).
import * as fs from 'node:fs';
import { fsyncDir, mkdirSynced, publishWhole } from '../fsx/durable.js';
import { ensureMailbox } from '../queue/index.js';
import { readConfig, sharesRoot, type WindowConfig } from '../handoff/config.js';
import { fail } from '../fsx/commandFailure.js';
import { gitAnswer } from '../proc/git.js';
import { excludeSwarmDir } from '../project/gitExclude.js';
import {
  bridgePathsOf,
  mailboxOf,
  reviewersPathOf,
  rolesPathOf,
  sessionNameOf,
  swarmDirOf,
  worktreePathOf,
} from '../project/layout.js';
import { importReferenceMail, type ImportReport } from './referenceImport.js';
import { formatReviewers } from '../handoff/reviewers.js';
import { formatRoles, type Role } from '../handoff/roles.js';
import { formatNodesTable, knownLocalNodeOf, readRoster, type Roster } from '../handoff/roster.js';

/** The git top level of `dir`, or fails: Baton projects are git repositories. */
export function gitTopLevel(dir: string): string {
  return (
    gitAnswer(dir, ['rev-parse', '--show-toplevel']) ??
    fail('environment', `baton: not inside a git repository: '${dir}'`)
  );
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

/** The windows of ROOT's swarmforge.conf (see readConfig). */
export function readWindows(root: string): WindowConfig[] {
  return readConfig(root).windows;
}

/**
 * Publishes a runtime table under a temp name of this process: two inits at once each publish a
 * whole table (the same one).
 */
function publishTable(path: string, text: string): void {
  publishWhole(path, text, `${path}.${process.pid}.tmp`);
}

/** What `baton init` is told besides the project. */
export interface InitOptions {
  /** `--node NAME`: the local node to record in ROOT/.swarmforge/node (a node of the roster). */
  node?: string;
}

/**
 * What init wrote: ROOT, the roles, and with a roster the roster and the local node (undefined
 * while unknown).
 */
export interface InitTables {
  root: string;
  roles: Role[];
  roster?: Roster;
  node?: string;
}

/**
 * Refuses `--node NAME` without a roster, or with a name the roster does not have (before anything
 * is written).
 */
function checkNodeOption(root: string, roster: Roster | undefined, node: string): void {
  const { roster: rosterPath } = bridgePathsOf(root);
  if (roster === undefined)
    fail('usage', `baton: --node needs a roster, and there is no '${rosterPath}'`);
  if (!roster.nodes.has(node))
    fail(
      'usage',
      `baton: node '${node}' is not in '${rosterPath}' (its nodes: ` +
        `${[...roster.nodes.keys()].join(', ')})`,
    );
}

/**
 * Writes nodes.tsv from the roster, or removes one left from a roster that is gone; then the local
 * node's name when given.
 */
function publishNodes(root: string, roster: Roster | undefined, node: string | undefined): void {
  const paths = bridgePathsOf(root);
  if (roster === undefined) fs.rmSync(paths.nodesTable, { force: true });
  else publishTable(paths.nodesTable, formatNodesTable(roster));
  if (node !== undefined) publishTable(paths.node, `${node}\n`);
}

/**
 * Reads swarmforge.conf (and nodes.conf) under the git top level of `cwd`, writes roles.tsv,
 * reviewers.tsv, nodes.tsv, the node file and mailboxes (initProject without the import).
 */
export function initRolesAndMailboxes(
  cwd: string,
  extraWindows: WindowConfig[] = [],
  options: InitOptions = {},
): InitTables {
  const root = gitTopLevel(cwd);
  const config = readConfig(root);
  const roster = readRoster(root);
  if (options.node !== undefined) checkNodeOption(root, roster, options.node);
  const roles = rolesOf(root, withExtraWindows(config.windows, extraWindows));
  mkdirSynced(swarmDirOf(root));
  excludeSwarmDir(root);
  publishTable(rolesPathOf(root), formatRoles(roles));
  if (config.reviewers.length > 0 || fs.existsSync(reviewersPathOf(root)))
    publishTable(reviewersPathOf(root), formatReviewers(config.reviewers));
  publishNodes(root, roster, options.node);
  for (const role of roles) ensureMailbox(mailboxOf(root, role.role));
  fsyncDir(swarmDirOf(root));
  if (roster === undefined) return { root, roles };
  return { root, roles, roster, node: knownLocalNodeOf(root, roster) };
}

/**
 * What `baton init` did: ROOT, the roles, the roster and local node when there is a roster, and the
 * reference mail it imported or left in place.
 */
export interface InitResult extends InitTables {
  imports: ImportReport;
}

/**
 * The configured windows plus `extra` ones (roles a command adds, like `baton run up`'s controller)
 * whose role the configuration does not already have.
 */
export function withExtraWindows(windows: WindowConfig[], extra: WindowConfig[]): WindowConfig[] {
  return [...windows, ...extra.filter((e) => !windows.some((w) => w.role === e.role))];
}

/**
 * `baton init` (and the first step of `baton up`): roles.tsv and mailboxes, then the import of
 * reference-layout mail.
 */
export async function initProject(
  cwd: string,
  extraWindows: WindowConfig[] = [],
  options: InitOptions = {},
): Promise<InitResult> {
  const tables = initRolesAndMailboxes(cwd, extraWindows, options);
  return { ...tables, imports: await importReferenceMail(tables.root, tables.roles) };
}
