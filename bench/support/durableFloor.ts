// The durable floor of a command: a bare Node process (`node -e`, nothing loaded) that makes
// the same durable file-system steps the command makes, in the same order, and nothing else:
// no options read, no record checked, no output formatted. Every step of a reported success
// is fsync'd (protocol.md §9.5, runtime.md), and on a real disk those fsyncs, with Node's own
// start, set a floor no build of the command can go below. A figure prints its floor beside
// it, so its goal can be read against what the disk allows and what Baton's code adds is the
// difference. test/bench/durableFloor.test.ts checks each plan against the command it stands
// for: the same counts of fsyncs, renames, links, removals and files created, under strace.
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { Contender } from './interleave.js';
import { expectRun, timedNode } from './spawnNode.js';

/**
 * One durable step. `lock`: Baton's lock (lib/fsx/lock.ts): the folder listed, an owner file
 * written and linked to the next generation, the folder listed again and older generations
 * removed; released at the end by linking `.released`. `create`: a new file written and
 * fsync'd. `createAll`: new files written, fsync'd together (Baton's parallel fsyncs), closed.
 * `syncDir`: a folder fsync'd. `git`: git run with these arguments, its output piped.
 */
export type FloorStep =
  | ['lock', string]
  | ['list', string]
  | ['read', string]
  | ['create', string]
  | ['createAll', string[]]
  | ['rename', string, string]
  | ['unlink', string]
  | ['syncDir', string]
  | ['git', string[]];

// The interpreter, run as `node -e FLOOR_SCRIPT <steps as JSON>`. Written for a cold process:
// node:fs only (already loaded), node:child_process only when a step runs git.
const FLOOR_SCRIPT = `
const fs = process.getBuiltinModule('node:fs');
const { O_CREAT, O_WRONLY, O_TRUNC, O_NOFOLLOW, O_RDONLY, O_DIRECTORY } = fs.constants;
const open = (f) => {
  const fd = fs.openSync(f, O_CREAT | O_WRONLY | O_TRUNC | O_NOFOLLOW, 0o600);
  fs.writeSync(fd, f);
  return fd;
};
let held;
(async () => {
  for (const [op, a, b] of JSON.parse(process.argv[1])) {
    if (op === 'lock') {
      const gens = fs.readdirSync(a).map((n) => /^lock\\.(\\d+)$/.exec(n)).filter(Boolean);
      const gen = Math.max(0, ...gens.map((m) => Number(m[1]))) + 1;
      const owner = a + '/tmp.' + process.pid;
      fs.closeSync(open(owner));
      held = a + '/lock.' + gen;
      fs.linkSync(owner, held);
      fs.unlinkSync(owner);
      for (const n of fs.readdirSync(a)) if (n !== 'lock.' + gen) fs.unlinkSync(a + '/' + n);
    } else if (op === 'list') fs.readdirSync(a);
    else if (op === 'read') fs.readFileSync(a);
    else if (op === 'create') {
      const fd = open(a);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
    } else if (op === 'createAll') {
      const fds = a.map(open);
      await Promise.all(fds.map((fd) => new Promise((ok, no) => fs.fsync(fd, (e) => (e ? no(e) : ok())))));
      for (const fd of fds) fs.closeSync(fd);
    } else if (op === 'rename') fs.renameSync(a, b);
    else if (op === 'unlink') fs.unlinkSync(a);
    else if (op === 'syncDir') {
      const fd = fs.openSync(a, O_RDONLY | O_DIRECTORY);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
    } else if (op === 'git') {
      const r = process.getBuiltinModule('node:child_process').spawnSync('git', a, { stdio: ['ignore', 'pipe', 'pipe'] });
      if (r.status !== 0) throw new Error('git ' + a.join(' ') + ': ' + r.stderr);
    } else throw new Error('unknown floor step ' + op);
  }
  if (held !== undefined) fs.linkSync(held, held + '.released');
})();
`;

