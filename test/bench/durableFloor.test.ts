// Each durable floor of the bench (bench/support/durableFloor.ts) makes the durable steps of
// the command it stands for: run both under strace, and the counts of fsyncs, renames, links,
// removals and files created are the same. A command that gains or drops a durable step
// fails here until its floor follows, so a figure's floor line stays what the disk allows.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { submitReview } from '../../lib/review/lens/submit.js';
import { SNAPSHOT_STATUS } from '../../lib/run/gates/repoState.js';
import {
  claimFloor,
  completionFloor,
  floorArgs,
  pauseFloor,
  recordFloor,
  replyFloor,
  sendFloor,
  type Floor,
} from '../../bench/support/durableFloor.js';
import { agentEnv, ownerEnv } from '../../bench/support/spawnNode.js';
import { submission } from '../support/bookbags.js';
import { fixtureText } from '../support/fixtures.js';
import {
  BIN_DIR,
  makeProject,
  noteDraft,
  placeItem,
  runExecutable,
  tempDir,
  writeDraft,
  type Project,
} from '../support/project.js';
import { leaseFor, makeRunRepo, runInProcess, startRun } from '../support/runs.js';
import { traceNode } from '../support/strace.js';

/** The calls a durable step makes (a file created is an openat with O_CREAT). */
const DURABLE_CALLS =
  'openat,fsync,fdatasync,rename,renameat,renameat2,link,linkat,unlink,unlinkat';

/** Durable calls by kind, as one line per kind (so a mismatch prints both whole). */
type Counts = Record<'fsync' | 'rename' | 'link' | 'unlink' | 'create', number>;

/** Runs `node args` in `cwd` under strace and counts its successful durable calls. */
function durableCounts(args: string[], cwd: string, env: NodeJS.ProcessEnv): Counts {
  const run = traceNode(args, {
    calls: DURABLE_CALLS,
    cwd,
    // No code cache: its file would be one more durable write, and only on a first run.
    env: { ...env, NODE_DISABLE_COMPILE_CACHE: '1' },
  });
  assert.equal(run.code, 0, `${args.slice(0, 3).join(' ')} failed: ${run.stderr}`);
  const calls = run.calls.filter((c) => c.ret >= 0);
  const named = (pattern: RegExp) => calls.filter((c) => pattern.test(c.name)).length;
  return {
    fsync: named(/^f(data)?sync$/),
    rename: named(/^rename(at2?)?$/),
    link: named(/^link(at)?$/),
    unlink: named(/^unlink(at)?$/),
    create: run.log.split('\n').filter((l) => /^\d+\s+openat\(.*O_CREAT.*\)\s+= \d+/.test(l))
      .length,
  };
}

/** Runs `node args` once, untraced, as the first of a command's calls. */
function warmUp(args: string[], cwd: string, env: NodeJS.ProcessEnv): void {
  const run = runExecutable(process.execPath, args, { cwd, env });
  assert.equal(run.code, 0, `${args.slice(0, 3).join(' ')} failed: ${run.stderr}`);
}

/**
 * The floor's counts in its own scratch folder, prepared and reset as the bench does, on its
 * second run: as the commands are traced, after a first (a lock's take then removes the
 * generation before it).
 */
function floorCounts(floor: Floor, cwd: string): Counts {
  const once = <T>(run: () => T): T => {
    floor.prepare();
    try {
      return run();
    } finally {
      floor.reset();
    }
  };
  once(() => warmUp(floorArgs(floor.steps), cwd, process.env));
  return once(() => durableCounts(floorArgs(floor.steps), cwd, process.env));
}

