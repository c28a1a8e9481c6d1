// The project-level `baton` commands (init, status, doctor) and the synonyms of the three
// agent commands (handoff, ready, done), as a command table like swarmCommands.ts. Each
// calls one lib function, imported when it runs, and prints; failures are thrown to runBaton.
// doctor adds the review stage's findings (lib/review/lens/reviewDoctor.ts) to the queue's:
// lib/handoff may not import lib/review. With a roster, status, doctor (and the monitor)
// show the bridge as lib/admin/bridgeView.ts reads it, never loading the NATS client.
import type { CommandModule } from 'yargs';
import { type DoctorFinding } from '../admin/doctor.js';
import { type InitResult } from '../admin/init.js';
import { findRoot } from '../project/root.js';
import { printable } from '../fsx/printable.js';
import { reportUnusable as onSkip } from './agentCommand.js';
import { exitAs } from './failure.js';
import { flag, json } from './commandShapes.js';

const warn = (line: string) => process.stderr.write(`${printable(line)}\n`);
const write = (out: string | Buffer): void => {
  process.stdout.write(out);
};

/**
 * The lines reporting SwarmForge mail: each item imported, each item left in place with its remedy
 * (`baton init` and `baton up`).
 */
export function importLines(imports: InitResult['imports']): string {
  return [
    ...imports.imported.map((i) => `IMPORTED: ${printable(i.from)} -> ${printable(i.to)}\n`),
    ...imports.left.map(
      (l) =>
        `NOT IMPORTED: ${printable(l.path)}: ${printable(l.problem)}\n ` +
        ` fix: ${printable(l.remedy)}\n`,
    ),
  ].join('');
}

/**
 * With a roster, `baton init`'s lines for it: each node with its roles, then the local node when it
 * is known.
 */
function nodeLines({ roster, node }: InitResult): string {
  if (roster === undefined) return '';
  const nodes = [...roster.nodes]
    .map(([name, roles]) => `NODE: ${name} ${roles.join(',')}\n`)
    .join('');
  return `${nodes}${node === undefined ? '' : `LOCAL NODE: ${node}\n`}`;
}

/** `baton init`'s lines: ROOT, each role, the nodes, then the import report. */
function initText(result: InitResult): string {
  const { root, roles, imports } = result;
  const roleLines = roles.map((r) => `ROLE: ${r.role} ${r.mode} ${r.worktreePath}\n`).join('');
  return `INITIALIZED: ${root}\n${roleLines}${nodeLines(result)}${importLines(imports)}`;
}

/**
 * `baton init --json`: ROOT, the roles, with a roster the local node (null while unknown) and each
 * node's roles, and the import report.
 */
function initJson(result: InitResult): string {
  const roles = result.roles.map((r) => ({ role: r.role, mode: r.mode, worktree: r.worktreePath }));
  const nodes =
    result.roster === undefined
      ? {}
      : { node: result.node ?? null, nodes: Object.fromEntries(result.roster.nodes) };
  const imports = { imported: result.imports.imported, not_imported: result.imports.left };
  return `${JSON.stringify({ root: result.root, roles, ...nodes, ...imports }, null, 2)}\n`;
}

const init: CommandModule = {
  command: 'init',
  describe:
    'Read swarmforge/swarmforge.conf (and swarmforge/nodes.conf); ' +
    'write .swarmforge/roles.tsv (nodes.tsv) and every mailbox; ' +
    'import SwarmForge mail left in worktrees',
  builder: (y) =>
    json(y).option('node', {
      type: 'string',
      describe:
        "Record NAME, a node of swarmforge/nodes.conf, as this machine's node (.swarmforge/node)",
    }),
  handler: async (args) => {
    const { initProject } = await import('../admin/init.js');
    const result = await initProject(process.cwd(), [], { node: args.node as string | undefined });
    write(args.json ? initJson(result) : initText(result));
  },
};

