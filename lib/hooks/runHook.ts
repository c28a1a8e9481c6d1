// One hook run as a process: read the agent's JSON from stdin, answer, print. A hook must
// never break the agent, so whatever fails (stdin that is not JSON, no project, an unknown
// role, an unreadable mailbox or run record) ends the same way: nothing on stdout, nothing
// on stderr, exit 0 (the agents read exit 2 as "block" and other codes as errors they
// show). BATON_HOOKS_DEBUG=1 prints the failure as one line on stderr, for a person
// finding out why a hook says nothing. Nothing here sets an exit code: 0 is the default.
import * as fs from 'node:fs';
import { isCode } from '../fsx/absent.js';
import { printable } from '../fsx/printable.js';
import { writeAllSync } from '../fsx/stdio.js';
import { parseHookInput, type HookInput } from './hookInput.js';

/** A hook's answer to its input: the stdout text, or undefined for none. */
export type HookAnswer = (
  input: HookInput,
  env: NodeJS.ProcessEnv,
) => Promise<string | undefined> | string | undefined;

/**
 * The hook's stdout for `stdinText` ('' for none) and the failure it swallowed, if any; never
 * throws.
 */
export async function hookOutput(
  event: string,
  stdinText: string,
  answer: HookAnswer,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ stdout: string; failure?: unknown }> {
  try {
    const input = parseHookInput(stdinText, cwd);
    // Installed under another event, the answer would not fit that event's schema.
    if (input.event !== undefined && input.event !== event) return { stdout: '' };
    return { stdout: (await answer(input, env)) ?? '' };
  } catch (failure) {
    return { stdout: '', failure };
  }
}

/**
 * All of stdin. A synchronous read of fd 0 loads nothing and costs no event-loop turn. A
 * stdin the agent left non-blocking can end that read with EAGAIN; it is then read as a
 * stream (bytes the failed read had taken are lost: the JSON does not parse, and the hook
 * prints nothing, as for any failure).
 */
async function readStdin(): Promise<string> {
  try {
    return fs.readFileSync(0, 'utf8');
  } catch (err) {
    if (!isCode(err, 'EAGAIN')) throw err;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Runs `write`; a reader that went away (EPIPE) is no failure of the hook. */
function ignoreEpipe(write: () => void): void {
  try {
    write();
  } catch (err) {
    if (!isCode(err, 'EPIPE')) throw err;
  }
}

/** Runs the hook of `event` in this process: stdin, answer, stdout; exit 0 whatever happens. */
export async function runHook(event: string, answer: HookAnswer): Promise<void> {
  let result: { stdout: string; failure?: unknown };
  try {
    result = await hookOutput(event, await readStdin(), answer, process.cwd(), process.env);
  } catch (failure) {
    result = { stdout: '', failure };
  }
  // An agent that closed its end before reading must not turn into an unhandled EPIPE.
  if (result.stdout !== '') ignoreEpipe(() => writeAllSync(1, result.stdout));
  if (result.failure !== undefined && process.env.BATON_HOOKS_DEBUG === '1') {
    const message =
      result.failure instanceof Error ? result.failure.message : String(result.failure);
    process.stderr.write(`baton hook ${event}: ${printable(message.split('\n')[0] ?? '')}\n`);
  }
}
