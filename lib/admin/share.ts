// `baton share --group G`: shares a project with agents that run as another OS user in group G,
// so that the owner's records cannot be written from their panes (docs/runtime.md, "A hard
// boundary"). The parts, each given group G:
//
//   part                          folders  files   why
//   ROOT's work tree              +g+rwXs  +g+rw   agents of a `master` window work in it
//   .swarmforge                   2750     0640    roles, panes, prompts, hook settings: read
//   .swarmforge/bin, prompts      2750     0640    the command links and prompts: read
//   .swarmforge/handoffs          2770     0640    the mailboxes: agents queue, claim, finish
//   .swarmforge/agents            2770     0640    each role's observation, its hooks write
//   .swarmforge/reviews           2770     0640    bookbags and verdicts, `baton review` writes
//   .swarmforge/runs (each run)   2750     0640    the records: read, never written by agents
//   .swarmforge/runs/*/artifacts  3770     0640    `baton run reply` copies replies (sticky)
//   git dir, .worktrees           +g+rwXs  +g+rw   agents edit and commit (core.sharedRepository)
//
// What is not listed (daemon/, launching/, gc-trash/, the bridge's files) stays the owner's
// alone. Afterwards Baton keeps new files and folders shared by the folder rule
// (lib/fsx/sharedFolders.ts). Re-running changes only what drifted (and so finishes a share that
// was killed midway); --dry-run changes nothing.
import * as fs from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fail } from '../fsx/commandFailure.js';
import { crashPoint } from '../fsx/crash.js';
import { isCode } from '../fsx/absent.js';
import { printable } from '../fsx/printable.js';
import { gitAnswer, gitCommonDirOf, runGit } from '../proc/git.js';
import { accountIdOf } from '../proc/osAccounts.js';
import {
  agentPromptPathOf,
  agentsDirOf,
  commandDirOf,
  handoffsDirOf,
  reviewPathsOf,
  runsDirOf,
  SWARM_DIR_NAME,
  WORKTREES_DIR_NAME,
} from '../project/layout.js';

/** How a part's modes are set: exact modes, or bits added to what is there. */
type ModeRule =
  | { kind: 'exact'; folder: number; file: number; artifacts?: number }
  | { kind: 'add'; folder: number; file: number };

/** One part of the project to share. */
interface SharePart {
  /** Relative to ROOT ('' for ROOT itself). */
  path: string;
  rule: ModeRule;
  /** Walk everything below (else the folder and the files directly in it). */
  deep: boolean;
  /** Create the folder when missing (the agents will write there). */
  create: boolean;
  /** Names directly in it left to their own parts. */
  skip?: string[];
}

const READ: ModeRule = { kind: 'exact', folder: 0o2750, file: 0o640 };
const WRITE: ModeRule = { kind: 'exact', folder: 0o2770, file: 0o640 };
const RUNS: ModeRule = { kind: 'exact', folder: 0o2750, file: 0o640, artifacts: 0o3770 };
const GIT: ModeRule = { kind: 'add', folder: 0o2070, file: 0o060 };

/** The parts, in the order shared (parents first). */
function partsOf(root: string): SharePart[] {
  const at = (path: string) => relative(root, path);
  const gitDir = at(gitCommonDirOf(root));
  const own = [SWARM_DIR_NAME, WORKTREES_DIR_NAME, gitDir];
  const reviews = dirname(reviewPathsOf(root, {}).teachers);
  return [
    { path: '', rule: GIT, deep: true, create: false, skip: own },
    { path: SWARM_DIR_NAME, rule: READ, deep: false, create: true },
    { path: at(commandDirOf(root)), rule: READ, deep: false, create: false },
    { path: at(dirname(agentPromptPathOf(root, 'x'))), rule: READ, deep: true, create: false },
    { path: at(handoffsDirOf(root)), rule: WRITE, deep: true, create: true },
    { path: at(agentsDirOf(root)), rule: WRITE, deep: true, create: true },
    { path: at(reviews), rule: WRITE, deep: true, create: true },
    { path: at(runsDirOf(root)), rule: RUNS, deep: true, create: true },
    { path: gitDir, rule: GIT, deep: true, create: false },
    { path: WORKTREES_DIR_NAME, rule: GIT, deep: true, create: false },
  ];
}