/** The argument vector of a Node process that makes `steps` and exits. */
export function floorArgs(steps: FloorStep[]): string[] {
  return ['-e', FLOOR_SCRIPT, JSON.stringify(steps)];
}

/** A floor to time beside a figure: its steps, and the untimed set-up and clean-up around them. */
export interface Floor {
  /** What the floor does, for the report ("a claim's durable steps"). */
  name: string;
  steps: FloorStep[];
  /** Untimed, before each sample: puts back what the steps consume. */
  prepare: () => void;
  /** Untimed, after each sample: removes what the steps made. */
  reset: () => void;
}

/** The floor as a contender of `interleave`, run in `cwd` with `env`. */
export function floorContender(floor: Floor, cwd: string, env: NodeJS.ProcessEnv): Contender {
  return {
    name: floor.name,
    prepare: floor.prepare,
    run: async () => expectRun(floor.name, await timedNode(floorArgs(floor.steps), cwd, env), ''),
    reset: floor.reset,
  };
}

/** Makes `subdirs` under `dir` (mode 0700), a floor's own scratch layout; returns their paths. */
function scratch<const T extends readonly string[]>(
  dir: string,
  subdirs: T,
): { [K in keyof T]: string } {
  const paths = subdirs.map((sub) => join(dir, sub));
  for (const path of paths) fs.mkdirSync(path, { recursive: true, mode: 0o700 });
  return paths as { [K in keyof T]: string };
}

/** Removes a file if it is there. */
function removeIfThere(path: string): void {
  fs.rmSync(path, { force: true });
}

/**
 * `ready_for_next` claiming one item (lib/handoff/receive.ts): under the inbox lock, the item
 * renamed from new/ to in_process/, rewritten with its claim header (temp, fsync, rename),
 * both folders fsync'd.
 */
export function claimFloor(dir: string, bytes: Buffer): Floor {
  const [lock, fresh, taken] = scratch(dir, ['locks/inbox', 'inbox/new', 'inbox/in_process']);
  const name = 'item.handoff';
  return {
    name: "node making a claim's durable steps",
    steps: [
      ['list', taken],
      ['list', fresh],
      ['lock', lock],
      ['list', taken],
      ['list', fresh],
      ['rename', join(fresh, name), join(taken, name)],
      ['read', join(taken, name)],
      ['create', join(taken, `.${name}.tmp`)],
      ['rename', join(taken, `.${name}.tmp`), join(taken, name)],
      ['syncDir', taken],
      ['syncDir', fresh],
    ],
    prepare: () => fs.writeFileSync(join(fresh, name), bytes),
    reset: () => removeIfThere(join(taken, name)),
  };
}

/**
 * `done_with_current` completing one item: under the inbox lock, the item rewritten with its
 * completion header (temp, fsync, rename), renamed to completed/, both folders fsync'd.
 */
export function completionFloor(dir: string, bytes: Buffer): Floor {
  const [lock, taken, done, fresh] = scratch(dir, [
    'locks/inbox',
    'inbox/in_process',
    'inbox/completed',
    'inbox/new',
  ]);
  const name = 'item.handoff';
  return {
    name: "node making a completion's durable steps",
    steps: [
      ['lock', lock],
      ['list', taken],
      ['read', join(taken, name)],
      ['create', join(taken, `.${name}.tmp`)],
      ['rename', join(taken, `.${name}.tmp`), join(taken, name)],
      ['rename', join(taken, name), join(done, name)],
      ['syncDir', done],
      ['syncDir', taken],
      ['list', taken],
      ['list', fresh],
    ],
    prepare: () => fs.writeFileSync(join(taken, name), bytes),
    reset: () => removeIfThere(join(done, name)),
  };
}

/**
 * `swarm_handoff` of one draft (lib/handoff/send.ts): under the outbox lock, the sequence
 * replaced (temp, fsync, rename, folder fsync); the handoff and its journal written to tmp/
 * and fsync'd, tmp/ fsync'd; the handoff renamed into outbox/, outbox/ fsync'd; the draft
 * removed and its folder fsync'd; the journal removed and tmp/ fsync'd.
 */
