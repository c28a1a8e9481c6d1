import assert from 'node:assert/strict';
import { runAgentCommand, type AgentCommand } from '../../lib/cli/agentCommand.js';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import { batonVersion } from '../../lib/proc/version.js';
import { QuarantinedItem, UnusableItem } from '../../lib/queue/item.js';

interface Captured {
  stdout: Buffer;
  stderr: string;
  exitCode: number | string | undefined;
}

/**
 * Runs fn with the command's stdout writer, process.stderr writes and process.exitCode
 * captured, restoring them after.
 */
async function capture(
  fn: (writeOut: (data: string | Uint8Array) => void) => Promise<void>,
): Promise<Captured> {
  const out: Buffer[] = [];
  const err: string[] = [];
  const stdoutWrite = process.stdout.write;
  const stderrWrite = process.stderr.write;
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    out.push(Buffer.from(chunk));
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    err.push(Buffer.from(chunk).toString());
    return true;
  }) as typeof process.stderr.write;
  try {
    await fn((chunk) => out.push(Buffer.from(chunk)));
    return { stdout: Buffer.concat(out), stderr: err.join(''), exitCode: process.exitCode };
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
    process.exitCode = exitCode;
  }
}

describe('lib/cli/agentCommand', () => {
  let calls: string[][];
  let result: () => Promise<Buffer | string>;
  const command = (minArgs: number, maxArgs: number): AgentCommand => ({
    program: 'prog',
    usage: 'Usage: prog [ID]\n\nDoes things.',
    minArgs,
    maxArgs,
    run: async (args, onSkip) => {
      calls.push(args);
      onSkip(new UnusableItem('/m/inbox/new/00_bad.handoff', 'no id header'));
      return result();
    },
  });
  beforeEach(() => {
    calls = [];
    result = async () => 'OUT\n';
  });

  it('--help and -h print the usage on stdout with one newline, exit code untouched, nothing run', async () => {
    for (const argv of [['--help'], ['-h'], ['x', '--help']]) {
      const r = await capture((w) => runAgentCommand(command(0, 1), argv, w));
      assert.deepEqual(
        [r.stdout.toString(), r.stderr, r.exitCode],
        ['Usage: prog [ID]\n\nDoes things.\n', '', undefined],
        argv.join(' '),
      );
    }
    assert.deepEqual(calls, []);
  });

  it('--version prints the package version on stdout, nothing run', async () => {
    for (const argv of [['--version'], ['x', '--version']]) {
      const r = await capture((w) => runAgentCommand(command(0, 1), argv, w));
      assert.deepEqual(
        [r.stdout.toString(), r.stderr, r.exitCode],
        [`${batonVersion()}\n`, '', undefined],
        argv.join(' '),
      );
    }
    assert.deepEqual(calls, []);
  });

  it('too few or too many arguments, or an unknown --option: usage on stderr, exit 1, nothing run', async () => {
    for (const [min, max, argv] of [
      [1, 1, []],
      [1, 1, ['a', 'b']],
      [0, 0, ['x']],
      [0, 1, ['--force']],
      [1, 1, ['--']],
    ] as [number, number, string[]][]) {
      const r = await capture((w) => runAgentCommand(command(min, max), argv, w));
      assert.deepEqual(
        [r.stdout.length, r.stderr, r.exitCode],
        [0, 'Usage: prog [ID]\n\nDoes things.\n', 1],
        `${min}-${max} ${argv.join(' ')}`,
      );
    }
    assert.deepEqual(calls, []);
  });

  it('runs with the arguments and writes the result bytes to stdout verbatim; skips go to stderr', async () => {
    const bytes = Buffer.from([0x54, 0x3a, 0xff, 0x0d, 0x0a]);
    result = async () => bytes;
    const r = await capture((w) =>
      runAgentCommand(command(0, 1), ['20260101T000000Z_000001_from_coder'], w),
    );
    assert.deepEqual(calls, [['20260101T000000Z_000001_from_coder']]);
    assert.ok(r.stdout.equals(bytes));
    assert.equal(r.stderr, 'skipping /m/inbox/new/00_bad.handoff: no id header\n');
    assert.equal(r.exitCode, undefined);
  });

  it('reportUnusable: a quarantined entry is reported with where it went; names and reasons are made printable', async () => {
    result = async () => 'OUT\n';
    const r = await capture((w) =>
      runAgentCommand(
        {
          ...command(0, 0),
          run: async (_args, onSkip) => {
            onSkip(
              new QuarantinedItem(
                '/m/inbox/new/00_\x1b[2J.handoff',
                "unreadable header line '\x1b]0;x\x07'",
                '/m/inbox/bad/00_\x1b[2J.handoff',
              ),
            );
            return 'OUT\n';
          },
        },
        [],
        w,
      ),
    );
    assert.equal(
      r.stderr,
      "quarantined /m/inbox/new/00_\\u001b[2J.handoff -> /m/inbox/bad/00_\\u001b[2J.handoff: unreadable header line '\\u001b]0;x\\u0007'\n",
    );
  });

  it('a failure goes through describeFailure: its lines on stderr, its exit code, nothing on stdout', async () => {
    result = async () => {
      throw new CommandFailure('refused', ['NOT_CURRENT_TASK: x is not in process.']);
    };
    const refused = await capture((w) => runAgentCommand(command(0, 1), ['x'], w));
    assert.deepEqual(
      [refused.stdout.length, refused.stderr, refused.exitCode],
      [
        0,
        'skipping /m/inbox/new/00_bad.handoff: no id header\nNOT_CURRENT_TASK: x is not in process.\n',
        2,
      ],
    );
    result = async () => {
      throw new Error('boom\n    at somewhere');
    };
    const crashed = await capture((w) => runAgentCommand(command(0, 0), [], w));
    assert.deepEqual(
      [crashed.stderr.split('\n').slice(1), crashed.exitCode],
      [['prog: boom', ''], 1],
    );
  });

  it('defaults to process.argv after the script name', async () => {
    const argv = process.argv;
    process.argv = [argv[0]!, 'script.js', '--help'];
    try {
      const r = await capture((w) => runAgentCommand(command(1, 1), undefined, w));
      assert.equal(r.stdout.toString(), 'Usage: prog [ID]\n\nDoes things.\n');
    } finally {
      process.argv = argv;
    }
  });
});
