// `baton doctor`: every invariant of every mailbox plus the role table, reported with paths
// and a remedy each; and the work nothing would otherwise show: mail still in the SwarmForge
// reference scripts' per-worktree mailboxes (not imported yet, or not importable), mailboxes
// of roles no longer configured that still hold items, outbox mail while no handoffd runs
// to deliver it, and roles whose mail waited through every re-wake of handoffd and is still
// unclaimed (status.ts reads that from health.json). With a roster (swarmforge/nodes.conf),
// the bridge's checks too (bridgeDoctor.ts): its problems join the findings, and the report
// gains its warnings, the roster and the bridge. A swarm that is up adds a warning for each
// running agent that cannot run Baton's hooks (hooklessAgents.ts).
// `--fix` does only what is provably safe: delete temp files older than 36 h (no step
// of the protocol keeps a temp file that long), each deletion reported.
import * as fs from 'node:fs';
import { findImportedCopy, inspectMailbox, itemNamesIn } from '../queue/index.js';
import { bridgeChecks, type RosterSummary } from './bridgeDoctor.js';
import { type BridgeView } from './bridgeView.js';
import { runningDaemon } from '../project/daemonRecord.js';
import { mailboxOf, rolesPathOf } from '../project/layout.js';
import { pendingReferenceMail, remedyForPending, type ImportableMail } from './referenceMail.js';
import {
  DAEMON_DOWN_REMEDY,
  mailboxRemedy,
  receiveModeRemedy,
  rewakesSpentRemedy,
  rolesTableRemedy,
  unconfiguredMailboxRemedy,
} from './remedies.js';
import { statusOf, unclaimedLine } from './status.js';
import { readRoles, type Role } from '../handoff/roles.js';
import { unconfiguredMailboxes } from './unconfiguredMailboxes.js';
import { hooklessAgents } from './hooklessAgents.js';

/**
 * One problem: where, what, its kind, what a person can do (`remedy`), and the role it concerns if
 * any.
 */
export interface DoctorFinding {
  path: string;
  problem: string;
  kind: string;
  remedy: string;
  role?: string;
  /** A temp file older than 36 h: the only thing `--fix` removes. */
  staleTemp?: boolean;
  /** Kind `rewakes-spent`: the role's mail waited through every re-wake, still unclaimed. */
  rewakes_spent?: true;
  /** Kind `rewakes-spent`: whole minutes since the oldest waiting item arrived. */
  unclaimed_min?: number;
}

/** What doctor found (and, with fix, what it removed and what remains). */
export interface DoctorReport {
  findings: DoctorFinding[];
  fixed: string[];
  /**
   * What is worth knowing but no problem: agents without Baton's hooks; with a roster, the
   * bridge's link and handoffd not running. Absent when there is none and no roster.
   */
  warnings?: DoctorFinding[];
  /** With a roster only: the roster (null when invalid). */
  roster?: RosterSummary | null;
  /** With a roster only: the bridge as status shows it (null when the roster is invalid). */
  bridge?: BridgeView | null;
}

/**
 * Checks the project at `root`; with `fix`, deletes stale temp files first and checks again; `env`
 * gives BATON_NODE.
 */
