// Runs for the black-box tests of `baton run`: a git repository with a spec and an
// acceptance script (fixtures/run/accept.mjs), the built `baton run`, and the steps that
// drive a run into each status. The steps that set a test up (startRun, leaseFor,
// runAtReview) run the same actions in the test's own process (runInProcess): through the
// built bin each cost a Node start-up, about a quarter of a second of CPU on a loaded
// machine, and the suite paid hundreds of them; what a test asserts still goes through
// batonRun.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join, relative } from 'node:path';
import { fixtureText } from './fixtures.js';
import { type StartOptions } from '../../lib/run/owner/ownerSteps.js';
import { commitIn, copyOfRepo, git, makeRepo, runBin, type RunResult } from './project.js';
import { parseAction } from '../../lib/cli/run/runCommand.js';
import { RUN_ACTIONS } from '../../lib/cli/run/runActionTable.js';
import { runContextOf } from '../../lib/run/record/runContext.js';

/** Options of a run started in process (startStep): the defaults, roles with a `ctl` controller. */
export function startOptions(over: Partial<StartOptions> = {}): StartOptions {
  return {
    request: 'req-1',
    task: 'add the thing',
    spec: 'spec.md',
    acceptance: 'node accept.mjs',
    stages: ['implementation'],
    maxCycles: 3,
    acceptanceTimeoutS: 60,
    retryAttempts: 3,
    retryBaseMs: 100,
    roles: {
      worker: 'worker',
      reviewers: ['reviewer-a', 'reviewer-b'],
      validator: 'validator',
      controller: 'ctl',
    },
    ...over,
  };
}

/** A repository to run in: one commit, spec.md, accept.mjs. */
export function makeRunRepo(): string {
  return copyOfRepo(
    'run',
    (dir) => {
      git(dir, 'init', '-q', '-b', 'main');
      fs.writeFileSync(join(dir, 'spec.md'), '# Spec\nDo the thing.\n');
      fs.writeFileSync(join(dir, 'accept.mjs'), fixtureText('run', 'accept.mjs'));
      fs.writeFileSync(join(dir, '.gitignore'), 'accept-exit\naccept-hang\nevidence/\n');
      git(dir, 'add', '-A');
      commitIn(dir, 'init');
    },
    'baton-run-',
  );
}

/** The four agent roles of a run, each a scripted agent in ROOT (run up adds the controller). */
export const RUN_SWARM_CONF =
  ['worker', 'reviewer-a', 'reviewer-b', 'validator']
    .map((r) => `window ${r} baton-scripted-agent master`)
    .join('\n') + '\n';