describe('bench durable floors (strace)', () => {
  let scratch: string;
  beforeEach(() => (scratch = tempDir('baton-floor-')));
  afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));

  describe('agent commands', () => {
    let project: Project;
    beforeEach(() => (project = makeProject()));
    afterEach(() => project.cleanup());

    it('a claim and a completion make the durable calls of ready_for_next and done_with_current', async () => {
      const box = project.box('reviewer');
      const env = agentEnv('reviewer');
      await placeItem(box.inboxNew, {});
      warmUp([join(BIN_DIR, 'ready_for_next.js')], project.root, env);
      warmUp([join(BIN_DIR, 'done_with_current.js')], project.root, env);
      const bytes = fs.readFileSync(await placeItem(box.inboxNew, {}));
      const claim = durableCounts([join(BIN_DIR, 'ready_for_next.js')], project.root, env);
      assert.deepEqual(floorCounts(claimFloor(scratch, bytes), scratch), claim);
      const done = durableCounts([join(BIN_DIR, 'done_with_current.js')], project.root, env);
      assert.deepEqual(floorCounts(completionFloor(scratch, bytes), scratch), done);
    });

    it('a send makes the durable calls of swarm_handoff', () => {
      const text = noteDraft('reviewer');
      const send = [join(BIN_DIR, 'swarm_handoff.js'), join(project.root, 'draft.txt')];
      writeDraft(project.root, text);
      warmUp(send, project.root, agentEnv('coder'));
      writeDraft(project.root, text);
      assert.deepEqual(
        floorCounts(sendFloor(scratch, text), scratch),
        durableCounts(send, project.root, agentEnv('coder')),
      );
    });
  });

  it("a record's replacement makes the durable calls of a review verdict", async () => {
    const project = makeProject(fixtureText('conf', 'review.conf'));
    try {
      const { bead } = await submitReview(
        project.root,
        submission({ ctoRole: 'cto', cooRole: 'coo' }),
      );
      const verdict = durableCounts(
        [
          join(BIN_DIR, 'baton.js'),
          'review',
          'verdict',
          bead,
          '--lens',
          'cto',
          '--finding',
          'LOW:s:a',
        ],
        project.root,
        agentEnv('cto'),
      );
      assert.deepEqual(floorCounts(recordFloor(scratch, 'a verdict'), scratch), verdict);
    } finally {
      project.cleanup();
    }
  });

  describe('run actions', () => {
    let root: string;
    let runId: string;
    let token: string;
    const baton = (...args: string[]) => [join(BIN_DIR, 'baton.js'), 'run', ...args];
    beforeEach(async () => {
      root = makeRunRepo();
      runId = await startRun(root);
      token = await leaseFor(root, runId);
    });
    afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

    it('a heartbeat, a provider report, a pause and a resume make their durable calls', () => {
      const env = ownerEnv();
      const record = () => floorCounts(recordFloor(scratch, 'a heartbeat'), scratch);
      const heartbeat = durableCounts(
        baton('lease', runId, 'heartbeat', '--lease', token),
        root,
        env,
      );
      assert.deepEqual(record(), heartbeat);
      const provider = ['provider', runId, '--name', 'p', '--succeeded', '--lease', token];
      assert.deepEqual(record(), durableCounts(baton(...provider), root, env));
      assert.deepEqual(
        floorCounts(pauseFloor(scratch), scratch),
        durableCounts(baton('pause', runId), root, env),
      );
      const resumeFloor = recordFloor(join(scratch, 'resume'), 'a resume', {
        before: [['git', [...SNAPSHOT_STATUS]]],
      });
      assert.deepEqual(
        floorCounts(resumeFloor, root),
        durableCounts(baton('resume', runId), root, env),
      );
    });

    it('a reply makes the durable calls of baton run reply (its mailbox made by a first)', async () => {
      const second = await startRun(root, [], 'req-2');
      const secondToken = await leaseFor(root, second);
      await runInProcess(root, ['stage-start', runId, 'implementation', '--lease', token]);
      await runInProcess(root, ['stage-start', second, 'implementation', '--lease', secondToken]);
      fs.writeFileSync(join(root, 'work.md'), 'the work\n');
      const replyTo = (id: string) =>
        baton(
          ...['reply', id, '--kind', 'work', '--stage', 'implementation'],
          ...['--cycle', '1', '--file', 'work.md'],
        );
      warmUp(replyTo(runId), root, agentEnv('worker'));
      const reply = durableCounts(replyTo(second), root, agentEnv('worker'));
      assert.deepEqual(floorCounts(replyFloor(scratch), scratch), reply);
    });
  });
});