export async function doctor(
  root: string,
  fix: boolean,
  now = Date.now(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<DoctorReport> {
  const fixed: string[] = [];
  if (fix) {
    for (const finding of await findAll(root, now)) {
      if (!finding.staleTemp) continue;
      fs.rmSync(finding.path, { force: true });
      fixed.push(finding.path);
    }
  }
  const findings = await findAll(root, now);
  const hookless = hooklessAgents(root);
  const bridge = bridgeChecks(root, env);
  if (bridge === undefined)
    return { findings, fixed, ...(hookless.length > 0 ? { warnings: hookless } : {}) };
  return {
    findings: [...findings, ...bridge.findings],
    fixed,
    warnings: [...hookless, ...bridge.warnings],
    roster: bridge.roster,
    bridge: bridge.bridge,
  };
}

async function findAll(root: string, now: number): Promise<DoctorFinding[]> {
  const table = readRoles(root);
  const roles = [...table.roles.values()];
  const findings: DoctorFinding[] = table.problems.map((p) => ({
    path: rolesPathOf(root),
    problem: p,
    kind: 'roles-table',
    remedy: rolesTableRemedy(root),
  }));
  for (const role of roles) {
    if (role.mode !== 'task' && role.mode !== 'batch') {
      findings.push({
        role: role.role,
        path: rolesPathOf(root),
        problem: `invalid receive mode '${role.mode}' for role ${role.role}`,
        kind: 'receive-mode',
        remedy: receiveModeRemedy(root, role.role),
      });
    }
    const box = mailboxOf(root, role.role);
    for (const f of await inspectMailbox(box, now))
      findings.push({ role: role.role, ...f, remedy: mailboxRemedy(f, role.role, box) });
  }
  findings.push(
    ...(await referenceMailFindings(root, roles)),
    ...unconfiguredMailboxFindings(root, table.roles),
    ...daemonDownFindings(root, roles),
    ...rewakesSpentFindings(root, now),
  );
  return findings;
}

/** Roles whose mail waited through every re-wake of handoffd and is still unclaimed. */
function rewakesSpentFindings(root: string, now: number): DoctorFinding[] {
  return statusOf(root, now)
    .filter((row) => row.rewakes_spent)
    .map((row) => ({
      path: mailboxOf(root, row.role).inboxNew,
      role: row.role,
      kind: 'rewakes-spent',
      problem: unclaimedLine(row.role, row.unclaimed_min ?? 0),
      remedy: rewakesSpentRemedy(row.role),
      rewakes_spent: true,
      unclaimed_min: row.unclaimed_min ?? 0,
    }));
}

/**
 * The problem an importable item is, checked against its role's mailbox without changing anything.
 */
async function importableProblem(
  root: string,
  mail: ImportableMail,
): Promise<Pick<DoctorFinding, 'problem' | 'kind' | 'remedy'>> {
  const found = await findImportedCopy(mailboxOf(root, mail.role), mail.side, mail.item);
  if (found?.kind === 'clash') {
    return {
      kind: 'reference-mail-clash',
      problem:
        `SwarmForge mail not imported: its name is taken in ` +
        `${mail.role}'s mailbox by another item: ${found.path}`,
      remedy: 'rename it (keep the .handoff ending), then run baton init',
    };
  }
  return {
    kind: 'reference-mail-pending',
    problem:
      `SwarmForge mail not imported yet (for ${mail.role}, from the ` +
      `worktree's ${mail.folder}/)`,
    remedy: remedyForPending(root, mail),
  };
}

/** Items still pending in the reference scripts' mailboxes of ROOT and the configured worktrees. */
async function referenceMailFindings(root: string, roles: Role[]): Promise<DoctorFinding[]> {
  const findings: DoctorFinding[] = [];
  for (const mail of await pendingReferenceMail(root, roles)) {
    if (mail.kind === 'importable')
      findings.push({ path: mail.path, role: mail.role, ...(await importableProblem(root, mail)) });
    else
      findings.push({
        path: mail.path,
        kind: `reference-mail-${mail.kind}`,
        problem: `SwarmForge mail not imported: ${mail.problem}`,
        remedy: remedyForPending(root, mail),
      });
  }
  return findings;
}

/** Mailboxes of roles not in roles.tsv that still hold waiting or in-process items. */
function unconfiguredMailboxFindings(root: string, configured: Map<string, Role>): DoctorFinding[] {
  return unconfiguredMailboxes(root, new Set(configured.keys())).map((box) => ({
    path: box.dir,
    role: box.role,
    kind: 'unconfigured-role',
    problem:
      `role ${box.role} is not in roles.tsv, but its mailbox holds ` +
      `${box.outbox} in outbox, ${box.new} waiting, ` +
      `${box.in_process} in process: nothing delivers, wakes or ` +
      `lists them`,
    remedy: unconfiguredMailboxRemedy(root, box.role),
  }));
}

/** Outboxes holding mail while no handoffd runs to deliver it. */
function daemonDownFindings(root: string, roles: Role[]): DoctorFinding[] {
  if (runningDaemon(root) !== undefined) return [];
  return roles.flatMap((role) => {
    const box = mailboxOf(root, role.role);
    const waiting = itemNamesIn(box.outbox).length;
    if (waiting === 0) return [];
    return [
      {
        path: box.outbox,
        role: role.role,
        kind: 'daemon-not-running',
        problem:
          `${waiting} handoff${waiting === 1 ? '' : 's'} waiting for ` +
          `delivery, and handoffd is not running`,
        remedy: DAEMON_DOWN_REMEDY,
      },
    ];
  });
}
