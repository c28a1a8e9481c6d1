// The on-disk layout of a Baton project, in one place. Under ROOT (each path, then what it is):
//   swarmforge/swarmforge.conf, swarmforge/body-<type>.txt
//       written by people
//   swarmforge/constitution.prompt, swarmforge/roles/<role>.prompt
//       a SwarmForge pack's prompts
//   swarmforge/profiles/<name>/SOUL.md
//       committed personas (teachers, principal)
//   swarmforge/nodes.conf
//       the roster of a swarm across machines
//   .worktrees/<name>/
//       the launcher's git worktrees
//   .swarmforge/roles.tsv
//       the runtime role table
//   .swarmforge/handoffs/<role>/
//       each role's mailbox (queue/mailbox.ts knows the folders inside, locks included)
//   <worktree>/.swarmforge/handoffs/{outbox,inbox,sent,failed}/
//       the SwarmForge reference scripts' mailbox of a whole worktree (ROOT's sits beside the
//       role mailboxes), read only to import what it still holds
//   .swarmforge/daemon/
//       handoffd's pid, log, lock, stop, tmp, health
//   .swarmforge/tmux-socket, tmux.sock, panes.tsv, bin/
//       the swarm's tmux server, panes, commands
//   .swarmforge/prompts/<role>.md
//       each agent's instructions (written by baton up)
//   .swarmforge/reviewers.tsv, .swarmforge/reviews/
//       the review stage (docs/review.md §1)
//   .swarmforge/reviews/leaves/<bead>/, .worktrees/study-<role>-<rand8>/
//       a leaf's files and worktree
//   .swarmforge/node, nodes.tsv
//       the local node's name, `<role>\t<node>` rows
//   .swarmforge/bridge.json
//       handoffd's bridge view (link, counts)
//   .swarmforge/bridge/awaiting/<id>
//       the handoffs whose remote copies await their receipts
//   .swarmforge/nats/
//       `baton nats up`'s server store and pid
//   .claude/settings.json, .codex/hooks.json
//       the agents' project settings that `baton hooks install` merges hooks into
// Every other module asks this one for a path; a test keeps these names out of the rest
// of lib/. The tmux session name is derived from ROOT here too.
import { basename, dirname, join, resolve } from 'node:path';
import { type Mailbox, mailboxAt } from '../queue/index.js';
import { childPathOf } from '../fsx/childPaths.js';
import { sha256Hex } from '../fsx/digests.js';

/** The folder of runtime state under ROOT, as written in `.git/info/exclude`. */
export const SWARM_DIR_NAME = '.swarmforge';

/** The folder of the launcher's worktrees under ROOT, as written in `.git/info/exclude`. */
export const WORKTREES_DIR_NAME = '.worktrees';

/** `ROOT/.swarmforge`. */
export function swarmDirOf(root: string): string {
  return join(root, SWARM_DIR_NAME);
}

/** `ROOT/.swarmforge/roles.tsv`. */
export function rolesPathOf(root: string): string {
  return join(root, SWARM_DIR_NAME, 'roles.tsv');
}

/** `ROOT/.swarmforge/handoffs`: the folder that holds every role's mailbox. */
export function handoffsDirOf(root: string): string {
  return join(root, SWARM_DIR_NAME, 'handoffs');
}

/** The mailbox of a role: `ROOT/.swarmforge/handoffs/<role>/`, whatever its worktree. */
export function mailboxOf(root: string, role: string): Mailbox {
  return mailboxAt(join(handoffsDirOf(root), role));
}

/**
 * The SwarmForge reference scripts' mailbox of a worktree: `<worktree>/.swarmforge/handoffs/`
 * with outbox/, sent/, failed/ and inbox/{new,in_process,completed}/ directly inside (the
 * Maildir shape of one Baton mailbox, shared by every role of that worktree). For ROOT it
 * is the folder of the role mailboxes itself; the two never share a path, because a role's
 * mailbox keeps its folders one level deeper, under `<role>/`.
 */
export function referenceMailboxOf(worktreePath: string): Mailbox {
  return mailboxAt(handoffsDirOf(worktreePath));
}

/** `ROOT/swarmforge/swarmforge.conf`. */
export function configPathOf(root: string): string {
  return join(root, 'swarmforge', 'swarmforge.conf');
}

