// `baton demo`: a three-role swarm (coder → reviewer → qa, qa in batch mode) of scripted
// agents in a private tmux server, fed several tasks that travel end to end through
// handoffd, with progress and a per-handoff timeline (lib/scripted/demoSwarm.ts runs the
// project and the swarm).
import * as fs from 'node:fs';
import { mailboxOf } from '../project/layout.js';
import { completedItemPaths, parseEnvelope } from '../queue/index.js';
import { awaitGoal, seedTasks, withDemoSwarm, type DemoOptions } from './demoSwarm.js';

export type { DemoOptions } from './demoSwarm.js';

const CONF = `# The Baton demo: replace baton-scripted-agent with claude, codex, ...
# to run real agents.
window coder baton-scripted-agent master task --next reviewer
window reviewer baton-scripted-agent review task --next qa
window qa baton-scripted-agent qa batch --final coder
`;

interface Timeline {
  role: string;
  name: string;
  created: number;
  enqueued: number;
  dequeued: number;
  completed: number;
}

async function completedTimelines(root: string, role: string): Promise<Timeline[]> {
  const out: Timeline[] = [];
  for (const file of completedItemPaths(mailboxOf(root, role))) {
    const h = (await parseEnvelope(fs.readFileSync(file))).headers;
    out.push({
      role,
      name: h.task ?? h.message ?? file,
      created: Date.parse(h.created_at!),
      enqueued: Date.parse(h.enqueued_at!),
      dequeued: Date.parse(h.dequeued_at!),
      completed: Date.parse(h.completed_at!),
    });
  }
  return out;
}

/** Runs the demo; fails (environment) when the tasks do not all arrive within the timeout. */
export async function runDemo(options: DemoOptions): Promise<void> {
  await withDemoSwarm(options, CONF, async (demo) => {
    await seedTasks(
      demo,
      options,
      'coder',
      Array.from({ length: options.tasks }, (_, i) => `task-${i + 1}`),
    );
    await awaitGoal(demo, options, {
      coder: options.tasks * 2,
      reviewer: options.tasks,
      qa: options.tasks,
    });
    const say = options.out;
    const lines = (
      await Promise.all(['coder', 'reviewer', 'qa'].map((r) => completedTimelines(demo.root, r)))
    )
      .flat()
      .sort((a, b) => a.created - b.created);
    const ms = (n: number) => `${n} ms`.padStart(8);
    say('\nHandoff timeline (created → enqueued → dequeued → completed):\n');
    say(
      `${'ROLE'.padEnd(9)}${'HANDOFF'.padEnd(24)}${'DELIVERY'.padStart(8)} ` +
        ` ${'WAIT'.padStart(8)}  ${'WORK'.padStart(8)}  ` +
        `${'TOTAL'.padStart(8)}\n`,
    );
    for (const t of lines) {
      say(
        `${t.role.padEnd(9)}${t.name.slice(0, 22).padEnd(24)}${ms(t.enqueued - t.created)} ` +
          ` ${ms(t.dequeued - t.enqueued)}  ` +
          `${ms(t.completed - t.dequeued)}  ` +
          `${ms(t.completed - t.created)}\n`,
      );
    }
    say(
      `\n${lines.length} handoffs completed; ${options.tasks} tasks ` +
        `went coder → reviewer → qa → coder in ` +
        `${Date.now() - demo.started} ms.\n`,
    );
  });
}