/** What sharing one part changed (or would change). */
export interface SharedPart {
  path: string;
  /** Entries whose group or mode was (or would be) changed. */
  changed: number;
  /** Entries looked at. */
  entries: number;
}

/** What `baton share` did. */
export interface ShareReport {
  group: string;
  gid: number;
  dryRun: boolean;
  parts: SharedPart[];
}

/** The gid of group `name` (a name or a number), from the system's group database. */
export function gidOf(name: string): number {
  const gid = accountIdOf('group', name);
  if (gid === undefined)
    fail('usage', `baton share: no group '${printable(name)}' (make it with groupadd)`);
  return gid;
}

/** The mode `rule` gives an entry of mode `mode` (a folder or not; a run's artifacts/). */
function modeBy(rule: ModeRule, mode: number, folder: boolean, artifacts: boolean): number {
  const perms = mode & 0o7777;
  if (rule.kind === 'add') {
    const userX = folder ? 0 : (perms & 0o100) >> 3;
    return perms | (folder ? rule.folder : rule.file | userX);
  }
  if (!folder) return rule.file | (perms & 0o100 ? 0o110 : 0);
  return artifacts && rule.artifacts !== undefined ? rule.artifacts : rule.folder;
}

/** Gives one entry group `gid` and its mode by `rule`; true when something changed. */
function shareEntry(
  path: string,
  rule: ModeRule,
  artifacts: boolean,
  gid: number,
  dryRun: boolean,
): boolean {
  const stat = fs.lstatSync(path);
  if (stat.isSymbolicLink()) return false;
  // What the agents made is theirs: its group is already G (the folder's set-group-ID bit)
  // and only its owner (or root) may change it; Baton gave it its mode when it was made.
  if (stat.uid !== process.geteuid?.() && process.geteuid?.() !== 0) return false;
  const mode = modeBy(rule, stat.mode, stat.isDirectory(), artifacts);
  const changed = stat.gid !== gid || (stat.mode & 0o7777) !== mode;
  if (!changed || dryRun) return changed;
  try {
    if (stat.gid !== gid) fs.chownSync(path, -1, gid);
    fs.chmodSync(path, mode);
    crashPoint('share:entry-shared');
  } catch (err) {
    if (isCode(err, 'EPERM'))
      fail(
        'environment',
        `baton share: cannot give '${printable(path)}' group ${gid}: you must own it and be in ` +
          `the group (log in again after usermod -aG)`,
      );
    throw err;
  }
  return true;
}

/** Shares one part; counts what changed. */
function sharePart(root: string, part: SharePart, gid: number, dryRun: boolean): SharedPart {
  const top = join(root, part.path);
  const counts = { path: part.path || '.', changed: 0, entries: 0 };
  if (!fs.existsSync(top)) {
    if (!part.create) return counts;
    counts.entries += 1;
    counts.changed += 1;
    if (dryRun) return counts;
    fs.mkdirSync(top, { recursive: true, mode: 0o700 });
  }
  const visit = (path: string, depth: number) => {
    counts.entries += 1;
    const artifacts = part.rule === RUNS && depth === 2 && path.endsWith('/artifacts');
    if (shareEntry(path, part.rule, artifacts, gid, dryRun)) counts.changed += 1;
    if (!fs.lstatSync(path).isDirectory() || (!part.deep && depth > 0)) return;
    for (const name of fs.readdirSync(path).sort()) {
      if (depth === 0 && part.skip?.includes(name)) continue;
      const child = join(path, name);
      if (!part.deep && fs.lstatSync(child).isDirectory()) continue;
      visit(child, depth + 1);
    }
  };
  visit(top, 0);
  return counts;
}

/** Shares the project at `root` with group `group` (module header); --dry-run changes nothing. */
export function shareProject(root: string, group: string, dryRun: boolean): ShareReport {
  const gid = gidOf(group);
  const parts = partsOf(root).map((part) => sharePart(root, part, gid, dryRun));
  const shared = gitAnswer(root, ['config', '--get', 'core.sharedRepository']);
  if (shared !== 'group' && !dryRun) runGit(root, ['config', 'core.sharedRepository', 'group']);
  return { group, gid, dryRun, parts };
}
