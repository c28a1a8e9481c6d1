// Runs for the black-box tests of `baton run`: a git repository with a spec and an
// acceptance script (fixtures/run/accept.mjs), the built `baton run`, and the steps that
// drive a run into each status through the real command line.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join, relative } from 'node:path';
import { fixtureText } from './fixtures.js';
import { type StartOptions } from '../../lib/run/owner/ownerSteps.js';
import { commitIn, git, runBin, tempDir, type RunResult } from './project.js';

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
  const root = tempDir('baton-run-');
  git(root, 'init', '-q', '-b', 'main');
  fs.writeFileSync(join(root, 'spec.md'), '# Spec\nDo the thing.\n');
  fs.writeFileSync(join(root, 'accept.mjs'), fixtureText('run', 'accept.mjs'));
  fs.writeFileSync(join(root, '.gitignore'), 'accept-exit\naccept-hang\nevidence/\n');
  git(root, 'add', '-A');
  commitIn(root, 'init');
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

/** Starts a run of `root` (request `req`); returns its id. */
export function startRun(root: string, extra: string[] = [], request = 'req-1'): string {
  return ok(
    batonRun(root, [
      'start',
      '--request',
      request,
      '--task',
      'add the thing',
      '--spec',
      'spec.md',
      '--acceptance',
      'node accept.mjs',
      ...extra,
    ]),
  ).run_id as string;
}

/** Acquires the lease for the test process; returns its token. */
export function leaseFor(root: string, runId: string): string {
  return ok(
    batonRun(root, ['lease', runId, 'acquire', '--pid', String(process.pid), '--ttl', '3600']),
  ).lease.token as string;
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

/** A run driven to REVIEW_PENDING (stage-start, acceptance, checkpoint with one artifact); returns its id and token. */
export function runAtReview(root: string): { runId: string; token: string } {
  const runId = startRun(root);
  const token = leaseFor(root, runId);
  ok(batonRun(root, ['stage-start', runId, 'implementation', '--lease', token]));
  ok(batonRun(root, ['acceptance', runId, '--lease', token]));
  const work = evidence(root, 'work.md', 'the work\n');
  ok(
    batonRun(root, [
      'checkpoint',
      runId,
      'implementation',
      '--artifact',
      `${work}:work`,
      '--lease',
      token,
    ]),
  );
  return { runId, token };
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
