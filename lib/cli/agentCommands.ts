// The three agent commands, the code of their bins. They are one bundle
// (dist/bin/baton-agent.js) that each bin loads with V8's code cache, a cache file per command
// (lib/cli/codeCache.ts): compiling a command's code on every call was about 1 ms of it
// (issue 22), and an agent calls them dozens of times an hour.
import { runAgentCommand } from './agentCommand.js';
import { writeStderrLine } from '../fsx/stdio.js';
import { doneWithCurrent, NO_TASK, readyForNext } from '../handoff/receive.js';
import { sendHandoff } from '../handoff/send.js';
import {
  DONE_WITH_CURRENT_USAGE,
  READY_FOR_NEXT_USAGE,
  SWARM_HANDOFF_USAGE,
} from '../handoff/usage.js';

let ranTheCommand = false;

/**
 * Whether this call ran its command's work: not `--help`, `--version`, a usage error or
 * `ready_for_next` on an idle inbox. What those compile is a fraction of the command, and a
 * code cache made from one would leave every later call to compile the rest.
 */
export function codeCacheWorthy(): boolean {
  return ranTheCommand;
}

/** ready_for_next: hand the acting role its current task again, or claim the next one. */
export function runReadyForNext(): Promise<void> {
  return runAgentCommand({
    program: 'ready_for_next',
    usage: READY_FOR_NEXT_USAGE,
    minArgs: 0,
    maxArgs: 0,
    run: async (_args, onSkip) => {
      const out = await readyForNext(process.cwd(), process.env, onSkip);
      ranTheCommand = out.toString() !== NO_TASK;
      return out;
    },
  });
}

/** done_with_current [ID]: complete the work in process, then claim the next. */
export function runDoneWithCurrent(): Promise<void> {
  return runAgentCommand({
    program: 'done_with_current',
    usage: DONE_WITH_CURRENT_USAGE,
    minArgs: 0,
    maxArgs: 1,
    run: (args, onSkip) => {
      ranTheCommand = true;
      return doneWithCurrent(process.cwd(), process.env, args[0], onSkip);
    },
  });
}

/** swarm_handoff <draft>: validate a draft and queue it in the sender's outbox. */
export function runSwarmHandoff(): Promise<void> {
  return runAgentCommand({
    program: 'swarm_handoff',
    usage: SWARM_HANDOFF_USAGE,
    minArgs: 1,
    maxArgs: 1,
    run: (args, onSkip) => {
      ranTheCommand = true;
      return sendHandoff(args[0]!, process.cwd(), process.env, onSkip, undefined, writeStderrLine);
    },
  });
}
