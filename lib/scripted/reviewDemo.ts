// `baton demo --review`: a coder and two teachers (the CTO and COO lenses, each
// `baton review teacher` running the scripted reviewer) in a private tmux server. The coder
// submits each task for review; every other task carries a HIGH security finding for the
// CTO lens, so it fails and its findings reach the coder in the review_result. When every
// result is in, the principal's steps run (`baton review score`, then `dispose`) and the
// summary prints each bead's verdicts, scores, findings and timings.
//
// The launcher may not import lib/review (the layers are siblings), so the demo reads and
// moves the bookbags through the built `baton review` commands, as a person or a
// controller would.
import * as fs from 'node:fs';
import { Tmux } from '../adapters/tmux.js';
import { mailboxOf } from '../project/layout.js';
import { completedItemPaths, parseEnvelope } from '../queue/index.js';
import {
  awaitGoal,
  seedTasks,
  withDemoSwarm,
  type DemoOptions,
  type DemoSwarm,
  batonAsPerson,
} from './demoSwarm.js';

const CONF = `# The Baton review demo: a coder whose work a CTO and a COO teacher review. Replace
# baton-scripted-agent with your agent, and baton-scripted-reviewer with a reviewer that
# reads the prompt on stdin and prints a findings document (e.g. claude -p).
window coder       baton-scripted-agent master task --review
window teacher-cto baton teacher-cto task review teacher --lens cto -- baton-scripted-reviewer
window teacher-coo baton teacher-coo task review teacher --lens coo -- baton-scripted-reviewer
review cto teacher-cto
review coo teacher-coo
`;

/** The finding every other task carries (CTO lens only). */
const SEEDED_FINDING = 'FINDING(cto): HIGH security: the session token is written to the log';

/** The fields of a bookbag the summary prints. */
interface ShownBead {
  bead: string;
  task: string;
  cto_verdict: string;
  coo_verdict: string;
  cto_score: number;
  coo_score: number;
  accepted: boolean;
  findings: { lens: string; severity: string; section: string; description: string }[];
  history: { at: string; event: string }[];
}

/** `baton review ARGS` of this installation as the principal; returns its stdout. */
function principalReview(options: DemoOptions, root: string, args: string[]): string {
  return batonAsPerson(options, root, ['review', ...args]);
}

/** When the coder claimed each bead's review_result (ms since the epoch), by bead. */
async function resultsClaimed(root: string): Promise<Map<string, number>> {
  const claimed = new Map<string, number>();
  for (const file of completedItemPaths(mailboxOf(root, 'coder'))) {
    const h = (await parseEnvelope(fs.readFileSync(file))).headers;
    if (h.type === 'review_result' && h.bead) claimed.set(h.bead, Date.parse(h.dequeued_at!));
  }
  return claimed;
}

/** Scores and disposes of every bead (the principal's steps); returns each as scored. */
function scoreAndDispose(options: DemoOptions, root: string): ShownBead[] {
  const listed = JSON.parse(principalReview(options, root, ['list', '--json'])) as {
    bead: string;
  }[];
  return listed.map(({ bead }) => {
    principalReview(options, root, ['score', bead]);
    const shown = JSON.parse(principalReview(options, root, ['show', bead, '--json'])) as ShownBead;
    principalReview(options, root, ['dispose', bead]);
    return shown;
  });
}

/**
 * The summary: one line per bead (in the order submitted) with its verdicts, scores and timings
 * from its submission, then its findings.
 */
function summaryOf(beads: ShownBead[], claimed: Map<string, number>): string {
  const atEvent = (b: ShownBead, event: string) =>
    Date.parse(b.history.find((h) => h.event === event)?.at ?? '');
  const ms = (n: number) => (Number.isNaN(n) ? '-' : `${n} ms`).padStart(12);
  const lens = (verdict: string, score: number) => `${verdict} ${score}`.padEnd(10);
  const inOrder = [...beads].sort((a, b) => atEvent(a, 'submitted') - atEvent(b, 'submitted'));
  let text = '\nReview summary (times from submit):\n';
  const left = [
    ['BEAD', 25],
    ['TASK', 10],
    ['CTO', 10],
    ['COO', 10],
    ['ACCEPTED', 9],
  ] as const;
  const right = ['CTO VERDICT', 'COO VERDICT', 'RESULT READ'];
  const heads =
    left.map(([h, w]) => h.padEnd(w)).join('') + right.map((h) => h.padStart(12)).join('');
  text += `${heads}\n`;
  for (const b of inOrder) {
    const submitted = atEvent(b, 'submitted');
    const verdicts = `${lens(b.cto_verdict, b.cto_score)}${lens(b.coo_verdict, b.coo_score)}`;
    const accepted = (b.accepted ? 'yes' : 'no').padEnd(9);
    text += `${b.bead.padEnd(25)}${b.task.slice(0, 9).padEnd(10)}${verdicts}${accepted}`;
    const since = (at: number) => ms(at - submitted);
    const times = [
      atEvent(b, 'cto_verdict'),
      atEvent(b, 'coo_verdict'),
      claimed.get(b.bead) ?? NaN,
    ];
    text += `${times.map(since).join('')}\n`;
    for (const f of b.findings)
      text += `  finding: ${f.lens} ${f.severity} ${f.section}: ${f.description}\n`;
  }
  return text;
}

/** Each teacher's TEACHER: line as its pane shows it (it names the persona file used). */
async function teacherLines(demo: DemoSwarm): Promise<string> {
  const tmux = new Tmux(demo.swarm.socket);
  let text = '';
  for (const role of ['teacher-cto', 'teacher-coo']) {
    const pane = await tmux.capturePane(demo.swarm.panes.get(role)!);
    const line = pane.split('\n').find((l) => l.startsWith('TEACHER: '));
    text += `${line ?? `TEACHER: ${role} printed no TEACHER: line`}\n`;
  }
  return text;
}

/**
 * Runs the review demo; fails (environment) when the reviews do not all complete within the
 * timeout.
 */
export async function runReviewDemo(options: DemoOptions): Promise<void> {
  await withDemoSwarm(options, CONF, async (demo) => {
    const tasks = Array.from({ length: options.tasks }, (_, i) =>
      i % 2 === 1 ? `task-${i + 1} ${SEEDED_FINDING}` : `task-${i + 1}`,
    );
    await seedTasks(demo, options, 'coder', tasks);
    await awaitGoal(demo, options, {
      coder: options.tasks * 2,
      'teacher-cto': options.tasks,
      'teacher-coo': options.tasks,
    });
    const beads = scoreAndDispose(options, demo.root);
    options.out(await teacherLines(demo));
    options.out(summaryOf(beads, await resultsClaimed(demo.root)));
    const accepted = beads.filter((b) => b.accepted).length;
    options.out(
      `\n${beads.length} beads reviewed by a CTO and a COO teacher: ` +
        `${accepted} accepted, ${beads.length - accepted} failed; ` +
        `every result reached coder; scored and disposed in ` +
        `${Date.now() - demo.started} ms.\n`,
    );
  });
}