export function sendFloor(dir: string, draftText: string): Floor {
  const [lock, outbox, tmp, drafts] = scratch(dir, [
    'locks/outbox',
    'outbox',
    'outbox/tmp',
    'drafts',
  ]);
  const name = 'item.handoff';
  const draft = join(drafts, 'draft.txt');
  return {
    name: "node making a send's durable steps",
    steps: [
      ['read', draft],
      ['lock', lock],
      ['list', tmp],
      ['list', outbox],
      ['create', join(dir, 'sequence.tmp')],
      ['rename', join(dir, 'sequence.tmp'), join(dir, 'sequence')],
      ['syncDir', dir],
      ['create', join(tmp, `${name}.tmp`)],
      ['create', join(tmp, `${name}.draft`)],
      ['syncDir', tmp],
      ['rename', join(tmp, `${name}.tmp`), join(outbox, name)],
      ['syncDir', outbox],
      ['unlink', draft],
      ['syncDir', drafts],
      ['unlink', join(tmp, `${name}.draft`)],
      ['syncDir', tmp],
    ],
    prepare: () => fs.writeFileSync(draft, draftText),
    reset: () => removeIfThere(join(outbox, name)),
  };
}

/**
 * One record replaced under its lock (a lease heartbeat, a provider report, a review verdict:
 * lib/run/runMutation.ts, lib/review/bookbag/store.ts): the record read, a temp written and
 * fsync'd, renamed over it, its folder fsync'd. `before` and `after` add a command's own
 * steps (a resume's git status, a pause's lease removal).
 */
export function recordFloor(
  dir: string,
  what: string,
  { before = [], after = [] }: { before?: FloorStep[]; after?: FloorStep[] } = {},
): Floor {
  const [lock, folder] = scratch(dir, ['lock', 'record']);
  const record = join(folder, 'record.json');
  fs.writeFileSync(record, '{}\n');
  return {
    name: `node making ${what}`,
    steps: [
      ['lock', lock],
      ...before,
      ['read', record],
      ['create', `${record}.tmp`],
      ['rename', `${record}.tmp`, record],
      ['syncDir', folder],
      ...after,
    ],
    prepare: () => undefined,
    reset: () => undefined,
  };
}

/** A pause: the record replaced, then the lease removed and its folder fsync'd. */
export function pauseFloor(dir: string): Floor {
  const lease = join(dir, 'record', 'lease.json');
  const floor = recordFloor(dir, "a pause's durable steps", {
    after: [
      ['unlink', lease],
      ['syncDir', join(dir, 'record')],
    ],
  });
  return { ...floor, prepare: () => fs.writeFileSync(lease, '{}\n') };
}

/**
 * `baton run reply` (lib/run/reply.ts): the reply's file copied into the run's artifacts
 * (created, fsync'd, the folder fsync'd); then a run_result sent as a send is, with its two
 * new files fsync'd together and no draft or journal.
 */
export function replyFloor(dir: string): Floor {
  const [artifacts, lock, outbox, tmp] = scratch(dir, [
    'artifacts',
    'locks/outbox',
    'outbox',
    'outbox/tmp',
  ]);
  const artifact = join(artifacts, 'work.md');
  const name = 'item.handoff';
  return {
    name: "node making a reply's durable steps",
    steps: [
      ['create', artifact],
      ['syncDir', artifacts],
      ['lock', lock],
      ['createAll', [join(dir, 'sequence.tmp'), join(tmp, `${name}.tmp`)]],
      ['rename', join(dir, 'sequence.tmp'), join(dir, 'sequence')],
      ['syncDir', dir],
      ['rename', join(tmp, `${name}.tmp`), join(outbox, name)],
      ['syncDir', outbox],
    ],
    prepare: () => undefined,
    reset: () => {
      removeIfThere(artifact);
      removeIfThere(join(outbox, name));
    },
  };
}
