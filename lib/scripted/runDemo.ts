// `baton demo --run`: a durable run driven end to end by its controller in a private tmux
// server. Scripted agents play the worker, the two reviewers (the structured lane finds an
// Important problem in cycle 1) and the validator; the controller (`baton run drive`) sends
// the stage, both reviews, the validation and the resolution over the queue; cycle 2 is
// clean; at the approval gate the demo approves as the owner. The summary prints the run's
// history and the hashes of its artifacts.
//
// The launcher may not import lib/run (the layers are siblings): the demo starts, watches
// and approves the run through the built `baton run` commands, as an owner would, and reads
// the record's history for the summary from its file.
import * as fs from 'node:fs';
import { runPathsOf } from '../project/layout.js';
import { withDemoSwarm, type DemoOptions, batonAsPerson } from './demoSwarm.js';

const FINDING = '1=sec-1 Important the session token is written to the log';
const CONF = [
  "# The Baton run demo: scripted agents for the run's roles;",
  '# the controller is added by the demo.',
  'window worker     baton-scripted-agent master',
  `window reviewer-a baton-scripted-agent master --findings "${FINDING}"`,
  'window reviewer-b baton-scripted-agent master',
  'window validator  baton-scripted-agent master',
  '',
].join('\n');

const FILES = {
  'spec.md': '# Login form\nThe form posts to /login and never logs the session token.\n',
  'accept.mjs': 'console.log("acceptance: 3 checks passed");\n',
};

/** `baton run ARGS` of this installation as the owner; returns its stdout. */
function owner(options: DemoOptions, root: string, args: string[]): string {
  return batonAsPerson(options, root, ['run', ...args]);
}

/** The run's status fields the progress lines show. */
function statusOf(options: DemoOptions, root: string, runId: string): Record<string, any> {
  return JSON.parse(owner(options, root, ['status', runId])) as Record<string, any>;
}

/** Prints each change of status, phase or cycle until `done` says stop; fails at the timeout. */
async function follow(
  options: DemoOptions,
  root: string,
  runId: string,
  started: number,
  done: (s: Record<string, any>) => boolean,
): Promise<void> {
  let last = '';
  for (;;) {
    const s = statusOf(options, root, runId);
    const line =
      `run: ${s.status}/${s.phase}  cycle ${s.review_cycle}  ` +
      `blocking ` +
      `${s.blocking_findings}${s.block_reason ? `  (${s.block_reason})` : ''}`;
    if (line !== last) options.out(`${line}\n`);
    last = line;
    if (done(s)) return;
    if (s.status === 'BLOCKED' || Date.now() - started > options.timeoutMs)
      throw new Error(
        `baton: the run demo stopped at ${s.status}/${s.phase}; see ` +
          `${runPathsOf(root, runId).controllerLog}`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The summary: the run's history and its artifacts with their hashes. */
function summaryOf(root: string, runId: string): string {
  const record = JSON.parse(fs.readFileSync(runPathsOf(root, runId).workflow, 'utf8')) as {
    history: { at: string; actor: string; action: string; to: string; detail: string }[];
    artifacts: { path: string; sha256: string; type: string }[];
  };
  const t0 = Date.parse(record.history[0]!.at);
  const history = record.history.map(
    (h) =>
      `  +${String(Date.parse(h.at) - t0).padStart(6)} ms  ` +
      `${h.action.padEnd(16)}${h.to.padEnd(44)}${h.detail.slice(0, 60)}`,
  );
  const artifacts = record.artifacts.map(
    (a) => `  ${a.sha256.slice(0, 16)}  ${a.type.padEnd(20)}${a.path}`,
  );
  return ['', 'History:', ...history, '', 'Artifacts (sha256):', ...artifacts, ''].join('\n');
}

/** Runs the run demo; fails (environment) when the run does not complete within the timeout. */
export async function runRunDemo(options: DemoOptions): Promise<void> {
  let runId = '';
  await withDemoSwarm(
    options,
    CONF,
    async (demo) => {
      options.out(`Run ${runId} is driven by its controller (window controller).\n`);
      await follow(
        options,
        demo.root,
        runId,
        demo.started,
        (s) => s.status === 'WAITING_FOR_HUMAN_APPROVAL',
      );
      options.out('The owner approves: baton run approve\n');
      owner(options, demo.root, ['approve', runId]);
      await follow(options, demo.root, runId, demo.started, (s) => s.status === 'COMPLETED');
      options.out(summaryOf(demo.root, runId));
      options.out(
        `Run ${runId} COMPLETED in ${Date.now() - demo.started} ms: ` +
          `one review cycle with an Important finding, validated and ` +
          `resolved, a clean second cycle, approved.\n`,
      );
    },
    {
      files: FILES,
      extraWindows: (root) => {
        runId = (
          JSON.parse(
            owner(options, root, [
              'start',
              '--request',
              'login-form',
              '--task',
              'Add the login form',
              '--spec',
              'spec.md',
              '--acceptance',
              'node accept.mjs',
            ]),
          ) as { run_id: string }
        ).run_id;
        return [
          {
            line: 0,
            role: 'controller',
            agent: 'baton',
            worktree: 'master',
            mode: 'task',
            extraArgs: `run drive ${runId} --reclaim-stale --poll-interval 0.2`,
          },
        ];
      },
    },
  );
}