/** `ROOT/swarmforge/body-<type>.txt`: a project's own body template for that handoff type. */
export function bodyTemplatePathOf(root: string, type: string): string {
  return join(root, 'swarmforge', `body-${type}.txt`);
}

/** `ROOT/swarmforge/constitution.prompt`: the pack's instructions for every role. */
export function constitutionPathOf(root: string): string {
  return join(root, 'swarmforge', 'constitution.prompt');
}

/** `ROOT/swarmforge/roles`: the folder of the pack's role prompts (optional as a whole). */
export function rolePromptsDirOf(root: string): string {
  return join(root, 'swarmforge', 'roles');
}

/** `ROOT/swarmforge/roles/<role>.prompt`: the pack's instructions for one role. */
export function rolePromptPathOf(root: string, role: string): string {
  return join(rolePromptsDirOf(root), `${role}.prompt`);
}

/**
 * `ROOT/swarmforge/profiles/<name>/SOUL.md`: a committed persona (docs/review.md §7), e.g.
 * `teacher-cto`.
 */
export function personaPathOf(root: string, name: string): string {
  return join(root, 'swarmforge', 'profiles', name, 'SOUL.md');
}

/** `ROOT/.swarmforge/prompts/<role>.md`: the instructions `baton up` gives the role's agent. */
export function agentPromptPathOf(root: string, role: string): string {
  return join(root, SWARM_DIR_NAME, 'prompts', `${role}.md`);
}

/** `ROOT/.worktrees/<name>`: the git worktree of that name. */
export function worktreePathOf(root: string, name: string): string {
  return join(root, WORKTREES_DIR_NAME, name);
}

/** The daemon's files of one project. */
export interface DaemonPaths {
  dir: string;
  pid: string;
  log: string;
  /** Output of a detached daemon that died before it could log (start-up errors). */
  out: string;
  stop: string;
  /** Temp files of copies being delivered (removed at start-up). */
  tmp: string;
  /** The single-instance lock. */
  lock: string;
  /**
   * Health written after passes: advisory counts for the monitor, and the roles whose re-wakes are
   * spent (for status, monitor and doctor).
   */
  health: string;
}

/** The daemon paths under ROOT: `ROOT/.swarmforge/daemon/`. */
export function daemonPathsOf(root: string): DaemonPaths {
  const dir = join(root, SWARM_DIR_NAME, 'daemon');
  return {
    dir,
    pid: join(dir, 'handoffd.pid'),
    log: join(dir, 'handoffd.log'),
    out: join(dir, 'handoffd.out'),
    stop: join(dir, 'stop'),
    tmp: join(dir, 'tmp'),
    lock: join(dir, 'lock'),
    health: join(dir, 'health.json'),
  };
}

/** `ROOT/.swarmforge/agents/`: each role's observation file, `<role>.json`, its hooks write. */
export function agentsDirOf(root: string): string {
  return join(root, SWARM_DIR_NAME, 'agents');
}

/**
 * `ROOT/.swarmforge/launching/`: `<role>.json` while `baton up` waits for that role's agent to
 * be ready (lib/project/launchHold.ts); handoffd wakes no role held there.
 */
export function launchHoldsDirOf(root: string): string {
  return join(root, SWARM_DIR_NAME, 'launching');
}

/** `ROOT/.swarmforge/agents-user`: the user `baton up --agents-user` runs the agents as. */
export function agentsUserPathOf(root: string): string {
  return join(root, SWARM_DIR_NAME, 'agents-user');
}

/** `ROOT/.swarmforge/run-defaults.json`: the last answers of `baton run new` (0600). */
export function runDefaultsPathOf(root: string): string {
  return join(root, SWARM_DIR_NAME, 'run-defaults.json');
}

/** `ROOT/.swarmforge/web.json`: the running `baton web`'s pid, host and port (no token). */
export function webRecordPathOf(root: string): string {
  return join(root, SWARM_DIR_NAME, 'web.json');
}

/**
 * `ROOT/.swarmforge/claude-hooks.json`: Baton's hooks as a Claude Code settings file, which
 * `baton up` passes on each claude launch line (`--settings`), merged into the session's own.
 */
export function claudeHookSettingsOf(root: string): string {
  return join(root, SWARM_DIR_NAME, 'claude-hooks.json');
}

/** `ROOT/.swarmforge/tmux-socket`: holds the path of the swarm's tmux socket while it is up. */
export function socketFileOf(root: string): string {
  return join(root, SWARM_DIR_NAME, 'tmux-socket');
}

