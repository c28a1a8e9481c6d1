#!/usr/bin/env node
// done_with_current [ID]: complete the work in process, then claim the next.
import { runAgentCommand } from '../lib/cli/agentCommand.js';
import { doneWithCurrent } from '../lib/handoff/receive.js';
import { DONE_WITH_CURRENT_USAGE } from '../lib/handoff/usage.js';

void runAgentCommand({
  program: 'done_with_current',
  usage: DONE_WITH_CURRENT_USAGE,
  minArgs: 0,
  maxArgs: 1,
  run: (args, onSkip) => doneWithCurrent(process.cwd(), process.env, args[0], onSkip),
});
