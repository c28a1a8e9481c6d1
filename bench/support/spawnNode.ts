// Timing a Node child process from spawn to exit, with an argument vector (no shell).
import { execFile } from 'node:child_process';
import { type Contender } from './interleave.js';
import { msSince } from './stats.js';

/** The outcome of one timed child run. */
export interface TimedRun {
  ms: number;
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `node <args>` in `cwd` with `env` (and `input` written to its stdin, then closed) and measures wall time until it has exited. */
export function timedNode(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  input?: string,
): Promise<TimedRun> {
  return new Promise((done) => {
    const start = process.hrtime.bigint();
    const child = execFile(
      process.execPath,
      args,
      { cwd, env, encoding: 'utf8' },
      (err, stdout, stderr) => {
        const ms = msSince(start);
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        done({ ms, code, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** The environment of an agent acting as `role` (no inherited SWARMFORGE_ROOT). */
export function agentEnv(role: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SWARMFORGE_ROLE: role };
  delete env.SWARMFORGE_ROOT;
  return env;
}

/** This process's environment as the owner's terminal has it: no role, no ROOT, no tmux pane. */
export function ownerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['SWARMFORGE_ROLE', 'SWARMFORGE_ROOT', 'TMUX', 'TMUX_PANE']) delete env[name];
  return env;
}

/** Throws unless a run exited 0 and its stdout starts with `expected`. */
export function expectRun(what: string, run: TimedRun, expected: string): void {
  if (run.code !== 0 || !run.stdout.startsWith(expected)) {
    throw new Error(
      `${what}: exit ${run.code}, stdout ${JSON.stringify(run.stdout.slice(0, 200))}, stderr ${JSON.stringify(run.stderr.slice(0, 200))}`,
    );
  }
}

/** `node -e 0` in `cwd` with `env` as a contender: the baseline of every start-up figure. */
export function nodeStartContender(cwd: string, env: NodeJS.ProcessEnv): Contender {
  return {
    name: 'node -e 0',
    run: async () => expectRun('node -e 0', await timedNode(['-e', '0'], cwd, env), ''),
  };
}
