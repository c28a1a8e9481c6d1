// `baton demo`: a three-role swarm (coder → reviewer → qa, qa in batch mode) of scripted
// agents in a private tmux server, fed several tasks that travel end to end through
// handoffd, with progress, a per-handoff timeline, and a clean shutdown. Nothing of it
// outlives the run unless --keep is given.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { attachSession } from '../adapters/tmux.js';
import { fail } from '../handoff/errors.js';
import { configPathOf, daemonPathsOf, mailboxOf } from '../handoff/layout.js';
import { parseEnvelope } from '../queue/envelope.js';
import { completedItemPaths } from '../queue/finish.js';
import { swarmDown, swarmUp, type DaemonControl } from './up.js';

/** Options of one demo run. */
export interface DemoOptions {
  binDir: string;
  daemon: DaemonControl;
  tasks: number;
  attach: boolean;
  keep: boolean;
  timeoutMs: number;
  out: (text: string) => void;
}

const CONF = `# The Baton demo: replace baton-scripted-agent with claude, codex, ... to run real agents.
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
      role, name: h.task ?? h.message ?? file, created: Date.parse(h.created_at!), enqueued: Date.parse(h.enqueued_at!),
      dequeued: Date.parse(h.dequeued_at!), completed: Date.parse(h.completed_at!),
    });
  }
  return out;
}

function completedCount(root: string, role: string): number {
  return completedItemPaths(mailboxOf(root, role)).length;
}

/** Runs the demo; fails (environment) when the tasks do not all arrive within the timeout. */
export async function runDemo(options: DemoOptions): Promise<void> {
  const root = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'baton-demo-')));
  const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'Baton demo', GIT_AUTHOR_EMAIL: 'demo@baton.invalid', GIT_COMMITTER_NAME: 'Baton demo', GIT_COMMITTER_EMAIL: 'demo@baton.invalid' };
  const say = options.out;
  const started = Date.now();
  let up = false;
  try {
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root });
    execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'demo start'], { cwd: root, env: gitEnv });
    fs.mkdirSync(dirname(configPathOf(root)));
    fs.writeFileSync(configPathOf(root), CONF);
    say(`Demo project: ${root}\n`);
    for (const [k, v] of Object.entries(gitEnv)) if (k.startsWith('GIT_')) process.env[k] = v;
    const swarm = await swarmUp(root, { binDir: options.binDir, daemon: options.daemon, daemonArgs: ['--poll-interval', '200', '--rewake-interval', '2'] });
    up = true;
    say(`Swarm up: tmux -S ${swarm.socket} attach -t ${swarm.session}\n`);
    for (let i = 1; i <= options.tasks; i++) {
      const draft = join(root, `seed-${i}.txt`);
      fs.writeFileSync(draft, `type: note\nto: coder\npriority: 50\nmessage: task-${i}\n`);
      execFileSync(process.execPath, [join(options.binDir, 'swarm_handoff.js'), draft], { cwd: root, env: { ...process.env, SWARMFORGE_ROLE: 'coder' }, stdio: 'ignore' });
    }
    say(`Queued ${options.tasks} tasks for coder.\n`);
    if (options.attach) await attachSession(swarm.socket, swarm.session);
    const goal = { coder: options.tasks * 2, reviewer: options.tasks, qa: options.tasks };
    let last = '';
    for (;;) {
      const counts = Object.keys(goal).map((r) => `${r} ${completedCount(root, r)}/${goal[r as keyof typeof goal]}`).join('  ');
      if (counts !== last) say(`progress: ${counts}\n`);
      last = counts;
      if (Object.entries(goal).every(([r, n]) => completedCount(root, r) >= n)) break;
      if (Date.now() - started > options.timeoutMs) {
        fail('environment', `baton: the demo timed out after ${options.timeoutMs} ms; see ${daemonPathsOf(root).log}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const lines = (await Promise.all(['coder', 'reviewer', 'qa'].map((r) => completedTimelines(root, r)))).flat().sort((a, b) => a.created - b.created);
    const ms = (n: number) => `${n} ms`.padStart(8);
    say('\nHandoff timeline (created → enqueued → dequeued → completed):\n');
    say(`${'ROLE'.padEnd(9)}${'HANDOFF'.padEnd(24)}${'DELIVERY'.padStart(8)}  ${'WAIT'.padStart(8)}  ${'WORK'.padStart(8)}  ${'TOTAL'.padStart(8)}\n`);
    for (const t of lines) {
      say(`${t.role.padEnd(9)}${t.name.slice(0, 22).padEnd(24)}${ms(t.enqueued - t.created)}  ${ms(t.dequeued - t.enqueued)}  ${ms(t.completed - t.dequeued)}  ${ms(t.completed - t.created)}\n`);
    }
    say(`\n${lines.length} handoffs completed; ${options.tasks} tasks went coder → reviewer → qa → coder in ${Date.now() - started} ms.\n`);
  } finally {
    if (up) await swarmDown(root, options.daemon);
    if (!options.keep) fs.rmSync(root, { recursive: true, force: true });
    else say(`Kept ${root}\n`);
  }
}
