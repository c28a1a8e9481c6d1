// `baton doctor`: every invariant of every mailbox plus the role table, reported with paths.
// `--fix` does only what is provably safe: delete temp files older than 36 h (no step
// of the protocol keeps a temp file that long), each deletion reported.
import * as fs from 'node:fs';
import { inspectMailbox, type Finding } from '../queue/inspect.js';
import { mailboxOf, rolesPathOf } from './layout.js';
import { readRoles } from './roles.js';

/** What doctor found (and, with fix, what it removed and what remains). */
export interface DoctorReport {
  findings: (Finding & { role?: string })[];
  fixed: string[];
}

/** Checks the project at `root`; with `fix`, deletes stale temp files first and checks again. */
export async function doctor(root: string, fix: boolean, now = Date.now()): Promise<DoctorReport> {
  const fixed: string[] = [];
  if (fix) {
    for (const finding of await findAll(root, now)) {
      if (!finding.staleTemp) continue;
      fs.rmSync(finding.path, { force: true });
      fixed.push(finding.path);
    }
  }
  return { findings: await findAll(root, now), fixed };
}

async function findAll(root: string, now: number): Promise<DoctorReport['findings']> {
  const table = readRoles(root);
  const findings: DoctorReport['findings'] = table.problems.map((p) => ({ path: rolesPathOf(root), problem: p }));
  for (const role of table.roles.values()) {
    if (role.mode !== 'task' && role.mode !== 'batch') {
      findings.push({ role: role.role, path: rolesPathOf(root), problem: `invalid receive mode '${role.mode}' for role ${role.role}` });
    }
    for (const f of await inspectMailbox(mailboxOf(root, role.role), now)) findings.push({ role: role.role, ...f });
  }
  return findings;
}