/** A repository with `conf` as swarmforge.conf, a spec and an acceptance script that passes. */
export function runSwarmProject(conf = RUN_SWARM_CONF): string {
  const root = makeRepo(conf);
  fs.writeFileSync(join(root, 'spec.md'), 'spec\n');
  fs.writeFileSync(join(root, 'accept.mjs'), 'process.exit(0)\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'spec');
  return root;
}

/** `baton run ARGS` in `cwd`. */
export function batonRun(
  cwd: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): RunResult {
  return runBin('baton', ['run', ...args], { cwd, env });
}

/** The JSON status a successful action printed (asserting exit 0). */
export function ok(r: RunResult): Record<string, any> {
  assert.equal(r.code, 0, `exit ${r.code}: ${r.stderr}`);
  assert.equal(r.stderr, '');
  return JSON.parse(r.stdout) as Record<string, any>;
}

/**
 * `baton run ARGS` in `cwd`, run in this process by the action table the bin uses, outside the
 * swarm; returns the status the bin would print. A refusal throws, a blocking outcome fails.
 */
export async function runInProcess(cwd: string, args: string[]): Promise<Record<string, any>> {
  const [name, ...rest] = args;
  const action = RUN_ACTIONS[name!]!;
  const { values, positionals } = parseAction(name!, action, rest);
  const env = { ...process.env };
  for (const v of ['SWARMFORGE_ROLE', 'SWARMFORGE_ROOT', 'TMUX', 'TMUX_PANE']) delete env[v];
  const result = await action.run(runContextOf(cwd, env), values, positionals);
  if (Array.isArray(result)) return { runs: result };
  assert.ok(result !== undefined, `baton run ${name!} prints its own output`);
  assert.equal(result.blocked, undefined, `baton run ${args.join(' ')}: blocked`);
  return JSON.parse(JSON.stringify(result.status)) as Record<string, any>;
}

/** The `baton run start` arguments of the tests' run (request `request`). */
export function startArgsOf(request = 'req-1'): string[] {
  return [
    'start',
    '--request',
    request,
    '--task',
    'add the thing',
    '--spec',
    'spec.md',
    '--acceptance',
    'node accept.mjs',
  ];
}

/** Starts a run of `root` (request `req`); returns its id. */
export async function startRun(
  root: string,
  extra: string[] = [],
  request = 'req-1',
): Promise<string> {
  return (await runInProcess(root, [...startArgsOf(request), ...extra])).run_id as string;
}

/** Acquires the lease for the test process; returns its token. */
export async function leaseFor(root: string, runId: string): Promise<string> {
  const args = ['lease', runId, 'acquire', '--pid', String(process.pid), '--ttl', '3600'];
  return (await runInProcess(root, args)).lease.token as string;
}

/** Writes an evidence file under `root/evidence/`; returns its path relative to root. */
export function evidence(root: string, name: string, text: string): string {
  fs.mkdirSync(join(root, 'evidence'), { recursive: true });
  fs.writeFileSync(join(root, 'evidence', name), text);
  return `evidence/${name}`;
}

/** A lane file of `cycle` with the given `FINDING` lines. */
export function laneFile(
  root: string,
  lane: string,
  cycle: number,
  findings: string[] = [],
): string {
  return evidence(
    root,
    `${lane}-c${cycle}.txt`,
    `LANE: ${lane}\nCYCLE: ${cycle}\n${findings.map((f) => `FINDING ${f}\n`).join('')}`,
  );
}

/**
 * A run driven to REVIEW_PENDING (stage-start, acceptance, checkpoint with one artifact);
 * returns its id and token. `o.change` runs after the stage starts (a commit gives the
 * checkpoint a diff); `o.request` names the request (req-1).
 */
export async function runAtReview(
  root: string,
  o: { request?: string; change?: () => void } = {},
): Promise<{ runId: string; token: string }> {
  const runId = await startRun(root, [], o.request);
  const token = await leaseFor(root, runId);
  await runInProcess(root, ['stage-start', runId, 'implementation', '--lease', token]);
  o.change?.();
  await runInProcess(root, ['acceptance', runId, '--lease', token]);
  const work = evidence(root, 'work.md', 'the work\n');
  await runInProcess(root, [
    'checkpoint',
    runId,
    'implementation',
    '--artifact',
    `${work}:work`,
    '--lease',
    token,
  ]);
  return { runId, token };
}

/**
 * A run waiting for its owner's approval: a committed change to `src.txt` after the start (so
 * the checkpoint has a diff), reviewed with one non-blocking finding of each lane titled
 * `title`. Returns its id.
 */
export async function runAtApproval(
  root: string,
  title = 'a small thing',
  request = 'req-1',
): Promise<string> {
  const change = () => {
    fs.writeFileSync(join(root, 'src.txt'), `line one\n<b>bold</b> line two\n${request}\n`);
    git(root, 'add', 'src.txt');
    commitIn(root, 'the change');
  };
  const { runId, token } = await runAtReview(root, { request, change });
  await runInProcess(root, [
    'review',
    runId,
    '--cycle',
    '1',
    '--lane',
    `structured=${laneFile(root, 'structured', 1, [`s-1 Minor ${title}`])}`,
    '--lane',
    `independent=${laneFile(root, 'independent', 1, [`i-1 Nit ${title}`])}`,
    '--lease',
    token,
  ]);
  return runId;
}

/** Every file below `dir` with its bytes (for byte-for-byte comparisons). */
export function snapshotOf(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(dir, p), fs.readFileSync(p).toString('base64'));
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

/** The run folder of `runId` under ROOT. */
export function runDirOf(root: string, runId: string): string {
  return join(root, '.swarmforge', 'runs', runId);
}