const status: CommandModule = {
  command: 'status',
  describe:
    'Per role: items in outbox, new, in process, completed, ' +
    'failed; ages; mail unclaimed after every re-wake; whether ' +
    'handoffd runs; with a roster, the bridge',
  builder: (y) => json(y),
  handler: async (args) => {
    const root = findRoot(process.cwd(), process.env);
    const [
      { daemonLine, statusOf, statusTable, unclaimedText },
      { daemonStatus },
      { bridgeText, bridgeViewOf },
    ] = await Promise.all([
      import('../admin/status.js'),
      import('../project/daemonRecord.js'),
      import('../admin/bridgeView.js'),
    ]);
    const bridge = bridgeViewOf(root);
    const rows = statusOf(root);
    const daemon = daemonStatus(root);
    const { runningWebUrl } = await import('../project/webRecord.js');
    const web = runningWebUrl(root);
    if (args.json)
      return write(
        `${JSON.stringify(
          { roles: rows, daemon, ...(web ? { web } : {}), ...(bridge ? { bridge } : {}) },
          null,
          2,
        )}\n`,
      );
    const unclaimed = unclaimedText(rows);
    write(
      `${statusTable(rows, bridge)}${unclaimed ? `\n${unclaimed}` : ''}\n` +
        `${daemonLine(daemon)}${web ? `WEB: ${web}\n` : ''}${bridgeText(
          bridge,
          rows.map((r) => r.role),
        )}`,
    );
  },
};

const doctorCommand: CommandModule = {
  command: 'doctor',
  describe:
    'Check every mailbox invariant, look for stranded mail, ' +
    'orphan leaves and inconsistent bookbags; with a roster, the ' +
    'bridge; name a fix for each problem; exit 2 if any',
  builder: (y) =>
    json(y).option('fix', flag('Delete temp files older than 36 h (the only safe repair)')),
  handler: async (args) => {
    const [{ doctor }, { reviewFindings }, { bridgeDoctorLines }] = await Promise.all([
      import('../admin/doctor.js'),
      import('../review/lens/reviewDoctor.js'),
      import('../admin/bridgeDoctor.js'),
    ]);
    const root = findRoot(process.cwd(), process.env);
    const queueReport = await doctor(root, args.fix as boolean);
    const report = { ...queueReport, findings: [...queueReport.findings, ...reviewFindings(root)] };
    if (args.json) write(`${JSON.stringify(report, null, 2)}\n`);
    else {
      const entry = (label: string) => (f: DoctorFinding) =>
        `${label}: ${printable(f.path)}: ${printable(f.problem)}\n  fix: ${printable(f.remedy)}\n`;
      write(report.fixed.map((p) => `REMOVED: ${printable(p)}\n`).join(''));
      write(
        bridgeDoctorLines(report)
          .map((line) => `${printable(line)}\n`)
          .join(''),
      );
      write((report.warnings ?? []).map(entry('WARNING')).join(''));
      write(report.findings.map(entry('PROBLEM')).join(''));
      if (report.findings.length === 0) write('OK: no problems found\n');
    }
    if (report.findings.length > 0) exitAs('problemsFound');
  },
};

const handoff: CommandModule = {
  command: 'handoff <draft>',
  describe: 'Same as swarm_handoff <draft>',
  builder: (y) => y.positional('draft', { type: 'string', demandOption: true }),
  handler: async (args) =>
    write(
      await (
        await import('../handoff/send.js')
      ).sendHandoff(args.draft as string, process.cwd(), process.env, onSkip, undefined, warn),
    ),
};

const ready: CommandModule = {
  command: 'ready',
  describe: 'Same as ready_for_next',
  handler: async () =>
    write(
      await (
        await import('../handoff/receive.js')
      ).readyForNext(process.cwd(), process.env, onSkip),
    ),
};

const done: CommandModule = {
  command: 'done [id]',
  describe: 'Same as done_with_current [ID]',
  builder: (y) => y.positional('id', { type: 'string' }),
  handler: async (args) =>
    write(
      await (
        await import('../handoff/receive.js')
      ).doneWithCurrent(process.cwd(), process.env, args.id as string | undefined, onSkip),
    ),
};

/** The queue commands, for the `baton` command line. */
export const QUEUE_COMMANDS: CommandModule[] = [init, status, doctorCommand, handoff, ready, done];