/** `ROOT/.swarmforge/panes.tsv`: `<role>\t<pane-id>` lines, written by the launcher. */
export function panesFileOf(root: string): string {
  return join(root, SWARM_DIR_NAME, 'panes.tsv');
}

/** `ROOT/.swarmforge/bin`: the command links put first on each pane's PATH. */
export function commandDirOf(root: string): string {
  return join(root, SWARM_DIR_NAME, 'bin');
}

/**
 * `ROOT/.swarmforge/reviewers.tsv`: the reviewer role of each lens, from swarmforge.conf's review
 * lines.
 */
export function reviewersPathOf(root: string): string {
  return join(root, SWARM_DIR_NAME, 'reviewers.tsv');
}

/** Where the review stage keeps its files (docs/review.md §1). */
export interface ReviewPaths {
  /** `<bead>.json` bookbags (BOOKBAG_DIR overrides). */
  bookbags: string;
  /** `<bead>.ready` signals (SIGNAL_DIR overrides). */
  signals: string;
  /** `<bead>.lock` lock folders (LOCK_DIR overrides). */
  locks: string;
  /** Disposed bookbags: beside the bookbag folder, `<bookbags>/../archive`. */
  archive: string;
  /** `<lens>/` of each teacher: sessions, consolidation, library log. */
  teachers: string;
  /** `<bead>/` of each leaf: brief.json, output.json. */
  leaves: string;
}

/** The review stage's folders under ROOT, with the environment's overrides read at call time. */
export function reviewPathsOf(root: string, env: NodeJS.ProcessEnv = process.env): ReviewPaths {
  const reviews = join(root, SWARM_DIR_NAME, 'reviews');
  const bookbags = env.BOOKBAG_DIR ? resolve(root, env.BOOKBAG_DIR) : join(reviews, 'bookbag');
  return {
    bookbags,
    signals: env.SIGNAL_DIR ? resolve(root, env.SIGNAL_DIR) : join(reviews, 'signals'),
    locks: env.LOCK_DIR ? resolve(root, env.LOCK_DIR) : join(reviews, 'locks'),
    archive: join(dirname(bookbags), 'archive'),
    teachers: join(reviews, 'teachers'),
    leaves: join(reviews, 'leaves'),
  };
}

/** A folder and the fixed files (or folders) in it, by name: `{dir, name: dir/file, ...}`. */
export type FilesIn<K extends string> = { dir: string } & Record<K, string>;

/** `dir` with a path in it for each entry of `files` (name → file name). */
export function filesIn<K extends string>(dir: string, files: Record<K, string>): FilesIn<K> {
  const named = Object.entries<string>(files).map(([name, file]) => [name, join(dir, file)]);
  return { dir, ...Object.fromEntries(named) } as FilesIn<K>;
}

/** The files of one leaf (docs/review.md §8): `<leaves>/<bead>/`. */
const LEAF_FILES = {
  /** `brief.json`: `{bead, role, domain, task, difficulty}`, the worker's stdin and BATON_BRIEF. */
  brief: 'brief.json',
  /** The audit of the run. */
  output: 'output.json',
  /** The pid record (the leaf's and its worker's process identity, worktree, branch, base). */
  record: 'leaf.json',
  /** Where the worker may say how it checked its work (BATON_VERIFICATION). */
  verification: 'verification.txt',
} as const;

/** The files of one leaf: LEAF_FILES in `<leaves>/<bead>/`. */
export type LeafFiles = FilesIn<keyof typeof LEAF_FILES>;

/** The files of the leaf of `bead` (a safe bead name). */
export function leafFilesOf(paths: ReviewPaths, bead: string): LeafFiles {
  return filesIn(join(paths.leaves, bead), LEAF_FILES);
}

export function leafWorktreeNameOf(role: string, rand8: string): string {
  return `study-${role}-${rand8}`;
}

/** Where the run runtime keeps one run (docs/runtime.md §1): `ROOT/.swarmforge/runs/<run-id>/`. */
export interface RunPaths {
  dir: string;
  /** `workflow.json`, the canonical record. */
  workflow: string;
  /** `lease.json`, the mutation owner. */
  lease: string;
  /** `artifacts/`, immutable evidence hashed in the manifest. */
  artifacts: string;
  /** `controller/phase.json`, the controller's local phase (never a checkpoint). */
  phase: string;
  /** `controller/controller.log`, what the controller did and rejected, a line each. */
  controllerLog: string;
}

