// What every `baton demo` shares: a throw-away git project with the demo's swarmforge.conf,
// the swarm up in a private tmux server, seed tasks queued with swarm_handoff, progress
// until each role has completed its share, and a clean shutdown (nothing outlives the run
// unless `keep`).
import { execFileSync } from 'node:child_process';
import { runGit } from '../proc/git.js';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { attachSession } from '../adapters/tmux.js';
import { fail } from '../fsx/commandFailure.js';
import { type WindowConfig } from '../handoff/config.js';
import { configPathOf, daemonPathsOf, mailboxOf } from '../project/layout.js';
import { completedItemPaths } from '../queue/index.js';
import { swarmDown, swarmUp, type DaemonControl, type SwarmUp } from '../swarm/up.js';

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

/** A running demo swarm. */
export interface DemoSwarm {
  root: string;
  swarm: SwarmUp;
  started: number;
}

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'Baton demo',
  GIT_AUTHOR_EMAIL: 'demo@baton.invalid',
  GIT_COMMITTER_NAME: 'Baton demo',
  GIT_COMMITTER_EMAIL: 'demo@baton.invalid',
};

/**
 * What a demo adds before its swarm starts: committed files, and roles of its own (with their
 * windows), decided once the project exists.
 */
export interface DemoSetup {
  files?: Record<string, string>;
  extraWindows?: (root: string) => WindowConfig[];
}

/** The demo project: a git repository with the demo's conf and files committed. */
function makeDemoProject(conf: string, files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'baton-demo-')));
  runGit(root, ['init', '-q', '-b', 'main']);
  fs.mkdirSync(dirname(configPathOf(root)));
  fs.writeFileSync(configPathOf(root), conf);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(join(root, name), text);
  if (Object.keys(files).length > 0) runGit(root, ['add', '--', ...Object.keys(files)]);
  runGit(root, ['commit', '-q', '--allow-empty', '-m', 'demo start'], { env: GIT_IDENTITY });
  return root;
}

/**
 * `baton ARGS` of this installation run as a person outside the swarm (no SWARMFORGE_ROLE), as
 * the demos' principal and owner; returns its stdout.
 */
export function batonAsPerson(options: DemoOptions, root: string, args: string[]): string {
  const env = { ...process.env };
  delete env.SWARMFORGE_ROLE;
  return execFileSync(process.execPath, [join(options.binDir, 'baton.js'), ...args], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
}

/**
 * Runs `body` against a swarm of `conf` in a new demo project, then stops it and removes the
 * project (unless keep).
 */
export async function withDemoSwarm(
  options: DemoOptions,
  conf: string,
  body: (demo: DemoSwarm) => Promise<void>,
  setup: DemoSetup = {},
): Promise<void> {
  const started = Date.now();
  const root = makeDemoProject(conf, setup.files ?? {});
  let up = false;
  try {
    options.out(`Demo project: ${root}\n`);
    Object.assign(process.env, GIT_IDENTITY);
    const extraWindows = setup.extraWindows?.(root) ?? [];
    const swarm = await swarmUp(root, {
      binDir: options.binDir,
      daemon: options.daemon,
      daemonArgs: ['--poll-interval', '200', '--rewake-interval', '2'],
      extraWindows,
    });
    up = true;
    options.out(`Swarm up: tmux -S ${swarm.socket} attach -t ${swarm.session}\n`);
    await body({ root, swarm, started });
  } finally {
    if (up) await swarmDown(root, options.daemon);
    if (!options.keep) fs.rmSync(root, { recursive: true, force: true });
    else options.out(`Kept ${root}\n`);
  }
}

/**
 * Queues one note per message for `to` (sent by `to`, as a person would seed an agent), then
 * attaches when asked.
 */
export async function seedTasks(
  demo: DemoSwarm,
  options: DemoOptions,
  to: string,
  messages: string[],
): Promise<void> {
  messages.forEach((message, i) => {
    const draft = join(demo.root, `seed-${i + 1}.txt`);
    fs.writeFileSync(draft, `type: note\nto: ${to}\npriority: 50\nmessage: ${message}\n`);
    execFileSync(process.execPath, [join(options.binDir, 'swarm_handoff.js'), draft], {
      cwd: demo.root,
      env: { ...process.env, SWARMFORGE_ROLE: to },
      stdio: 'ignore',
    });
  });
  options.out(`Queued ${messages.length} tasks for ${to}.\n`);
  if (options.attach) await attachSession(demo.swarm.socket, demo.swarm.session);
}

/** How many items the role has completed. */
export function completedCount(root: string, role: string): number {
  return completedItemPaths(mailboxOf(root, role)).length;
}

/** Prints progress until every role has completed its goal; fails (environment) at the timeout. */
export async function awaitGoal(
  demo: DemoSwarm,
  options: DemoOptions,
  goal: Record<string, number>,
): Promise<void> {
  let last = '';
  for (;;) {
    // One reading per pass, printed and judged alike: judged on a second reading, the last
    // item completed in between ended the demo without its final progress line.
    const done = Object.entries(goal).map(([role, n]) => ({
      role,
      count: completedCount(demo.root, role),
      n,
    }));
    const counts = done.map((r) => `${r.role} ${r.count}/${r.n}`).join('  ');
    if (counts !== last) options.out(`progress: ${counts}\n`);
    last = counts;
    if (done.every((r) => r.count >= r.n)) return;
    if (Date.now() - demo.started > options.timeoutMs) {
      fail(
        'environment',
        `baton: the demo timed out after ${options.timeoutMs} ms; see ` +
          `${daemonPathsOf(demo.root).log}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
