// The swarm, reviews and handoff pages (docs/web.md §2): what `baton status`, `baton
// monitor` and `baton review list` read, shown as HTML; a single handoff read-only. Ids in
// URLs are checked against their patterns and the project's roles before any file is read;
// a handoff is read without following a symlink.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { bridgeLines, type BridgeView } from '../admin/bridgeView.js';
import { doctor } from '../admin/doctor.js';
import { readAgentReport } from '../project/agentObservation.js';
import { daemonStatus } from '../project/daemonRecord.js';
import { mailboxOf, reviewPathsOf } from '../project/layout.js';
import { readRoles } from '../handoff/roles.js';
import { itemNamesIn, nameHoldsId, readItem } from '../queue/index.js';
import { isSafeBeadName } from '../review/bookbag/beads.js';
import { listBookbags } from '../review/bookbag/listBookbags.js';
import { loadBookbag } from '../review/bookbag/store.js';
import { monitorView, type MonitorView } from '../swarm/monitor.js';
import { h, row, type Markup } from './html.js';

/** A handoff id: `<tsid>_<seq>_from_<sender>`. */
const HANDOFF_ID = /^[0-9]{8}T[0-9]{6}Z_[0-9]{6,}_from_[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** What `baton doctor` would report (problems, then warnings), each with its remedy. */
async function doctorSection(root: string): Promise<Markup> {
  let report;
  try {
    report = await doctor(root, false);
  } catch (err) {
    return h`<h2>Problems</h2><p class="bad">${(err as Error).message.split('\n')[0]}</p>`;
  }
  const all = [...report.findings, ...(report.warnings ?? [])];
  if (all.length === 0) return h`<h2>Problems</h2><p class="ok">None (baton doctor).</p>`;
  return h`<h2>Problems</h2><table><tr><th>where</th><th>problem</th><th>remedy</th></tr>${all.map(
    (f) =>
      h`<tr><td>${f.role ?? f.path}</td><td class="bad">${f.problem}</td><td>${f.remedy}</td></tr>`,
  )}</table>`;
}

/** The bridge as status shows it, with a roster only. */
function bridgeSection(view: BridgeView | undefined): Markup {
  if (view === undefined) return h``;
  return h`<h2>Bridge</h2><pre>${bridgeLines(view, []).join('\n')}</pre>`;
}

/** The swarm: each role's queue and observed agent, handoffd, the bridge, doctor's problems. */
export async function swarmPage(root: string): Promise<Markup> {
  let view: MonitorView | undefined;
  let problem = '';
  try {
    view = await monitorView(root);
  } catch (err) {
    problem = (err as Error).message.split('\n')[0]!;
  }
  const rows = (view?.roles ?? []).map((r) => {
    const agent = readAgentReport(root, r.role);
    const node =
      view?.bridge === undefined
        ? ''
        : (view.bridge.remote_roles[r.role] ?? view.bridge.node ?? '');
    return h`<tr><td>${r.role}</td><td>${node}</td><td>${r.mode}</td>
<td>${r.pane ?? ''} ${r.pane_state}</td>
<td>${agent ? `${agent.state} since ${agent.at}` : 'unknown'}</td><td>${r.new}</td>
<td>${r.in_process}</td><td>${r.completed}</td><td>${r.failed}</td>
<td>${r.last_delivery_at ?? ''}</td><td>${r.last_wake_at ?? ''}</td>
<td>${r.rewakes_spent ? `unclaimed for ${r.unclaimed_min} min` : ''}</td></tr>`;
  });
  const d = daemonStatus(root);
  return h`<h1>Swarm</h1>
<p>handoffd: ${daemonText(d)}</p>
${problem ? h`<p class="bad">${problem}</p>` : ''}
<table><tr><th>role</th><th>node</th><th>mode</th><th>pane</th><th>agent</th><th>new</th>
<th>in process</th><th>completed</th><th>failed</th><th>last delivery</th><th>last wake-up</th>
<th>problem</th></tr>${rows}</table>
${bridgeSection(view?.bridge)}${await doctorSection(root)}`;
}

/** handoffd's state in one line, as status says it. */
function daemonText(d: ReturnType<typeof daemonStatus>): string {
  if (!d.running) return 'not running';
  return (
    `running, pid ${d.pid}, last pass ${d.last_pass_at}, delivered ${d.delivered}, ` +
    `failed ${d.failed}, errors ${d.errors}`
  );
}

/** A bookbag's invariant problems, when it has any. */
function invariantsOf(problems: string[]): Markup {
  if (problems.length === 0) return h``;
  return h`<h2>Invariants</h2><ul>${problems.map((p) => h`<li class="bad">${p}</li>`)}</ul>`;
}

/** The review stage's bookbags. */
export function reviewsPage(root: string): Markup {
  const bags = listBookbags(root, { archived: true });
  return h`<h1>Reviews</h1>${
    bags.length === 0
      ? h`<p>No bookbags.</p>`
      : h`<table><tr><th>bead</th><th>state</th><th>CTO</th><th>COO</th><th>accepted</th>
<th>archived</th></tr>${bags.map((b) =>
          row(
            h`<a href="/reviews/${b.bead}">${b.bead}</a>`,
            b.state,
            b.cto_verdict,
            b.coo_verdict,
            b.accepted ? 'yes' : '',
            b.archived ? 'yes' : '',
          ),
        )}</table>`
  }`;
}

/**
 * One bookbag (`/reviews/<bead>`): verdicts, scores, each lens's findings, its invariants'
 * problems.
 */
export function bookbagPage(root: string, bead: string): Markup | undefined {
  if (!isSafeBeadName(bead)) return undefined;
  const paths = reviewPathsOf(root);
  let loaded;
  for (const dir of [paths.bookbags, paths.archive]) {
    const path = join(dir, `${bead}.json`);
    if (!fs.existsSync(path) || fs.lstatSync(path).isSymbolicLink()) continue;
    try {
      loaded = loadBookbag(path);
    } catch {
      return undefined;
    }
    break;
  }
  if (loaded === undefined) return undefined;
  const { bag, problems } = loaded;
  const lens = (
    name: 'cto' | 'coo',
  ) => h`<h2>${name.toUpperCase()}: ${bag[`${name}_verdict`] || 'no verdict yet'}${
    bag[`${name}_score`] === null ? '' : `, score ${bag[`${name}_score`]}`
  }</h2><p>${bag[`${name}_summary`]}</p><table><tr><th>severity</th><th>section</th><th>finding</th>
<th>where</th></tr>${bag[`${name}_findings`].map((f) =>
    row(f.severity, f.section, f.description, f.citation ?? ''),
  )}</table>`;
  return h`<h1>Bookbag ${bag.bead}</h1><table><tr><th>state</th><td>${bag.state}</td></tr>
<tr><th>task</th><td>${bag.task}</td></tr><tr><th>student</th><td>${bag.student}</td></tr>
<tr><th>accepted</th><td>${bag.accepted ? 'yes' : 'no'}</td></tr></table>
${invariantsOf(problems)}
${lens('cto')}${lens('coo')}`;
}

/** One handoff of `role` (queued, in process, completed, sent or failed), or undefined. */
export async function handoffPage(
  root: string,
  role: string,
  id: string,
): Promise<Markup | undefined> {
  if (!HANDOFF_ID.test(id)) return undefined;
  let known: boolean;
  try {
    known = readRoles(root).roles.has(role);
  } catch {
    return undefined;
  }
  if (!known) return undefined;
  const box = mailboxOf(root, role);
  for (const [where, dir] of [
    ['new', box.inboxNew],
    ['in process', box.inProcess],
    ['completed', box.completed],
    ['outbox', box.outbox],
    ['sent', box.sent],
    ['failed', box.failed],
  ] as const) {
    const name = itemNamesIn(dir).find((n) => nameHoldsId(n, id));
    if (name === undefined) continue;
    let item;
    try {
      item = await readItem(join(dir, name));
    } catch {
      return undefined;
    }
    return h`<h1>Handoff ${id}</h1><p>${role}: ${where}</p><table>${Object.entries(
      item.headers,
    ).map(([k, v]) => h`<tr><th>${k}</th><td>${String(v)}</td></tr>`)}</table>
<pre>${item.body.toString('utf8')}</pre>`;
  }
  return undefined;
}
