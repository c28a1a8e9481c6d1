// The scripted worker: the test double for a real worker (an agent run in a leaf), used by
// the tests and the demo as `baton leaf run ... -- baton-scripted-worker [options]`. It
// is deterministic from its brief: it checks that the brief on stdin and the file named
// by BATON_BRIEF agree, writes `work/<bead>.txt` (the task) in its working directory,
// commits it (unless told not to), writes a verification note to BATON_VERIFICATION, and
// prints the same three lines every time. Options make it fail in each way a leaf must
// survive: a non-zero exit, a crash (SIGKILL of itself), or a hang (with a child in its
// process group, which the leaf's timeout must kill too).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { fail } from '../fsx/commandFailure.js';
import { runGit } from '../proc/git.js';
import { batonVersion } from '../proc/version.js';
import { printable } from '../fsx/printable.js';

/** The scripted worker's usage (`baton-scripted-worker --help`). */
export const SCRIPTED_WORKER_USAGE = `Usage: baton-scripted-worker [--no-commit] [--exit N]
       [--crash] [--hang] [--pid-file FILE]

A stand-in for a real worker in a leaf: baton leaf run ... -- baton-scripted-worker.
It reads the brief (JSON) on stdin and checks that the file named by $BATON_BRIEF holds
the same; writes work/<bead>.txt (the task) in its working directory and commits it;
writes a note to $BATON_VERIFICATION; prints "done: <task>", "wrote: work/<bead>.txt"
and "committed: yes" (or "no"). Deterministic from its brief.

  --no-commit      write the file but do not commit it
  --exit N         after the work, exit with code N
  --crash          after writing the file, kill itself with SIGKILL
                   (nothing committed or printed)
  --hang           after writing the file, start a child and wait forever with it
  --pid-file FILE  write its pid (and, with --hang, its child's) to FILE, one a line`;

/** The worker's settings. */
export interface WorkerSettings {
  commit: boolean;
  exitCode: number;
  crash: boolean;
  hang: boolean;
  pidFile?: string;
}

/** Parses the options (usage failure on anything else). */
export function workerSettings(argv: string[]): WorkerSettings {
  const settings: WorkerSettings = { commit: true, exitCode: 0, crash: false, hang: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--no-commit') settings.commit = false;
    else if (arg === '--crash') settings.crash = true;
    else if (arg === '--hang') settings.hang = true;
    else if (arg === '--exit' && /^\d+$/.test(argv[i + 1] ?? ''))
      settings.exitCode = Number(argv[++i]);
    else if (arg === '--pid-file' && argv[i + 1]) settings.pidFile = argv[++i];
    else
      fail(
        'usage',
        `baton-scripted-worker: unknown or incomplete option '${printable(arg)}'`,
        'Run baton-scripted-worker --help for usage.',
      );
  }
  return settings;
}

/** The brief a leaf gives its worker. */
export interface WorkerBrief {
  bead: string;
  role: string;
  domain: string;
  task: string;
  difficulty: string;
}

/**
 * The brief from stdin's text, checked against the file BATON_BRIEF names (invalid, exit 2, when
 * they differ).
 */
export function briefOf(stdinText: string, env: NodeJS.ProcessEnv): WorkerBrief {
  const path = env.BATON_BRIEF;
  if (!path)
    fail(
      'environment',
      'baton-scripted-worker: BATON_BRIEF is not set (run it as a ' +
        'leaf worker: baton leaf run ... -- baton-scripted-worker)',
    );
  let fromStdin: WorkerBrief;
  try {
    fromStdin = JSON.parse(stdinText) as WorkerBrief;
  } catch {
    fail('invalid', 'baton-scripted-worker: the brief on stdin is not JSON');
  }
  if (JSON.stringify(JSON.parse(fs.readFileSync(path, 'utf8'))) !== JSON.stringify(fromStdin)) {
    fail(
      'invalid',
      `baton-scripted-worker: the brief on stdin differs from BATON_BRIEF '${printable(path)}'`,
    );
  }
  return fromStdin;
}

/**
 * Starts a child in this process group that waits forever, writes the pid file, and never returns.
 */
function hang(settings: WorkerSettings): Promise<never> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 60_000)'], {
    stdio: 'ignore',
  });
  if (settings.pidFile) fs.writeFileSync(settings.pidFile, `${process.pid}\n${child.pid}\n`);
  setInterval(() => undefined, 60_000);
  return new Promise<never>(() => undefined);
}

/**
 * Does the work of the brief in `cwd`; returns what to print and the exit code to end with (never
 * returns when told to crash or hang).
 */
export async function doWork(
  brief: WorkerBrief,
  settings: WorkerSettings,
  env: NodeJS.ProcessEnv,
  cwd = process.cwd(),
): Promise<{ stdout: string; exitCode: number }> {
  const file = join('work', `${brief.bead}.txt`);
  fs.mkdirSync(join(cwd, 'work'), { recursive: true });
  fs.writeFileSync(join(cwd, file), `${brief.task}\n`);
  if (settings.hang) return hang(settings);
  if (settings.pidFile) fs.writeFileSync(settings.pidFile, `${process.pid}\n`);
  if (settings.crash) process.kill(process.pid, 'SIGKILL');
  if (settings.commit) {
    runGit(cwd, ['add', '--', file]);
    runGit(cwd, [
      '-c',
      'user.name=baton-scripted-worker',
      '-c',
      'user.email=worker@baton.invalid',
      'commit',
      '-q',
      '-m',
      `${brief.role}: ${brief.task}`,
    ]);
  }
  const committed = settings.commit ? 'yes' : 'no';
  if (env.BATON_VERIFICATION)
    fs.writeFileSync(
      env.BATON_VERIFICATION,
      `scripted worker: wrote ${file}; committed: ${committed}\n`,
    );
  return {
    stdout: `done: ${brief.task}\nwrote: ${file}\ncommitted: ${committed}\n`,
    exitCode: settings.exitCode,
  };
}

/** Reads all of stdin as text. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Runs the worker (or answers --help / --version); returns the exit code to end with. */
export async function runScriptedWorker(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${SCRIPTED_WORKER_USAGE}\n`);
    return 0;
  }
  if (argv.includes('--version')) {
    process.stdout.write(`${batonVersion()}\n`);
    return 0;
  }
  const settings = workerSettings(argv);
  const { stdout, exitCode } = await doWork(briefOf(await readStdin(), env), settings, env);
  process.stdout.write(stdout);
  return exitCode;
}
