// The swarm, reviews and handoff pages (docs/web.md §2): what `baton status`, `baton
// monitor` and `baton review list` read, shown as HTML; a single handoff read-only. Ids in
// URLs are checked against their patterns and the project's roles before any file is read;
// a handoff is read without following a symlink.
import { join } from 'node:path';
import { statusOf } from '../admin/status.js';
import { readAgentReport } from '../project/agentObservation.js';
import { daemonStatus } from '../project/daemonRecord.js';
import { mailboxOf } from '../project/layout.js';
import { readPanes } from '../project/tmuxRecord.js';
import { readRoles } from '../handoff/roles.js';
import { itemNamesIn, readItem } from '../queue/index.js';
import { listBookbags } from '../review/bookbag/listBookbags.js';
import { h, type Markup } from './html.js';

/** A handoff id: `<tsid>_<seq>_from_<sender>`. */
const HANDOFF_ID = /^[0-9]{8}T[0-9]{6}Z_[0-9]{6,}_from_[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The swarm: each role's queue and observed agent, and handoffd. */
export function swarmPage(root: string): Markup {
  let rows: Markup[] = [];
  let problem = '';
  try {
    const panes = readPanes(root);
    rows = statusOf(root).map((r) => {
      const agent = readAgentReport(root, r.role);
      return h`<tr><td>${r.role}</td><td>${r.mode}</td><td>${panes.get(r.role) ?? ''}</td>
<td>${agent ? `${agent.state} since ${agent.at}` : 'unknown'}</td><td>${r.new}</td>
<td>${r.in_process}</td><td>${r.completed}</td><td>${r.failed}</td>
<td>${r.rewakes_spent ? `unclaimed for ${r.unclaimed_min} min` : ''}</td></tr>`;
    });
  } catch (err) {
    problem = (err as Error).message.split('\n')[0]!;
  }
  const d = daemonStatus(root);
  return h`<h1>Swarm</h1>
<p>handoffd: ${d.running ? `running, pid ${d.pid}, last pass ${d.last_pass_at}, delivered ${d.delivered}, failed ${d.failed}, errors ${d.errors}` : 'not running'}</p>
${problem ? h`<p class="bad">${problem}</p>` : ''}
<table><tr><th>role</th><th>mode</th><th>pane</th><th>agent</th><th>new</th><th>in process</th>
<th>completed</th><th>failed</th><th>problem</th></tr>${rows}</table>`;
}

/** The review stage's bookbags. */
export function reviewsPage(root: string): Markup {
  const bags = listBookbags(root, { archived: true });
  return h`<h1>Reviews</h1>${
    bags.length === 0
      ? h`<p>No bookbags.</p>`
      : h`<table><tr><th>bead</th><th>state</th><th>CTO</th><th>COO</th><th>accepted</th>
<th>archived</th></tr>${bags.map(
          (b) => h`<tr><td>${b.bead}</td><td>${b.state}</td><td>${String(b.cto_verdict)}</td>
<td>${String(b.coo_verdict)}</td><td>${b.accepted ? 'yes' : ''}</td><td>${b.archived ? 'yes' : ''}</td></tr>`,
        )}</table>`
  }`;
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
    const name = itemNamesIn(dir).find((n) => n.includes(`_${id}_to_`));
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
