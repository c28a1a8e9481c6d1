// Where one handoffd delivery's time goes before its copy can appear: the non-fsync steps
// of a pass and of deliverHandoff, each timed alone in this process with the library's own
// functions on a real project, plus fsyncs per delivery. Explains figures 4 and 5; not
// itself a figure.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { deliverHandoff } from '../lib/daemon/deliver.js';
import { DaemonLog } from '../lib/daemon/log.js';
import { mailboxOf } from '../lib/handoff/layout.js';
import { readRoles } from '../lib/handoff/roles.js';
import { copyPlaces, freeNameIn } from '../lib/queue/deliver.js';
import { serializeEnvelope } from '../lib/queue/envelope.js';
import { readItem } from '../lib/queue/item.js';
import { ensureMailbox } from '../lib/queue/mailbox.js';
import { itemNamesIn } from '../lib/queue/names.js';
import { makeProject } from '../test/support/project.js';
import { countFsyncs } from './support/fsyncCount.js';
import { handoffFile } from './support/handoffFiles.js';
import { sampleAlone } from './support/interleave.js';
import { formatMs, summarize } from './support/stats.js';

const WARMUP = 20;
const RUNS = 200;
/** Outbox entries for the per-pass sort figure (a backlog, as in figure 5). */
const SORTED = 1_000;

async function medianOf(run: () => Promise<unknown> | unknown): Promise<number> {
  return summarize(await sampleAlone(async () => void (await run()), WARMUP, RUNS)).median;
}

/** Times the parts of a delivery from `sender` to one recipient on a fresh default project and prints them. */
export async function printDeliveryPhases(sender: string, recipient: string): Promise<void> {
  const project = makeProject();
  try {
    const roles = readRoles(project.root).roles;
    for (const role of roles.keys()) ensureMailbox(project.box(role));
    const file = await handoffFile(1, sender, [recipient]);
    const original = join(project.box(sender).outbox, file.name);
    fs.writeFileSync(original, file.bytes, { mode: 0o600 });
    const item = await readItem(original);
    const log = new DaemonLog(join(project.root, 'bench.log'));
    const queue = Array.from({ length: SORTED }, (_, i) => ({ sender, name: `50_20260101T000000Z_${String(i).padStart(6, '0')}_from_${sender}_to_${recipient}.handoff` }));
    const parts: [string, number][] = [
      [`pass start: read roles.tsv, list ${roles.size} outboxes `, await medianOf(() => {
        const table = readRoles(project.root).roles;
        for (const role of table.keys()) itemNamesIn(mailboxOf(project.root, role).outbox);
      })],
      ['readItem of the original (YAML) ', await medianOf(() => readItem(original))],
      ['copyPlaces: has the recipient this id? ', await medianOf(() => copyPlaces(mailboxOf(project.root, recipient), file.name, false))],
      ['ensureMailbox of the recipient ', await medianOf(() => ensureMailbox(mailboxOf(project.root, recipient)))],
      ['serializeEnvelope of the copy (YAML) ', await medianOf(() => serializeEnvelope({ ...item.headers, recipient, enqueued_at: new Date().toISOString() }, item.body))],
    ];
    const after: [string, number][] = [
      ['freeNameIn(sent/) ', await medianOf(() => freeNameIn(project.box(sender).sent, file.name))],
      ['log line (appendFileSync) ', await medianOf(() => log.write('delivered', { id: item.id, name: file.name, from: sender, to: recipient }))],
    ];
    const sortMs = await medianOf(() => [...queue].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.sender < b.sender ? -1 : 1)));
    const tmp = join(project.root, '.swarmforge', 'daemon', 'tmp');
    fs.mkdirSync(tmp, { recursive: true, mode: 0o700 });
    const fsyncs = await countFsyncs(() => deliverHandoff({ root: project.root, roles, tmp }, sender, file.name, false));
    const row = (label: string, ms: number) => console.log(`      ${label.padEnd(50, '.')} ${formatMs(ms).padStart(9)}`);
    console.log('    where a delivery\'s time goes besides fsync (each step timed alone in this process, median):');
    for (const [label, ms] of parts) row(label, ms);
    row('sum before the copy is written ', parts.reduce((sum, [, ms]) => sum + ms, 0));
    for (const [label, ms] of after) row(`after the link: ${label}`, ms);
    row(`per pass: sort ${SORTED.toLocaleString('en')} queued names `, sortMs);
    console.log(`      fsyncs per delivery to one recipient: ${fsyncs} (copy, new/, sent/, outbox/), as the raw baselines do.`);
  } finally {
    project.cleanup();
  }
}