/** `ROOT/.swarmforge/gc-trash/`: where `baton gc` moves an item before deleting it. */
export function gcTrashDirOf(root: string): string {
  return join(root, SWARM_DIR_NAME, 'gc-trash');
}

/** `ROOT/.swarmforge/runs/`: one folder per run, and `locks/`. */
export function runsDirOf(root: string): string {
  return join(root, SWARM_DIR_NAME, 'runs');
}

/** `ROOT/.swarmforge/runs/locks/`: the request-scoped and per-run locks. */
export function runLocksDirOf(root: string): string {
  return join(runsDirOf(root), 'locks');
}

/** The files of run `runId` (a checked run id). */
export function runPathsOf(root: string, runId: string): RunPaths {
  const dir = join(runsDirOf(root), runId);
  const at = childPathOf(dir);
  return {
    dir,
    workflow: at('workflow.json'),
    lease: at('lease.json'),
    artifacts: at('artifacts'),
    phase: at('controller/phase.json'),
    controllerLog: at('controller/controller.log'),
  };
}

/** The agents whose project settings `baton hooks install` knows. */
export type HookAgent = 'claude' | 'codex';

/**
 * The project settings file that holds an agent's hooks: `ROOT/.claude/settings.json` (Claude Code)
 * or `ROOT/.codex/hooks.json` (Codex).
 */
export function agentHooksPathOf(root: string, agent: HookAgent): string {
  return agent === 'claude'
    ? join(root, '.claude', 'settings.json')
    : join(root, '.codex', 'hooks.json');
}

/** `ROOT/.codex/config.toml`: Codex's project configuration, where its hooks feature is set. */
export function codexConfigPathOf(root: string): string {
  return join(root, '.codex', 'config.toml');
}

/** Unix socket paths must stay below about 104 bytes. */
const SOCKET_PATH_LIMIT = 100;

/**
 * The swarm's tmux socket: `ROOT/.swarmforge/tmux.sock`, or a short per-ROOT path in the temp
 * folder when that is too long for a Unix socket.
 */
export function tmuxSocketPathFor(root: string): string {
  const local = join(root, SWARM_DIR_NAME, 'tmux.sock');
  if (Buffer.byteLength(local) < SOCKET_PATH_LIMIT) return local;
  const { tmpdir } = process.getBuiltinModule('node:os') as typeof import('node:os');
  return join(tmpdir(), `baton-${sha256Hex(root).slice(0, 16)}.sock`);
}

/** The tmux session name of a project (one per ROOT). */
export function sessionNameOf(root: string): string {
  return `baton-${basename(root).replace(/[^A-Za-z0-9-]/g, '-')}`;
}

/** The files of a swarm across machines (docs/bridge.md). */
export interface BridgePaths {
  /** `ROOT/swarmforge/nodes.conf`: the roster, committed, the same on every node. */
  roster: string;
  /** `ROOT/.swarmforge/node`: the local node's name (written by `baton init --node NAME`). */
  node: string;
  /** `ROOT/.swarmforge/nodes.tsv`: `<role>\t<node>` rows (written by `baton init`). */
  nodesTable: string;
  /**
   * `ROOT/.swarmforge/bridge.json`: handoffd's view of the link and the counts (advisory, not
   * state).
   */
  state: string;
  /**
   * `ROOT/.swarmforge/bridge/awaiting/`: one entry per handoff whose remote copies await their
   * receipts (lib/daemon/awaitingReceipts.ts).
   */
  awaiting: string;
  /** `ROOT/.swarmforge/nats/`: the store of a local `nats-server -js` (`baton nats up`). */
  natsDir: string;
  /** `ROOT/.swarmforge/nats/nats-server.pid`. */
  natsPid: string;
}

/** The bridge paths of a project. */
export function bridgePathsOf(root: string): BridgePaths {
  const dir = join(root, SWARM_DIR_NAME);
  const natsDir = join(dir, 'nats');
  return {
    roster: join(root, 'swarmforge', 'nodes.conf'),
    node: join(dir, 'node'),
    nodesTable: join(dir, 'nodes.tsv'),
    state: join(dir, 'bridge.json'),
    awaiting: join(dir, 'bridge', 'awaiting'),
    natsDir,
    natsPid: join(natsDir, 'nats-server.pid'),
  };
}
