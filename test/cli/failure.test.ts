import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import {
  describeFailure,
  EXIT_CODES,
  exitAs,
  exitAsScripted,
  reportFailure,
  reportFailureAndExit,
} from '../../lib/cli/failure.js';
import { DaemonAlreadyRunning } from '../../lib/daemon/alreadyRunning.js';
import {
  BookbagProblem,
  FindingsError,
  LeafInterrupted,
  ReviewRefusal,
} from '../../lib/review/bookbag/reviewErrors.js';
import { CommandFailure, type FailureKind } from '../../lib/fsx/commandFailure.js';
import { LockBusy } from '../../lib/fsx/lock.js';
import { UnsafeMailbox } from '../../lib/queue/mailbox.js';

/** A Node system error as fs raises it. */
function systemError(code: string, syscall?: string, path?: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(
    `${code}: something, ${syscall} '${path}'\n    at fake (stack.js:1:1)`,
  );
  err.code = code;
  if (syscall) err.syscall = syscall;
  if (path) err.path = path;
  return err;
}

const noStack = (lines: string[]) => lines.every((l) => !/\n|^\s+at /.test(l));

describe('lib/cli/failure', () => {
  it('maps each FailureKind to its exit code and prints its lines verbatim', () => {
    const expected: Record<FailureKind, number> = {
      usage: 1,
      environment: 1,
      state: 1,
      invalid: 2,
      refused: 2,
      temporary: 75,
    };
    for (const [kind, exitCode] of Object.entries(expected) as [FailureKind, number][]) {
      const lines = [`${kind} first line`, '- /a/path'];
      assert.deepEqual(
        describeFailure('prog', new CommandFailure(kind, lines)),
        { lines, exitCode },
        kind,
      );
    }
  });

  it('the table: 0 done, 1 usage/environment, 2 invalid/refused/problems found, 3 daemon not running, 75 temporary', () => {
    assert.deepEqual(EXIT_CODES, {
      done: 0,
      usage: 1,
      environment: 1,
      state: 1,
      invalid: 2,
      refused: 2,
      problemsFound: 2,
      notRunning: 3,
      temporary: 75,
    });
  });

  it('exitAs sets the exit code of an outcome from the table', () => {
    const saved = process.exitCode;
    try {
      exitAs('notRunning');
      assert.equal(process.exitCode, 3);
      exitAs('problemsFound');
      assert.equal(process.exitCode, 2);
    } finally {
      process.exitCode = saved;
    }
  });

  it('DaemonAlreadyRunning → 1 with its own line, the same for handoffd and baton daemon start', () => {
    for (const program of ['handoffd', 'baton']) {
      assert.deepEqual(describeFailure(program, new DaemonAlreadyRunning(4242)), {
        lines: ['handoffd: already running as pid 4242'],
        exitCode: 1,
      });
    }
  });

  it("the review stage's failures → 2: a refusal or a malformed finding one line; an unknown bead one line; a bad bookbag with its problems", () => {
    assert.deepEqual(
      describeFailure('baton', new ReviewRefusal('cto verdict already recorded for b')),
      { lines: ['baton: cto verdict already recorded for b'], exitCode: 2 },
    );
    assert.deepEqual(describeFailure('baton', new FindingsError("unknown severity 'X'")), {
      lines: ["baton: unknown severity 'X'"],
      exitCode: 2,
    });
    assert.deepEqual(
      describeFailure('baton', new BookbagProblem('missing', '/r/b.json', ['no such bookbag'])),
      { lines: ["baton: unknown bead: no bookbag '/r/b.json'"], exitCode: 2 },
    );
    assert.deepEqual(
      describeFailure('baton', new BookbagProblem('inconsistent', '/r/b.json', ['p1', 'p2'])),
      { lines: ["baton: inconsistent bookbag '/r/b.json'", '- p1', '- p2'], exitCode: 2 },
    );
  });

  it("exitAsScripted sets the code a test double was told to end with; reportFailureAndExit reports, then ends the process with the failure's code", () => {
    const saved = { exitCode: process.exitCode, exit: process.exit, write: process.stderr.write };
    const exits: (number | string | null | undefined)[] = [];
    const written: string[] = [];
    try {
      exitAsScripted(7);
      assert.equal(process.exitCode, 7);
      process.exit = ((code?: number | string | null) => {
        exits.push(code ?? process.exitCode);
      }) as typeof process.exit;
      process.stderr.write = ((chunk: string | Uint8Array) =>
        written.push(String(chunk)) > 0) as typeof process.stderr.write;
      reportFailureAndExit('baton', new LeafInterrupted('SIGINT', 'x'));
    } finally {
      Object.assign(process, { exitCode: saved.exitCode, exit: saved.exit });
      process.stderr.write = saved.write;
    }
    assert.deepEqual([exits, written.join('')], [[130], 'baton: interrupted by SIGINT: x\n']);
  });

  it('a leaf stopped by a signal → 128 + its number (143 for SIGTERM, 130 for SIGINT, 129 for SIGHUP), one line', () => {
    assert.deepEqual(
      describeFailure(
        'baton',
        new LeafInterrupted('SIGTERM', "worktree removed, nothing submitted; audit '/a.json'"),
      ),
      {
        lines: [
          "baton: interrupted by SIGTERM: worktree removed, nothing submitted; audit '/a.json'",
        ],
        exitCode: 143,
      },
    );
    assert.equal(describeFailure('baton', new LeafInterrupted('SIGINT', 'x')).exitCode, 130);
    assert.equal(describeFailure('baton', new LeafInterrupted('SIGHUP', 'x')).exitCode, 129);
  });

  it('LockBusy → 75 and UnsafeMailbox → 2, one line prefixed with the program', () => {
    assert.deepEqual(
      describeFailure('ready_for_next', new LockBusy('/m/locks/inbox', '4242 123 boot')),
      { lines: ["ready_for_next: lock busy '/m/locks/inbox': held by pid 4242"], exitCode: 75 },
    );
    assert.deepEqual(
      describeFailure('swarm_handoff', new UnsafeMailbox('/m/outbox', 'is a symlink')),
      { lines: ["swarm_handoff: refusing mailbox folder '/m/outbox': is a symlink"], exitCode: 2 },
    );
  });

  it('temporary system errors (ENOSPC, EDQUOT, EAGAIN, EBUSY, EMFILE, ENFILE) → 75', () => {
    for (const code of ['ENOSPC', 'EDQUOT', 'EAGAIN', 'EBUSY', 'EMFILE', 'ENFILE']) {
      assert.deepEqual(
        describeFailure('p', systemError(code, 'write', '/m/outbox/tmp/x.tmp')),
        { lines: [`p: write failed '/m/outbox/tmp/x.tmp': ${code}`], exitCode: 75 },
        code,
      );
    }
  });

  it('other system errors → 1, one line naming the syscall and the path', () => {
    assert.deepEqual(
      describeFailure('baton', systemError('EACCES', 'open', '/r/.swarmforge/roles.tsv')),
      {
        lines: [
          "baton: open failed '/r/.swarmforge/roles.tsv': EACCES (permission denied to this user)",
        ],
        exitCode: 1,
      },
    );
    assert.deepEqual(describeFailure('baton', systemError('EIO', 'fsync')), {
      lines: ['baton: fsync failed: EIO'],
      exitCode: 1,
    });
  });

  it('a real fs error is described without its stack', () => {
    let err: unknown;
    try {
      fs.readFileSync('/nonexistent-baton-test/file');
    } catch (e) {
      err = e;
    }
    const { lines, exitCode } = describeFailure('p', err);
    assert.deepEqual(
      [lines, exitCode],
      [["p: open failed '/nonexistent-baton-test/file': ENOENT"], 1],
    );
  });

  it('a plain Error or any thrown value → 1, only the first line of the message, never a stack', () => {
    const err = new Error('something broke\nsecond line\n    at x (y.js:1:1)');
    const described = describeFailure('p', err);
    assert.deepEqual(described, { lines: ['p: something broke'], exitCode: 1 });
    assert.ok(noStack(described.lines));
    assert.deepEqual(describeFailure('p', 'a string'), { lines: ['p: a string'], exitCode: 1 });
    assert.deepEqual(describeFailure('p', undefined), { lines: ['p: undefined'], exitCode: 1 });
    assert.deepEqual(describeFailure('p', new TypeError('x is not a function')), {
      lines: ['p: x is not a function'],
      exitCode: 1,
    });
  });

  it('makes every line printable (a file name or draft value cannot drive the terminal), keeping the line breaks of a usage text', () => {
    const refused = new CommandFailure('refused', [
      'NOT_CURRENT_TASK: \x1b[2Jx\u202e is not in process.',
      '- /m/in_process/\x1b]0;t\x07.handoff',
      'Usage: x\n\nmore',
    ]);
    assert.deepEqual(describeFailure('p', refused).lines, [
      'NOT_CURRENT_TASK: \\u001b[2Jx\\u202e is not in process.',
      '- /m/in_process/\\u001b]0;t\\u0007.handoff',
      'Usage: x\n\nmore',
    ]);
    assert.deepEqual(
      describeFailure('p', systemError('EACCES', 'open', '/m/new/\x1b[31m.handoff')).lines,
      ["p: open failed '/m/new/\\u001b[31m.handoff': EACCES (permission denied to this user)"],
    );
    assert.deepEqual(describeFailure('p', new UnsafeMailbox('/m/\x07box', 'is a symlink')).lines, [
      "p: refusing mailbox folder '/m/\\u0007box': is a symlink",
    ]);
  });

  it('reportFailure writes the lines to stderr and sets process.exitCode', () => {
    const written: string[] = [];
    const write = process.stderr.write;
    const exitCode = process.exitCode;
    process.stderr.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      reportFailure(
        'done_with_current',
        new CommandFailure('refused', [
          'AMBIGUOUS_TASK_STATE: multiple tasks are in process.',
          '- /a',
          '- /b',
        ]),
      );
      assert.equal(process.exitCode, 2);
    } finally {
      process.stderr.write = write;
      process.exitCode = exitCode;
    }
    assert.equal(
      written.join(''),
      'AMBIGUOUS_TASK_STATE: multiple tasks are in process.\n- /a\n- /b\n',
    );
  });
});
